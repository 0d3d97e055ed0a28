import { manualCreditSchema, manualCreditsResponseSchema, type ManualCreditStatus } from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import { clientKeys, depositKeys } from '../../clients/keys';
import { tradingAdminKeys } from '../../trading-admin/keys';
import { manualCreditKeys } from '../keys';

export function useManualCredits(
  params: { status?: ManualCreditStatus; page?: number; perPage?: number; clientId?: number },
  options: { enabled?: boolean } = {},
) {
  const query = {
    status: params.status ?? 'pending',
    page: params.page ?? 1,
    per_page: params.perPage ?? 50,
    client_id: params.clientId,
  };
  return useQuery({
    queryKey: manualCreditKeys.list(query),
    queryFn: ({ signal }) => apiCall(manualCreditsResponseSchema, '/api/manual-credits', { query, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}

/** After a confirmation or a cancellation: the credits, balances, accounts and deposits shown anywhere are stale. */
function useCreditsChanged() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: manualCreditKeys.all }),
      queryClient.invalidateQueries({ queryKey: tradingAdminKeys.all }),
      queryClient.invalidateQueries({ queryKey: clientKeys.all }),
      queryClient.invalidateQueries({ queryKey: depositKeys.all }),
    ]);
}

/**
 * POST /api/manual-credits/:id/confirm {amount} (finance.approve, never its author): the money is posted through the
 * ledger. The amount is the one the dialog showed (issue 20 finding 2); if the credit changed since, 409.
 */
export function useConfirmCredit() {
  const changed = useCreditsChanged();
  return useMutation({
    mutationFn: ({ id, amount }: { id: number; amount: number }) =>
      apiCall(manualCreditSchema, `/api/manual-credits/${id}/confirm`, { method: 'POST', body: { amount } }),
    onSettled: changed,
  });
}

/** POST /api/manual-credits/:id/cancel {reason}: nothing moves; a deposit stays recorded and uncredited. */
export function useCancelCredit() {
  const changed = useCreditsChanged();
  return useMutation({
    mutationFn: ({ id, reason }: { id: number; reason: string }) =>
      apiCall(manualCreditSchema, `/api/manual-credits/${id}/cancel`, { method: 'POST', body: { reason } }),
    onSettled: changed,
  });
}
