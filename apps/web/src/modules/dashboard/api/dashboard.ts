import { dashboardResponseSchema } from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

export const DASHBOARD_PERIODS = ['all', 'today', 'week', 'month', 'year'] as const;
export type DashboardPeriod = (typeof DASHBOARD_PERIODS)[number];

export const dashboardKeys = {
  all: ['dashboard'] as const,
  overview: (period: DashboardPeriod) => ['dashboard', 'overview', period] as const,
};

export function useDashboard(period: DashboardPeriod) {
  return useQuery({
    queryKey: dashboardKeys.overview(period),
    // §7: the period is not sent for 'all'.
    queryFn: ({ signal }) =>
      apiCall(dashboardResponseSchema, '/api/dashboard', {
        query: { period: period === 'all' ? undefined : period },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}
