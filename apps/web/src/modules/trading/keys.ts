import type { CandleInterval } from '@brokerage/shared';

/**
 * The client trading screen's calls (client-platform.md §7). Account queries live under ['trading', …] and
 * ['my-messages'], which the live socket marks stale on trade, balance and message events (lib/ws.ts); prices under
 * ['prices', …], which no account event touches. Polling (§9: 3 s, messages 30 s) runs only while the socket is down.
 */
export const tradingKeys = {
  /** Every query of the client's account (balance, trades, withdrawals, statement, audits). */
  all: ['trading'] as const,
  balance: ['trading', 'balance'] as const,
  settings: ['trading', 'client-settings'] as const,
  open: ['trading', 'open-trades'] as const,
  closed: (page: number) => ['trading', 'trades', 'closed', page] as const,
  withdrawals: ['trading', 'my-withdraw-requests'] as const,
  messages: ['my-messages'] as const,
  demoSettings: ['prices', 'demo-settings'] as const,
  prices: ['prices', 'latest'] as const,
  candles: (symbol: string, interval: CandleInterval) => ['prices', 'candles', symbol, interval] as const,
  depositMethods: ['deposit-methods'] as const,
  /** A trade's contract audit by its URL (the client's or the staff's); under 'trading', so a settlement refreshes it. */
  audit: (url: string) => ['trading', 'audit', url] as const,
};
