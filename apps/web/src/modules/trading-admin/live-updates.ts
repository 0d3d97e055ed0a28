import { useEffect } from 'react';
import { connectLive, useLiveConnected, watchAccount } from '../../lib/ws';

/**
 * How the trading administration screens stay current. decisions.md D11: the WebSocket at /api/ws invalidates the
 * trading queries on trade and balance events. The account detail screen watches its account over the socket (the
 * server checks the D5 scope), so while the socket is up its 30 s polling of back-office.md §9 is off and comes back
 * as the fallback when the socket drops. The accounts list covers many accounts and keeps polling.
 */

/** §9: the trading account detail (account and active trades) every 30 s. */
export const ACCOUNT_POLL_MS = 30_000;

/** Current prices beside the active trades every 5 s. */
export const PRICE_POLL_MS = 5_000;

/**
 * The refetch interval of one account and its active trades (with the account id: that account is watched live and
 * polling is off while the socket is up) or of the accounts list (without it: always polling).
 */
export function useAccountPollInterval(accountId?: number): number | false {
  connectLive();
  const connected = useLiveConnected();
  useEffect(() => (accountId === undefined ? undefined : watchAccount(accountId)), [accountId]);
  return connected && accountId !== undefined ? false : ACCOUNT_POLL_MS;
}

/** The refetch interval of the latest prices; false turns polling off. */
export function usePricePollInterval(): number | false {
  return PRICE_POLL_MS;
}
