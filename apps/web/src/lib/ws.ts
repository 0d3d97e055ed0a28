import { wsServerMessageSchema, type WsServerMessage } from '@brokerage/shared';
import { useSyncExternalStore } from 'react';
import { queryClient } from './query-client';

/**
 * The live-update socket (decisions.md D11): one per tab, same origin, /api/ws, authenticated by the session cookie.
 * It reconnects with backoff; while it is down, screens keep their polling (see useLiveConnected). Sockets notify,
 * queries fetch: a per-user event invalidates the queries it makes stale, nothing is written into the cache.
 */

type Listener = (message: WsServerMessage) => void;

/** The query keys each per-user event makes stale (prefixes; unknown ones are simply not cached yet). */
const STALE_KEYS: Record<string, readonly (readonly unknown[])[]> = {
  'trade.opened': [['trading'], ['trading-admin']],
  'trade.settled': [['trading'], ['trading-admin']],
  'balance.changed': [['trading'], ['trading-admin'], ['withdrawals']],
  'message.new': [['client-messages'], ['my-messages']],
  'notification.new': [['notifications']],
};

let socket: WebSocket | null = null;
let connected = false;
let attempt = 0;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
const assets = new Map<string, number>();
const watchedAccounts = new Map<number, number>();
const listeners = new Set<Listener>();
const stateListeners = new Set<() => void>();

function setConnected(value: boolean): void {
  if (connected === value) return;
  connected = value;
  for (const l of stateListeners) l();
}

function send(message: unknown): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** Opens the socket (once); safe to call again. */
export function connectLive(): void {
  if (socket || typeof WebSocket === 'undefined') return;
  const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/api/ws`;
  const ws = new WebSocket(url);
  socket = ws;
  ws.onopen = () => {
    attempt = 0;
    setConnected(true);
    if (assets.size > 0) send({ type: 'subscribe', assets: [...assets.keys()] });
    for (const accountId of watchedAccounts.keys()) send({ type: 'watch_account', account_id: accountId });
  };
  ws.onmessage = (e) => {
    let data: unknown;
    try {
      data = JSON.parse(String(e.data));
    } catch {
      return;
    }
    const parsed = wsServerMessageSchema.safeParse(data);
    if (!parsed.success) return;
    const message = parsed.data;
    for (const key of STALE_KEYS[message.type] ?? []) void queryClient.invalidateQueries({ queryKey: key });
    for (const l of listeners) l(message);
  };
  ws.onclose = () => {
    socket = null;
    setConnected(false);
    // Backoff 1 s, 2 s, 4 s … up to 30 s, with jitter so a restarted server is not hit by every tab at once.
    const delay = Math.min(30_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connectLive();
    }, delay);
  };
}

/** Closes the socket and stops reconnecting (sign-out: the next sign-in connects again with the new cookie). */
export function disconnectLive(): void {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  const ws = socket;
  socket = null;
  if (ws) {
    ws.onclose = null;
    ws.close();
  }
  setConnected(false);
}

/** Watches the ticks of these assets; returns the function that stops watching them. */
export function subscribeAssets(symbols: readonly string[]): () => void {
  const added = symbols.filter((s) => (assets.get(s) ?? 0) === 0);
  for (const s of symbols) assets.set(s, (assets.get(s) ?? 0) + 1);
  if (added.length > 0) send({ type: 'subscribe', assets: added });
  return () => {
    const removed: string[] = [];
    for (const s of symbols) {
      const n = (assets.get(s) ?? 0) - 1;
      if (n <= 0) {
        assets.delete(s);
        removed.push(s);
      } else assets.set(s, n);
    }
    if (removed.length > 0) send({ type: 'unsubscribe', assets: removed });
  };
}

/**
 * Staff: receive the trade and balance events of one client's trading account (the server checks the D5 scope);
 * returns the function that stops watching it.
 */
export function watchAccount(accountId: number): () => void {
  const n = watchedAccounts.get(accountId) ?? 0;
  watchedAccounts.set(accountId, n + 1);
  if (n === 0) send({ type: 'watch_account', account_id: accountId });
  return () => {
    const left = (watchedAccounts.get(accountId) ?? 1) - 1;
    if (left > 0) {
      watchedAccounts.set(accountId, left);
      return;
    }
    watchedAccounts.delete(accountId);
    send({ type: 'unwatch_account', account_id: accountId });
  };
}

/** Every message of the socket (ticks and the user's events); returns the function that stops listening. */
export function onLiveMessage(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Whether the socket is up: screens poll only while it is not. */
export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      stateListeners.add(onChange);
      return () => void stateListeners.delete(onChange);
    },
    () => connected,
    () => false,
  );
}
