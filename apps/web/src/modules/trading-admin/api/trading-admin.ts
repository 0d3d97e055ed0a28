import {
  BALANCE_BUCKETS,
  accountDetailResponseSchema,
  accountsResponseSchema,
  activeTradesResponseSchema,
  awaitingConfirmationSchema,
  balanceChangeResponseSchema,
  ledgerResponseSchema,
  pricesResponseSchema,
  tradeVoidRequestSchema,
  tradingAccountSchema,
  type AccountDetailResponse,
  type AccountStatus,
  type BalanceChangeRequest,
  type TradingAccount,
  type VoidTradeRequest,
} from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiCall } from '../../../lib/api';
import { tradingAdminKeys, voidRequestKeys } from '../keys';
import { idempotencyHeader } from '../../../lib/idempotency';

export type BalanceBucket = (typeof BALANCE_BUCKETS)[number];

export interface AccountsListParams {
  page: number;
  perPage: number;
  search: string;
  status: AccountStatus | null;
  balance: BalanceBucket | null;
}

const accountPath = (accountId: number) => `/api/trading/admin/accounts/${accountId}`;

/** GET /api/trading/admin/accounts: one page of the accounts in the caller's scope (D4, D5) and the five cards. */
export function useTradingAccounts(params: AccountsListParams, refetchInterval: number | false) {
  return useQuery({
    queryKey: tradingAdminKeys.list(params),
    queryFn: ({ signal }) =>
      apiCall(accountsResponseSchema, '/api/trading/admin/accounts', {
        query: {
          page: params.page,
          per_page: params.perPage,
          search: params.search.trim() || undefined,
          status: params.status ?? undefined,
          balance: params.balance ?? undefined,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
}

/** GET …/:accountId: the account, its active trades and its 50 newest closed trades. */
export function useTradingAccount(accountId: number, { refetchInterval }: { refetchInterval: number | false }) {
  return useQuery({
    queryKey: tradingAdminKeys.detail(accountId),
    queryFn: ({ signal }) => apiCall(accountDetailResponseSchema, accountPath(accountId), { signal }),
    refetchInterval,
  });
}

/** GET …/:accountId/active-trades: the active trades alone (their own refresh button and the 30 s poll). */
export function useActiveTrades(
  accountId: number,
  { refetchInterval, enabled }: { refetchInterval: number | false; enabled: boolean },
) {
  return useQuery({
    queryKey: tradingAdminKeys.activeTrades(accountId),
    queryFn: ({ signal }) => apiCall(activeTradesResponseSchema, `${accountPath(accountId)}/active-trades`, { signal }),
    refetchInterval,
    enabled,
  });
}

/** GET …/:accountId/ledger: the account's ledger entries, newest first, paged by the server. */
export function useAccountLedger(accountId: number, page: number, perPage: number, enabled: boolean) {
  return useQuery({
    queryKey: tradingAdminKeys.ledger(accountId, page, perPage),
    queryFn: ({ signal }) =>
      apiCall(ledgerResponseSchema, `${accountPath(accountId)}/ledger`, {
        query: { page, per_page: perPage },
        signal,
      }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** GET /api/prices: the server's latest price per symbol (the prices trades open and settle at, D2). */
export function useLatestPrices({ refetchInterval, enabled }: { refetchInterval: number | false; enabled: boolean }) {
  return useQuery({
    queryKey: tradingAdminKeys.prices,
    queryFn: ({ signal }) => apiCall(pricesResponseSchema, '/api/prices', { signal }),
    select: (prices) => new Map(prices.map((p) => [p.symbol, p])),
    refetchInterval,
    staleTime: 0,
    enabled,
  });
}

/** Writes a changed account into the detail already shown, then asks the server again for everything of it. */
function useAccountChanged() {
  const queryClient = useQueryClient();
  return async (accountId: number, account?: TradingAccount) => {
    if (account) {
      queryClient.setQueryData<AccountDetailResponse>(tradingAdminKeys.detail(accountId), (old) =>
        old ? { ...old, account } : old,
      );
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: tradingAdminKeys.account(accountId) }),
      queryClient.invalidateQueries({ queryKey: tradingAdminKeys.lists }),
    ]);
  };
}

/** POST …/:accountId/block or /activate; the list is fetched again after either (§2.16). */
export function useSetAccountStatus() {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: ({ accountId, action }: { accountId: number; action: 'block' | 'activate' }) =>
      apiCall(tradingAccountSchema, `${accountPath(accountId)}/${action}`, { method: 'POST', body: {} }),
    onSuccess: (account, { accountId }) => changed(accountId, account),
  });
}

/**
 * POST …/:accountId/void-trade {trade_id, reason} (D1: the one thing staff may do to a trade). It asks (202 with the
 * void request): the trade stays active until a second staff member confirms (issue 20 finding 11); the account's
 * answer then lists it in pendingVoids.
 */
export function useVoidTrade(accountId: number) {
  const changed = useAccountChanged();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: VoidTradeRequest; idempotencyKey: string }) =>
      apiCall(tradeVoidRequestSchema, `${accountPath(accountId)}/void-trade`, {
        method: 'POST',
        body,
        headers: idempotencyHeader(idempotencyKey),
      }),
    onSuccess: () =>
      Promise.all([changed(accountId), queryClient.invalidateQueries({ queryKey: voidRequestKeys.all })]),
  });
}

/** PUT …/:accountId/settings {trading_enabled, max_trade_amount, payout_percentage}. */
export function useUpdateSettings(accountId: number) {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: (body: { trading_enabled: boolean; max_trade_amount: number; payout_percentage: number }) =>
      apiCall(tradingAccountSchema, `${accountPath(accountId)}/settings`, { method: 'PUT', body }),
    onSuccess: (account) => changed(accountId, account),
  });
}

/**
 * POST …/:accountId/balance {action, amount, reason}: one ledger entry with that reason (D3). The Idempotency-Key
 * makes a repeated submit of the same change (a double click, a retry after a lost answer) apply it once: the server
 * answers the repeat with the first answer.
 */
export function useChangeBalance(accountId: number) {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: BalanceChangeRequest; idempotencyKey: string }) =>
      apiCall(z.union([balanceChangeResponseSchema, awaitingConfirmationSchema]), `${accountPath(accountId)}/balance`, {
        method: 'POST',
        body,
        headers: idempotencyHeader(idempotencyKey),
      }),
    // D20: a 202 'awaiting_confirmation' moved nothing; the account shows it among its pending credits.
    onSuccess: (answer) => changed(accountId, 'account' in answer ? answer.account : undefined),
  });
}
