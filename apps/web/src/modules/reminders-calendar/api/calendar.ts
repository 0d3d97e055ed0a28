import { remindersResponseSchema } from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import { reminderKeys } from '../../clients/keys';
import { periodDays, type CalendarFilters } from '../period';

export { DEFAULT_FILTERS, periodDays, type CalendarFilters, type Period } from '../period';

/** GET /api/reminders with the calendar's filters (D4: filtered and paged by the server). */
export function useCalendarReminders(f: CalendarFilters) {
  const query = {
    ...periodDays(f),
    order: f.order,
    per_page: f.perPage,
    page: f.page,
    ...(f.status !== 'all' ? { status: f.status } : {}),
    ...(f.manager ? { created_by: f.manager } : {}),
  };
  return useQuery({
    queryKey: reminderKeys.calendar(query),
    queryFn: ({ signal }) => apiCall(remindersResponseSchema, '/api/reminders', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
