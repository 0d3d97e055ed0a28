import { ASSET_SYMBOLS, type LatestPrice, type WsTick } from '@brokerage/shared';
import { useEffect, useSyncExternalStore } from 'react';
import { connectLive, onLiveMessage, subscribeAssets } from '../../lib/ws';

/**
 * The server's prices on the client screen (D2): the latest price of each asset from GET /api/prices, then every tick
 * of the live socket. Screens re-render at most once per animation frame however many ticks arrive (the ticks are
 * kept as they come; only the notification is coalesced). Recent ticks are kept per asset so demo mode can settle a
 * trade at the last price at or before its expiry, as the server does.
 */

export interface Quote {
  price: number;
  /** Milliseconds since the epoch (the server's tick time). */
  at: number;
}

const latest = new Map<string, Quote>();
/** The first price this page saw per asset: the selector's change column is measured from it. */
const first = new Map<string, number>();
const history = new Map<string, Quote[]>();
const HISTORY_MS = 10 * 60_000;
const listeners = new Set<() => void>();
const tickListeners = new Set<(tick: Quote & { symbol: string }) => void>();
let version = 0;
let frame: number | null = null;

function notify(): void {
  if (frame !== null) return;
  const schedule =
    typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (cb: () => void) => setTimeout(cb, 16);
  frame = schedule(() => {
    frame = null;
    version += 1;
    for (const l of listeners) l();
  }) as unknown as number;
}

function record(symbol: string, quote: Quote): void {
  const prev = latest.get(symbol);
  if (prev && prev.at > quote.at) return;
  latest.set(symbol, quote);
  if (!first.has(symbol)) first.set(symbol, quote.price);
  const list = history.get(symbol) ?? [];
  list.push(quote);
  while (list.length > 0 && list[0]!.at < quote.at - HISTORY_MS) list.shift();
  history.set(symbol, list);
}

/** Seeds the store from GET /api/prices (older than what the socket brought is ignored). */
export function seedPrices(prices: readonly LatestPrice[]): void {
  for (const p of prices) {
    if (p.price !== null && p.at) record(p.symbol, { price: p.price, at: Date.parse(p.at) });
  }
  notify();
}

function onTick(tick: WsTick): void {
  const quote = { price: tick.price, at: Date.parse(tick.at) };
  if (!(quote.price > 0) || Number.isNaN(quote.at)) return;
  record(tick.symbol, quote);
  for (const l of tickListeners) l({ symbol: tick.symbol, ...quote });
  notify();
}

let started = false;
/** Opens the socket and watches every catalogue asset (the selector shows them all). Idempotent. */
export function startPriceFeed(): void {
  if (started) return;
  started = true;
  connectLive();
  onLiveMessage((m) => {
    if (m.type === 'tick') onTick(m);
  });
  subscribeAssets(ASSET_SYMBOLS);
}

export function latestQuote(symbol: string): Quote | undefined {
  return latest.get(symbol);
}

export function firstPrice(symbol: string): number | undefined {
  return first.get(symbol);
}

/** The last price at or before `atMs` (settlement's close price, D1); undefined when none is known. */
export function priceAtOrBefore(symbol: string, atMs: number): Quote | undefined {
  const list = history.get(symbol) ?? [];
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.at <= atMs) return list[i];
  return undefined;
}

/** Every tick as it arrives (the chart coalesces its own drawing). Returns the unsubscribe. */
export function onPriceTick(listener: (tick: Quote & { symbol: string }) => void): () => void {
  tickListeners.add(listener);
  return () => void tickListeners.delete(listener);
}

/** Re-renders the caller at most once per animation frame while prices move; returns a changing version number. */
export function usePriceVersion(): number {
  useEffect(() => startPriceFeed(), []);
  return useSyncExternalStore(
    (cb) => {
      listeners.add(cb);
      return () => void listeners.delete(cb);
    },
    () => version,
    () => 0,
  );
}
