import {
  DEFAULT_MAX_TRADE_DOLLARS,
  centsToDollars,
  dollarsToCents,
  potentialProfitCents,
  quoteHistoryResponseSchema,
  settleAtExpiry,
  tradeCheck,
  tradeSchema,
  type Trade,
  type TradeDirection,
} from '@brokerage/shared';
import { z } from 'zod';
import { STORAGE_KEYS, localStore } from '../../lib/storage-keys';
import { latestQuote, onPriceTick, priceAtOrBefore } from './price-feed';
import { TRADE_CHECK_PROBLEMS } from './rules';

/**
 * Demo mode (client-platform.md §2.10, D16): a balance of $1000 and trades that live only in this browser. A trade
 * opens at the server's latest price and is settled, once a server tick past its expiry has arrived, at the last server
 * price at or before the expiry, by the shared settlement rule — the very function the server uses. Nothing is sent
 * to or saved on the server. Issue 27 item 15: the account is kept in localStorage, so a reload keeps the balance and
 * the open trades (reset() starts over at $1000); a trade that expired while the page was closed is settled by the
 * server's stored ticks around its expiry (the public quote history), or refunded when there are none.
 */

export const DEMO_BALANCE = 1000;

export interface DemoState {
  balanceCents: number;
  trades: Trade[];
}

export type DemoListener = (event: { type: 'settled'; trade: Trade }) => void;

/** Where the demo account is kept between visits (localStorage in the browser; none in tests unless given). */
export interface DemoStore {
  load(): string | null;
  save(value: string): void;
}

export const browserDemoStore: DemoStore = {
  load: () => localStore.get(STORAGE_KEYS.demoAccount),
  save: (value) => localStore.set(STORAGE_KEYS.demoAccount, value),
};

/** The server's stored ticks of a symbol between two instants (GET /api/prices/:symbol/ticks), oldest first. */
export type TickHistory = (symbol: string, from: Date, to: Date) => Promise<{ price: number; at: string }[]>;

