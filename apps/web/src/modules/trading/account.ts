import type { ClientSettingsResponse, Trade, TradeDirection } from '@brokerage/shared';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api';
import { onLiveMessage } from '../../lib/ws';
import {
  DEFAULT_SETTINGS,
  HISTORY_PAGE_SIZE,
  placeTrade,
  useBalance,
  useClientSettings,
  useClosedTrades,
  useDemoSettings,
  useMyWithdrawals,
  useOpenTrades,
} from './api';
import { tradingKeys } from './keys';
import { browserDemoStore, DemoAccount } from './demo-account';
import { problemKey, usd } from './rules';
import { newIdempotencyKey } from '../../lib/idempotency';

/** An open trade as the screen shows it (the server's open-trade fields). */
export interface OpenTrade {
  id: number;
  asset: string;
  direction: TradeDirection;
  amount: number;
  expected_payout: number;
  payout_percentage: number;
  strike_price: number;
  created_at: string;
  expires_at: string;
}

export interface PlaceInput {
  asset: string;
  direction: TradeDirection;
  amount: number;
  duration: number;
}

/**
 * What the trading screen needs from an account, whether it is the client's real one (every figure from the server)
 * or the page-local demo of D16. The screen renders the same for both.
 */
export interface AccountView {
  mode: 'live' | 'demo';
  balance: number | null;
  balanceLoading: boolean;
  balanceError: boolean;
  totalProfit: number | null;
  /** Pending withdrawal requests: held from the balance until staff process them (D3). */
  held: number;
  settings: ClientSettingsResponse;
  settingsReady: boolean;
  openTrades: OpenTrade[];
  /** The open trades have not loaded yet (issue 15 defect 6: no false 'none'). */
  openLoading: boolean;
  closed: { items: Trade[]; total: number; loading: boolean; error: boolean };
  page: number;
  setPage: (page: number) => void;
  place: (input: PlaceInput) => Promise<void>;
  refresh: () => void;
  /** Demo only (issue 27 item 15): back to $1000 and no trades. */
  resetDemo?: () => void;
}

/** The toast of a settled trade (§4 changed): 'Сделка EURUSD: Прибыль +$21.25', 'Убыток -$25.00', 'Возврат $25.00'. */
export function settledToast(trade: Trade, t: TFunction<'platform'>): void {
  const won = trade.status === 'won';
  const lost = trade.status === 'lost';
  const asset = trade.asset;
  const result = won
    ? t('toast.won', { asset, amount: usd(trade.profit_loss ?? 0) })
    : lost
      ? t('toast.lost', { asset, amount: usd(trade.amount) })
      : t('toast.returned', { asset, amount: usd(trade.amount) });
  notifications.show({
    id: `settled-${trade.id}`,
    color: won ? 'green' : lost ? 'red' : 'gray',
    message: result,
    autoClose: 5000,
  });
}

function placedToast(input: PlaceInput, t: TFunction<'platform'>): void {
  notifications.show({
    color: 'green',
    message: t('toast.opened', {
      direction: t(input.direction === 'call' ? 'toast.buy' : 'toast.sell'),
      asset: input.asset,
      amount: usd(input.amount),
    }),
    autoClose: 3000,
  });
}

/** A refused trade (§8 Reading A): the server's text in red for 5 s; a network failure 3 s. */
function refusedToast(error: unknown, t: TFunction<'platform'>): void {
  const server = error instanceof ApiError;
  let message = server && error.detail ? error.detail : t('toast.openFailed');
  if (!server && error instanceof Error && error.message) {
    message = t(problemKey(error.message) as 'problems.noPrice', { defaultValue: t('toast.openFailed') });
  }
  notifications.show({ color: 'red', message, autoClose: server ? 5000 : 3000 });
}

/** The trades already toasted as settled (the newest few hundred). */
const toastedSettled = new Set<number>();
function firstTimeSettled(id: number): boolean {
  if (toastedSettled.has(id)) return false;
  toastedSettled.add(id);
  if (toastedSettled.size > 500) toastedSettled.delete(toastedSettled.values().next().value!);
  return true;
}

