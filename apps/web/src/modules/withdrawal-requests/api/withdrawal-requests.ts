import {
  revealCardResponseSchema,
  staffWithdrawRequestSchema,
  withdrawRequestsResponseSchema,
  type StaffWithdrawRequest,
  type WithdrawStatus,
} from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiCall, type QueryValue } from '../../../lib/api';
import { withdrawalKeys } from '../keys';

/** What the page filters by (§2.9); dates are days in the business time zone, both ends included. */
export interface WithdrawalFilters {
  search: string;
  status: WithdrawStatus | null;
  processedBy: string | null;
  dateFrom: string | null;
  dateTo: string | null;
}

export const EMPTY_WITHDRAWAL_FILTERS: WithdrawalFilters = {
  search: '',
  status: null,
  processedBy: null,
  dateFrom: null,
  dateTo: null,
};

export function withdrawalsQuery(filters: WithdrawalFilters, page: number, perPage: number) {
  return {
    page,
    per_page: perPage,
    search: filters.search.trim().slice(0, 120) || undefined,
    status: filters.status,
    processed_by: filters.processedBy,
    date_from: filters.dateFrom,
    date_to: filters.dateTo,
  } satisfies Record<string, QueryValue>;
}

/** GET /api/withdraw-requests (D4: filtered and paged by the server, with the summary cards over the filter). */
export function useWithdrawalRequests(filters: WithdrawalFilters, page: number, perPage: number) {
  const query = withdrawalsQuery(filters, page, perPage);
  return useQuery({
    queryKey: withdrawalKeys.list(query),
    queryFn: ({ signal }) => apiCall(withdrawRequestsResponseSchema, '/api/withdraw-requests', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** §2.9: duplicate requests with the same id are shown once (the first seen wins). */
export function uniqueById(items: readonly StaffWithdrawRequest[]): StaffWithdrawRequest[] {
  const seen = new Set<number>();
  return items.filter((item) => (seen.has(item.id) ? false : (seen.add(item.id), true)));
}

/** PUT approve / reject; the list (and its cards) is fetched again afterwards (§2.9). */
export function useProcessWithdrawal() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action, reason }: { id: number; action: 'approve' | 'reject'; reason?: string }) =>
      apiCall(
        staffWithdrawRequestSchema.extend({ balance: z.number().optional() }),
        `/api/withdraw-requests/${id}/${action}`,
        {
          method: 'PUT',
          ...(action === 'reject' && reason ? { body: { reason } } : {}),
        },
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: withdrawalKeys.all }),
  });
}

/** POST reveal-card (D7): the full number, for this one view; the server writes the reveal to the audit log. */
export function revealCard(id: number) {
  return apiCall(revealCardResponseSchema, `/api/withdraw-requests/${id}/reveal-card`, { method: 'POST' });
}
