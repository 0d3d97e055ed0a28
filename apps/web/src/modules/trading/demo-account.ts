import {
  DEFAULT_MAX_TRADE_DOLLARS,
  centsToDollars,
  dollarsToCents,
  potentialProfitCents,
  settleTrade,
  tradeCheck,
  type Trade,
  type TradeDirection,
} from '@brokerage/shared';
import { latestQuote, onPriceTick, priceAtOrBefore } from './price-feed';
import { TRADE_CHECK_PROBLEMS } from './rules';

/**
 * Demo mode (client-platform.md §2.10, D16): a balance of $1000 and trades that live only in this page. A trade opens
 * at the server's latest price and is settled, once a server tick past its expiry has arrived, at the last server
 * price at or before the expiry, by the shared settlement rule — the very function the server uses. Nothing is sent
 * to or saved on the server; reloading the page starts over.
 */

export const DEMO_BALANCE = 1000;

export interface DemoState {
  balanceCents: number;
  trades: Trade[];
}

export type DemoListener = (event: { type: 'settled'; trade: Trade }) => void;

export class DemoAccount {
  private state: DemoState = { balanceCents: DEMO_BALANCE * 100, trades: [] };
  private nextId = 1;
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
    this.state = next;
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

  /** Settles every active trade whose expiry the server's prices have passed. */
  settleDue(): void {
    let balance = this.state.balanceCents;
    const settled: Trade[] = [];
    const trades = this.state.trades.map((t) => {
      if (t.status !== 'active') return t;
      const expiry = Date.parse(t.expires_at);
      const last = latestQuote(t.asset);
      if (!last || last.at < expiry) return t;
      const close = priceAtOrBefore(t.asset, expiry);
      if (!close) return t;
      const cents = dollarsToCents(t.amount)!;
      const result = settleTrade({
        direction: t.direction,
        strikePrice: t.strike_price,
        closePrice: close.price,
        amountCents: cents,
        payoutPercentage: t.payout_percentage,
      });
      balance += result.creditCents;
      const done: Trade = {
        ...t,
        status: result.status,
        profit_loss: centsToDollars(result.profitCents),
        close_price: close.price,
        close_at: new Date(close.at).toISOString(),
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
