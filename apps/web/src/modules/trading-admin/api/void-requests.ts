import { tradeVoidRequestSchema, voidRequestsResponseSchema, type VoidRequestStatus } from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import { clientKeys } from '../../clients/keys';
import { tradingAdminKeys, voidRequestKeys } from '../keys';

export function useVoidRequests(
  params: { status?: VoidRequestStatus; page?: number; perPage?: number },
  options: { enabled?: boolean } = {},
) {
  const query = { status: params.status ?? 'pending', page: params.page ?? 1, per_page: params.perPage ?? 50 };
  return useQuery({
    queryKey: voidRequestKeys.list(query),
    queryFn: ({ signal }) => apiCall(voidRequestsResponseSchema, '/api/void-requests', { query, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}

/** After a confirmation, a rejection or a withdrawal: the requests, and the accounts and trades shown anywhere, are stale. */
function useVoidsChanged() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: voidRequestKeys.all }),
      queryClient.invalidateQueries({ queryKey: tradingAdminKeys.all }),
      queryClient.invalidateQueries({ queryKey: clientKeys.all }),
    ]);
}

/** POST /api/void-requests/:id/confirm (finance.approve, never its requester): the trade is voided, its stake returned. */
export function useConfirmVoid() {
  const changed = useVoidsChanged();
  return useMutation({
    mutationFn: (id: number) => apiCall(tradeVoidRequestSchema, `/api/void-requests/${id}/confirm`, { method: 'POST' }),
    onSettled: changed,
  });
}

/** POST /api/void-requests/:id/reject {reason}: nothing moves; the trade settles at its expiry. */
export function useRejectVoid() {
  const changed = useVoidsChanged();
  return useMutation({
    mutationFn: ({ id, reason }: { id: number; reason: string }) =>
      apiCall(tradeVoidRequestSchema, `/api/void-requests/${id}/reject`, { method: 'POST', body: { reason } }),
    onSettled: changed,
  });
}

/** POST /api/void-requests/:id/withdraw (its requester, while it waits): nothing moves; the trade settles as usual. */
export function useWithdrawVoid() {
  const changed = useVoidsChanged();
  return useMutation({
    mutationFn: (id: number) =>
      apiCall(tradeVoidRequestSchema, `/api/void-requests/${id}/withdraw`, { method: 'POST' }),
    onSettled: changed,
  });
}