export function useLiveAccount(): AccountView {
  const { t } = useTranslation('platform');
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const balance = useBalance();
  const settings = useClientSettings();
  const open = useOpenTrades();
  const closed = useClosedTrades(page);
  const withdrawals = useMyWithdrawals();

  // The server's result arrives over the socket (D11): the toast at once, the queries refetch (lib/ws.ts). What a
  // reconnect replays (issue 21 §7) only refreshes the lists, and a result is toasted once however often it comes.
  useEffect(
    () =>
      onLiveMessage((m) => {
        if (m.type !== 'trade.settled' || ('replay' in m && m.replay)) return;
        const trade = (m.payload as { trade?: Trade }).trade;
        if (trade && firstTimeSettled(trade.id)) settledToast(trade, t);
      }),
    [t],
  );

  // §2.4: the history goes back to page 1 whenever the list changes.
  const total = closed.data?.total;
  const [seenTotal, setSeenTotal] = useState(total);
  if (total !== seenTotal) {
    setSeenTotal(total);
    if (seenTotal !== undefined) setPage(1);
  }

  const held = (withdrawals.data?.items ?? []).filter((w) => w.status === 'pending').reduce((s, w) => s + w.amount, 0);

  return {
    mode: 'live',
    balance: balance.data?.balance ?? null,
    balanceLoading: balance.isPending,
    balanceError: balance.isError && !balance.data,
    totalProfit: balance.data?.total_profit ?? null,
    held: Math.round(held * 100) / 100,
    settings: settings.data ?? DEFAULT_SETTINGS,
    settingsReady: !settings.isPending,
    openTrades: open.data ?? [],
    openLoading: open.isPending,
    closed: {
      items: closed.data?.items ?? [],
      total: closed.data?.total ?? 0,
      loading: closed.isPending,
      error: closed.isError,
    },
    page,
    setPage,
    place: async (input) => {
      try {
        // One key per click (D3): a retry of this request could not open a second trade.
        await placeTrade({ ...input }, newIdempotencyKey());
        placedToast(input, t);
      } catch (error) {
        refusedToast(error, t);
        throw error;
      } finally {
        void queryClient.invalidateQueries({ queryKey: tradingKeys.all });
      }
    },
    refresh: () => void queryClient.invalidateQueries({ queryKey: tradingKeys.all }),
  };
}

export function useDemoAccount(): AccountView {
  const { t } = useTranslation('platform');
  // Kept in this browser between visits (issue 27 item 15).
  const demo = useMemo(() => new DemoAccount(browserDemoStore), []);
  const state = useSyncExternalStore(demo.subscribe, demo.getState, demo.getState);
  const settings = useDemoSettings();
  const [page, setPage] = useState(1);

  useEffect(() => demo.onEvent((e) => settledToast(e.trade, t)), [demo, t]);

  const closedAll = state.trades.filter((tr) => tr.status !== 'active');
  const total = closedAll.length;
  const [seenTotal, setSeenTotal] = useState(total);
  if (total !== seenTotal) {
    setSeenTotal(total);
    setPage(1);
  }

  const settingsValue = settings.data ?? DEFAULT_SETTINGS;
  return {
    mode: 'demo',
    balance: state.balanceCents / 100,
    balanceLoading: false,
    balanceError: false,
    totalProfit: closedAll.reduce((s, tr) => s + (tr.profit_loss ?? 0), 0),
    held: 0,
    settings: settingsValue,
    settingsReady: !settings.isPending,
    openTrades: state.trades.filter((tr) => tr.status === 'active'),
    openLoading: false,
    closed: {
      items: closedAll.slice((page - 1) * HISTORY_PAGE_SIZE, page * HISTORY_PAGE_SIZE),
      total,
      loading: false,
      error: false,
    },
    page,
    setPage,
    place: async (input) => {
      try {
        demo.place({ ...input, payout: settingsValue.payout_percentage });
        placedToast(input, t);
      } catch (error) {
        refusedToast(error, t);
        throw error;
      }
    },
    refresh: () => demo.settleDue(),
    resetDemo: () => demo.reset(),
  };
}
