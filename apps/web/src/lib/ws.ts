import { wsServerMessageSchema, type WsServerMessage } from '@brokerage/shared';
import { useSyncExternalStore } from 'react';
import { STALE_KEYS, staleKeysOfStream } from './live-stale-keys';
import { queryClient } from './query-client';

/**
 * The live-update socket (decisions.md D11): one per tab, same origin, /api/ws, authenticated by the session cookie.
 * Sockets notify, queries fetch: a per-user event invalidates the queries it makes stale, nothing is written into the
 * cache. Issue 21 §7: each user event carries its stream and sequence; the socket remembers the last sequence of each
 * stream, and after a reconnect sends them back (`resume`, and `seq` with each watched account) so the server replays
 * what was missed, or says `refetch`. Until the server answers `resumed` the socket counts as down: the screens show
 * that they are reconnecting and keep polling.
 */

type Listener = (message: WsServerMessage) => void;

/** connecting: never up yet; live: up and caught up; reconnecting: was up, lost, not caught up again yet. */
export type LiveStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';

const accountStream = (accountId: number) => `account:${accountId}`;

let socket: WebSocket | null = null;
let status: LiveStatus = 'idle';
let attempt = 0;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
const assets = new Map<string, number>();
const watchedAccounts = new Map<number, number>();
/** The last sequence seen of each stream (kept across reconnects, dropped at sign-out). */
const cursors = new Map<string, number>();
const listeners = new Set<Listener>();
const stateListeners = new Set<() => void>();

function setStatus(value: LiveStatus): void {
  if (status === value) return;
  status = value;
  for (const l of stateListeners) l();
}

function send(message: unknown): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function note(stream: string, seq: number): void {
  cursors.set(stream, Math.max(cursors.get(stream) ?? 0, seq));
}

/** The streams the socket resumes itself: all but the watched accounts (each resumed by its watch_account). */
function ownCursors(): Record<string, number> {
  const watched = new Set([...watchedAccounts.keys()].map(accountStream));
  return Object.fromEntries([...cursors].filter(([stream]) => !watched.has(stream)));
}

function watchMessage(accountId: number): Record<string, unknown> {
  const seq = cursors.get(accountStream(accountId));
  return { type: 'watch_account', account_id: accountId, ...(seq === undefined ? {} : { seq }) };
}

function handle(message: WsServerMessage): void {
  if (message.type === 'resumed') {
    for (const [stream, seq] of Object.entries(message.streams)) cursors.set(stream, seq);
    setStatus('live');
  } else if (message.type === 'refetch') {
    for (const key of staleKeysOfStream(message.stream)) void queryClient.invalidateQueries({ queryKey: key });
    cursors.set(message.stream, message.seq);
  } else if (message.type === 'watching') {
    cursors.set(message.stream, message.seq);
  } else if ('payload' in message && status === 'live') {
    // Not before `resumed`: a frame sent ahead of the replay must not move the cursor past what is still to come.
    if (message.stream !== undefined && message.seq !== undefined) note(message.stream, message.seq);
  }
  for (const key of STALE_KEYS[message.type] ?? []) void queryClient.invalidateQueries({ queryKey: key });
  for (const l of listeners) l(message);
}

/** Opens the socket (once); safe to call again. */
export function connectLive(): void {
  if (socket || typeof WebSocket === 'undefined') return;
  const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/api/ws`;
  const ws = new WebSocket(url);
  socket = ws;
  setStatus(status === 'live' || status === 'reconnecting' ? 'reconnecting' : 'connecting');
  ws.onopen = () => {
    attempt = 0;
    if (assets.size > 0) send({ type: 'subscribe', assets: [...assets.keys()] });
    for (const accountId of watchedAccounts.keys()) send(watchMessage(accountId));
    send({ type: 'resume', streams: ownCursors() });
  };
  ws.onmessage = (e) => {
    let data: unknown;
    try {
      data = JSON.parse(String(e.data));
    } catch {
      return;
    }
    const parsed = wsServerMessageSchema.safeParse(data);
    if (parsed.success) handle(parsed.data);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    setStatus(status === 'connecting' || status === 'idle' ? 'connecting' : 'reconnecting');
    // Backoff 1 s, 2 s, 4 s, then 5 s, with jitter so a restarted server is not hit by every tab at once.
    const delay = Math.min(5000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
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
  cursors.clear();
  attempt = 0;
  setStatus('idle');
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
  if (n === 0) send(watchMessage(accountId));
  return () => {
    const left = (watchedAccounts.get(accountId) ?? 1) - 1;
    if (left > 0) {
      watchedAccounts.set(accountId, left);
      return;
    }
    watchedAccounts.delete(accountId);
    // Watched again later, the screen fetches afresh: nothing to resume.
    cursors.delete(accountStream(accountId));
    send({ type: 'unwatch_account', account_id: accountId });
  };
}

/** Every message of the socket (ticks and the user's events); returns the function that stops listening. */
export function onLiveMessage(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

function subscribeStatus(onChange: () => void): () => void {
  stateListeners.add(onChange);
  return () => void stateListeners.delete(onChange);
}

/** Where the socket stands (see LiveStatus). */
export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    subscribeStatus,
    () => status,
    () => 'idle',
  );
}

/** Whether the socket is up and caught up: screens poll only while it is not. */
export function useLiveConnected(): boolean {
  return useLiveStatus() === 'live';
}

/** For tests: the status and the sequences the socket would resume from. */
export function liveState(): { status: LiveStatus; cursors: Record<string, number> } {
  return { status, cursors: Object.fromEntries(cursors) };
}
