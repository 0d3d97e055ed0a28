import { DASHBOARD_PERIODS, dashboardResponseSchema, type DashboardPeriod } from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

export { DASHBOARD_PERIODS, type DashboardPeriod };

/** The dashboard's filters (§2.4), as they live in the page's URL so a view can be shared and survives a reload. */
export interface DashboardFilters {
  period: DashboardPeriod;
  /** Inclusive local dates (YYYY-MM-DD), both or neither; they override the period. */
  dateFrom: string | null;
  dateTo: string | null;
  managerIds: string[];
}

export const dashboardKeys = {
  all: ['dashboard'] as const,
  view: (f: DashboardFilters) => ['dashboard', f.period, f.dateFrom, f.dateTo, [...f.managerIds].sort()] as const,
};

export function isPeriod(value: string | null): value is DashboardPeriod {
  return value !== null && (DASHBOARD_PERIODS as readonly string[]).includes(value);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters read from the URL; anything malformed there is ignored rather than sent. */
export function filtersFromParams(params: URLSearchParams): DashboardFilters {
  const period = params.get('period');
  const from = params.get('from');
  const to = params.get('to');
  const dates = from && to && DAY.test(from) && DAY.test(to) && from <= to;
  return {
    period: isPeriod(period) ? period : 'all',
    dateFrom: dates ? from : null,
    dateTo: dates ? to : null,
    managerIds: params.getAll('manager').filter((id) => /^[0-9a-f-]{36}$/i.test(id)),
  };
}

export function paramsFromFilters(f: DashboardFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (f.period !== 'all') params.set('period', f.period);
  if (f.dateFrom && f.dateTo) {
    params.set('from', f.dateFrom);
    params.set('to', f.dateTo);
  }
  for (const id of f.managerIds) params.append('manager', id);
  return params;
}

export function useDashboard(f: DashboardFilters) {
  return useQuery({
    queryKey: dashboardKeys.view(f),
    // §7: the period is not sent for 'all', the dates only when both are set, manager_id once per manager.
    queryFn: ({ signal }) =>
      apiCall(dashboardResponseSchema, '/api/dashboard', {
        query: {
          period: f.period === 'all' ? undefined : f.period,
          date_from: f.dateFrom ?? undefined,
          date_to: f.dateTo ?? undefined,
          manager_id: f.managerIds.length > 0 ? f.managerIds : undefined,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}