export const serverTicks: TickHistory = async (symbol, from, to) => {
  const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
  const res = await fetch(`/api/prices/${encodeURIComponent(symbol)}/ticks?${query}`, {
    headers: { Accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`quote history: ${res.status}`);
  return quoteHistoryResponseSchema.parse(await res.json()).ticks;
};

const storedSchema = z.object({
  v: z.literal(1),
  balanceCents: z.number().int().min(0).max(1e12),
  trades: z.array(tradeSchema).max(500),
  nextId: z.number().int().min(1),
});

/** The quote history's window: the 10 minutes it allows, ending a little after the expiry. */
const LOOKUP_BEFORE_MS = 9 * 60_000 + 50_000;
const LOOKUP_AFTER_MS = 10_000;
/** A trade is looked up on the server this long after its expiry when the page has no tick past it. */
const LOOKUP_GRACE_MS = 5_000;
/** The most settled trades kept (the history shows them; older ones fall off). */
const KEPT_TRADES = 200;

export class DemoAccount {
  private state: DemoState = { balanceCents: DEMO_BALANCE * 100, trades: [] };
  private nextId = 1;
  /** Trades being looked up on the server, and when a failed lookup may be tried again. */
  private readonly lookups = new Map<number, number>();

  constructor(
    private readonly store: DemoStore | null = null,
    private readonly ticks: TickHistory = serverTicks,
  ) {
    const raw = store?.load();
    if (!raw) return;
    try {
      const stored = storedSchema.parse(JSON.parse(raw));
      this.state = { balanceCents: stored.balanceCents, trades: stored.trades };
      this.nextId = Math.max(stored.nextId, ...stored.trades.map((t) => t.id + 1));
    } catch {
      // Unreadable (an older version, a hand edit): a fresh demo account.
    }
  }

  /** Back to $1000 and no trades (the menu's 'Начать демо заново'). */
  reset(): void {
    this.nextId = 1;
    this.lookups.clear();
    this.set({ balanceCents: DEMO_BALANCE * 100, trades: [] });
  }
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<DemoListener>();
  private stopTicks: (() => void) | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  getState = (): DemoState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.stopTicks) {
      this.stopTicks = onPriceTick(() => this.settleDue());
      // Also on a timer: a quiet asset still settles once any later tick of it is known.
      this.timer = setInterval(() => this.settleDue(), 1000);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.stopTicks?.();
        this.stopTicks = null;
        if (this.timer) clearInterval(this.timer);
        this.timer = null;
      }
    };
  };

  onEvent(listener: DemoListener): () => void {
    this.eventListeners.add(listener);
    return () => void this.eventListeners.delete(listener);
  }

  private set(next: DemoState): void {
    const active = next.trades.filter((t) => t.status === 'active');
    const settled = next.trades.filter((t) => t.status !== 'active');
    this.state =
      settled.length > KEPT_TRADES ? { ...next, trades: [...active, ...settled.slice(0, KEPT_TRADES)] } : next;
    this.store?.save(
      JSON.stringify({ v: 1, balanceCents: this.state.balanceCents, trades: this.state.trades, nextId: this.nextId }),
    );
    for (const l of this.listeners) l();
  }

  /**
   * Opens a trade at the server's latest price; throws a problem code the screen translates. The account's checks are
   * the shared tradeCheck, as the server runs them, on a new account's defaults (the demo settings the server gives).
   */
  place(input: { asset: string; direction: TradeDirection; amount: number; duration: number; payout: number }): Trade {
    const cents = dollarsToCents(input.amount);
    const failed = tradeCheck({
      accountActive: true,
      tradingEnabled: true,
      amountCents: cents,
      maxCents: DEFAULT_MAX_TRADE_DOLLARS * 100,
      balanceCents: this.state.balanceCents,
    });
    if (failed || cents === null) throw new Error(TRADE_CHECK_PROBLEMS[failed ?? 'trade_amount_too_small']);
    const quote = latestQuote(input.asset);
    if (!quote) throw new Error('no_price');
    const now = Date.now();
    const profit = potentialProfitCents(cents, input.payout);
    const trade: Trade = {
      id: this.nextId++,
      asset: input.asset,
      direction: input.direction,
      amount: centsToDollars(cents),
      duration: input.duration,
      status: 'active',
      payout: input.payout,
      payout_percentage: input.payout,
      expected_payout: centsToDollars(profit),
      profit_loss: null,
      strike_price: quote.price,
      strike_at: new Date(quote.at).toISOString(),
      close_price: null,
      close_at: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + input.duration * 1000).toISOString(),
      settled_at: null,
    };
    this.set({ balanceCents: this.state.balanceCents - cents, trades: [trade, ...this.state.trades] });
    return trade;
  }

  /**
   * Settles every active trade whose expiry the server's prices have passed, by the server's rule (settleAtExpiry: the
   * last price at or before the expiry, refunded when there is none near it). The page's own ticks decide when they
   * reach past the expiry; a trade that expired before the page had ticks of it is looked up on the server.
   */
  settleDue(now: number = Date.now()): void {
    const decided = new Map<number, { price: number; at: number } | null>();
    for (const t of this.state.trades) {
      if (t.status !== 'active') continue;
      const expiry = Date.parse(t.expires_at);
      const last = latestQuote(t.asset);
      const close = last && last.at >= expiry ? priceAtOrBefore(t.asset, expiry) : undefined;
      if (close) decided.set(t.id, { price: close.price, at: close.at });
      else if (now >= expiry + LOOKUP_GRACE_MS) this.lookUp(t, now);
    }
    this.apply(decided);
  }

  /** The server's stored ticks around a trade's expiry decide it (once; a failed lookup is tried again a minute on). */
  private lookUp(trade: Trade, now: number): void {
    const retryAt = this.lookups.get(trade.id);
    if (retryAt !== undefined && (retryAt === Infinity || now < retryAt)) return;
    this.lookups.set(trade.id, Infinity);
    const expiry = Date.parse(trade.expires_at);
    this.ticks(trade.asset, new Date(expiry - LOOKUP_BEFORE_MS), new Date(expiry + LOOKUP_AFTER_MS))
      .then((ticks) => {
        const before = ticks.filter((tick) => Date.parse(tick.at) <= expiry).at(-1);
        this.apply(new Map([[trade.id, before ? { price: before.price, at: Date.parse(before.at) } : null]]));
        this.lookups.delete(trade.id);
      })
      .catch(() => this.lookups.set(trade.id, Date.now() + 60_000));
  }

  private apply(decided: Map<number, { price: number; at: number } | null>): void {
    if (decided.size === 0) return;
    let balance = this.state.balanceCents;
    const settled: Trade[] = [];
    const trades = this.state.trades.map((t) => {
      if (t.status !== 'active' || !decided.has(t.id)) return t;
      const close = decided.get(t.id) ?? null;
      const result = settleAtExpiry({
        direction: t.direction,
        strikePrice: t.strike_price,
        amountCents: dollarsToCents(t.amount)!,
        payoutPercentage: t.payout_percentage,
        expiresAt: t.expires_at,
        close,
      });
      balance += result.creditCents;
      const done: Trade = {
        ...t,
        status: result.status,
        profit_loss: centsToDollars(result.profitCents),
        close_price: result.status === 'no_price' || !close ? null : close.price,
        close_at: result.status === 'no_price' || !close ? null : new Date(close.at).toISOString(),
        settled_at: new Date().toISOString(),
      };
      settled.push(done);
      return done;
    });
    if (settled.length === 0) return;
    this.set({ balanceCents: balance, trades });
    for (const trade of settled) for (const l of this.eventListeners) l({ type: 'settled', trade });
  }
}
