import {
  balanceResponseSchema,
  candlesResponseSchema,
  clientMessagesResponseSchema,
  clientSettingsResponseSchema,
  createWithdrawResponseSchema,
  DEFAULT_MAX_TRADE_DOLLARS,
  DEFAULT_PAYOUT_PERCENTAGE,
  depositIntentSchema,
  depositMethodsResponseSchema,
  MIN_TRADE_DOLLARS,
  myWithdrawRequestsResponseSchema,
  openTradesResponseSchema,
  placeTradeResponseSchema,
  pricesResponseSchema,
  TRADE_DURATIONS,
  tradeAuditSchema,
  tradesResponseSchema,
  type CandleInterval,
  type ClientSettingsResponse,
  type PlaceTradeRequest,
  type WithdrawRequestInput,
} from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { apiCall, apiRequest, withQuery } from '../../lib/api';
import { fetchEarly } from '../../lib/early-fetch';
import { currentLanguage } from '../../i18n';
import { queryClient } from '../../lib/query-client';
import { useLiveConnected } from '../../lib/ws';
import { tradingKeys } from './keys';
import { idempotencyHeader } from '../../lib/idempotency';

/** §3 defaults, used while the account's settings load or when they fail (§8). */
export const DEFAULT_SETTINGS: ClientSettingsResponse = {
  payout_percentage: DEFAULT_PAYOUT_PERCENTAGE,
  trading_enabled: true,
  max_trade_amount: DEFAULT_MAX_TRADE_DOLLARS,
  min_trade_amount: MIN_TRADE_DOLLARS,
  durations: [...TRADE_DURATIONS],
};

function usePollInterval(ms: number): number | false {
  return useLiveConnected() ? false : ms;
}

export function useBalance() {
  const poll = usePollInterval(3000);
  return useQuery({
    queryKey: tradingKeys.balance,
    queryFn: () => apiCall(balanceResponseSchema, '/api/trading/balance'),
    refetchInterval: poll,
    retry: 1,
  });
}

export function useClientSettings() {
  return useQuery({
    queryKey: tradingKeys.settings,
    queryFn: () => apiCall(clientSettingsResponseSchema, '/api/trading/client-settings'),
    retry: 1,
  });
}

/** Demo mode (D16): the offered durations and a new account's payout, from the public call. */
export function useDemoSettings() {
  return useQuery({
    queryKey: tradingKeys.demoSettings,
    queryFn: () => apiCall(clientSettingsResponseSchema, '/api/trading/demo-settings'),
    staleTime: 5 * 60_000,
    retry: 1,
  });
}

export function useOpenTrades() {
  const poll = usePollInterval(3000);
  return useQuery({
    queryKey: tradingKeys.open,
    queryFn: () => apiCall(openTradesResponseSchema, '/api/trading/open-trades'),
    refetchInterval: poll,
  });
}

export const HISTORY_PAGE_SIZE = 10;

export function useClosedTrades(page: number) {
  const poll = usePollInterval(3000);
  return useQuery({
    queryKey: tradingKeys.closed(page),
    queryFn: () =>
      apiCall(tradesResponseSchema, '/api/trading/trades', {
        query: { status: 'closed', page, per_page: HISTORY_PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: poll,
  });
}

export function useMyWithdrawals() {
  return useQuery({
    queryKey: tradingKeys.withdrawals,
    queryFn: () => apiCall(myWithdrawRequestsResponseSchema, '/api/my-withdraw-requests', { query: { per_page: 100 } }),
  });
}

export function placeTrade(body: PlaceTradeRequest, idempotencyKey: string) {
  return apiCall(placeTradeResponseSchema, '/api/trading/place-trade', {
    method: 'POST',
    body,
    headers: idempotencyHeader(idempotencyKey),
  });
}

export function useCreateWithdrawal() {
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: WithdrawRequestInput; idempotencyKey: string }) =>
      apiCall(createWithdrawResponseSchema, '/api/withdraw-requests', {
        method: 'POST',
        body,
        headers: idempotencyHeader(idempotencyKey),
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tradingKeys.all }),
  });
}

export function usePrices() {
  return useQuery({
    queryKey: tradingKeys.prices,
    queryFn: () => apiCall(pricesResponseSchema, '/api/prices'),
    staleTime: 60_000,
  });
}

/** An asset's candles; the early fetch's answer when there is a fresh one (lib/early-fetch.ts), else a new call. */
export function fetchCandles(symbol: string, interval: CandleInterval) {
  return apiCall(candlesResponseSchema, candlesPath(symbol, interval));
}

/** The path of an asset's candles, as apiRequest builds it (the early fetch must ask for exactly this). */
export function candlesPath(symbol: string, interval: CandleInterval): string {
  return withQuery(`/api/prices/${encodeURIComponent(symbol)}/candles`, { interval });
}

/**
 * Starts the first chart's candles early (while the page is still booting); apiRequest takes the answer once, while
 * fresh (lib/early-fetch.ts). A fresh load of a trading path has already started it in main.tsx; this covers arriving
 * from another screen of the application.
 */
export function prefetchCandles(symbol: string, interval: CandleInterval): void {
  fetchEarly(candlesPath(symbol, interval), currentLanguage());
}

export function useDepositMethods(enabled: boolean) {
  return useQuery({
    queryKey: tradingKeys.depositMethods,
    queryFn: () => apiCall(depositMethodsResponseSchema, '/api/deposit-methods'),
    enabled,
    retry: 1,
  });
}

export function useMyMessages(enabled: boolean) {
  const poll = usePollInterval(30_000);
  return useQuery({
    queryKey: tradingKeys.messages,
    queryFn: () => apiCall(clientMessagesResponseSchema, '/api/my-messages'),
    enabled,
    refetchInterval: enabled ? poll : false,
  });
}

export function useMarkMessageRead() {
  return useMutation({
    mutationFn: (id: number) => apiRequest(`/api/my-messages/${id}/read`, { method: 'PUT' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tradingKeys.messages }),
  });
}

/** The URL of the client's own trade's contract audit (issue 14). */
export const clientAuditUrl = (tradeId: number) => `/api/trading/trades/${tradeId}/audit`;

/** A trade's contract audit: the trade, the settlement rule, the stored ticks and (long trades) the candles. */
export function useTradeAuditQuery(url: string | null) {
  return useQuery({
    queryKey: tradingKeys.audit(url ?? ''),
    queryFn: () => apiCall(tradeAuditSchema, url!),
    enabled: url !== null,
    retry: 1,
  });
}

/** POST /api/deposit-intents (D21): the confirmed top-up reaches the client's manager; no money moves. */
export function useCreateDepositIntent() {
  return useMutation({
    mutationFn: (body: { amount: number; method_id: number }) =>
      apiCall(depositIntentSchema, '/api/deposit-intents', { method: 'POST', body }),
  });
}
