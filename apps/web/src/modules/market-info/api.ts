import {
  calendarResponseSchema,
  fundamentalsListSchema,
  fundamentalsResponseSchema,
  type CalendarEventType,
} from '@brokerage/shared';
import { useQuery } from '@tanstack/react-query';
import { apiCall } from '../../lib/api';

export type CalendarFilter = 'all' | CalendarEventType;
/** §2.8 / §9: the calendar is fetched on open, every 5 minutes and on the refresh button. */
export const CALENDAR_REFRESH_MS = 300_000;

export const marketInfoKeys = {
  calendar: (type: CalendarFilter) => ['market-info', 'calendar', type] as const,
  fundamentals: (symbol: string) => ['market-info', 'fundamentals', symbol] as const,
  fundamentalsList: () => ['market-info', 'fundamentals-list'] as const,
};

export function useEconomicCalendar(type: CalendarFilter) {
  return useQuery({
    queryKey: marketInfoKeys.calendar(type),
    queryFn: () => apiCall(calendarResponseSchema, '/api/economic-calendar', { query: { type } }),
    refetchInterval: CALENDAR_REFRESH_MS,
    staleTime: 60_000,
  });
}

/** The stocks the source has fundamentals for (the selector lists only those). */
export function useFundamentalsList() {
  return useQuery({
    queryKey: marketInfoKeys.fundamentalsList(),
    queryFn: () => apiCall(fundamentalsListSchema, '/api/fundamentals'),
    staleTime: 600_000,
  });
}

export function useFundamentals(symbol: string | null) {
  return useQuery({
    queryKey: marketInfoKeys.fundamentals(symbol ?? ''),
    queryFn: () => apiCall(fundamentalsResponseSchema, `/api/fundamentals/${encodeURIComponent(symbol ?? '')}`),
    enabled: symbol !== null,
    staleTime: 600_000,
    retry: false,
  });
}
