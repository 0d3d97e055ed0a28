import { DEFAULT_MAX_TRADE_DOLLARS, MIN_TRADE_DOLLARS } from '@brokerage/shared';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_BALANCE, DemoAccount } from '../src/modules/trading/demo-account';

// The server's prices as the page knows them: none, or one quote of EURUSD.
const feed = vi.hoisted(() => ({ quote: null as { price: number; at: number } | null }));
vi.mock('../src/modules/trading/price-feed', () => ({
  latestQuote: () => feed.quote,
  onPriceTick: () => () => {},
  priceAtOrBefore: () => null,
}));
beforeEach(() => {
  feed.quote = null;
});

/**
 * Demo mode (D16) refuses a trade as the server would refuse it on a new account (issue 29 §1): the shared tradeCheck
 * with the demo settings' limits, before it looks for a price. The screen's panel checks the same first; these are the
 * demo account's own answers, the problem codes the screen translates.
 */
describe('the demo account runs the shared trade checks', () => {
  const attempt = (amount: number) => {
    const demo = new DemoAccount();
    try {
      demo.place({ asset: 'EURUSD', direction: 'call', amount, duration: 300, payout: 85 });
      return 'placed';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('refuses a stake under the minimum, over the limit or not a sum of money, and nothing changes', () => {
    expect(attempt(MIN_TRADE_DOLLARS - 0.01)).toBe('trade_min');
    expect(attempt(0)).toBe('trade_min');
    expect(attempt(1.005)).toBe('trade_min');
    expect(attempt(DEFAULT_MAX_TRADE_DOLLARS + 0.01)).toBe('trade_max');
    expect(DEMO_BALANCE).toBeLessThanOrEqual(DEFAULT_MAX_TRADE_DOLLARS);
    const demo = new DemoAccount();
    expect(() => demo.place({ asset: 'EURUSD', direction: 'put', amount: 0.5, duration: 300, payout: 85 })).toThrow();
    expect(demo.getState()).toEqual({ balanceCents: DEMO_BALANCE * 100, trades: [] });
  });

  it('a stake the checks pass goes on to the price, which a page without a feed does not have', () => {
    expect(attempt(MIN_TRADE_DOLLARS)).toBe('no_price');
    expect(attempt(DEMO_BALANCE)).toBe('no_price');
  });

  it('opens at the latest price with the shared payout formula, then refuses what the balance cannot take', () => {
    feed.quote = { price: 1.1, at: Date.now() };
    const demo = new DemoAccount();
    const trade = demo.place({ asset: 'EURUSD', direction: 'call', amount: 999.99, duration: 300, payout: 85 });
    expect(trade.expected_payout).toBe(849.99);
    expect(demo.getState().balanceCents).toBe(1);
    expect(() => demo.place({ asset: 'EURUSD', direction: 'call', amount: 1, duration: 300, payout: 85 })).toThrow(
      'trade_insufficient',
    );
    expect(demo.getState().trades).toHaveLength(1);
  });
});

/**
 * Issue 27 item 15: the demo account is kept in the browser — a reload keeps the balance and the open trades — and
 * starts over only when asked. A trade that expired while the page was closed is settled by the server's stored ticks
 * around its expiry (the public quote history) by the server's rule, or refunded when there are none.
 */
describe('the demo account kept between visits', () => {
  const memory = () => {
    let value: string | null = null;
    return { load: () => value, save: (v: string) => void (value = v), peek: () => value };
  };
  const noTicks = async () => [];

  it('a new page over the same storage has the balance and the open trade; reset starts over at $1000', () => {
    feed.quote = { price: 1.1, at: Date.now() };
    const store = memory();
    const first = new DemoAccount(store, noTicks);
    const trade = first.place({ asset: 'EURUSD', direction: 'call', amount: 100, duration: 300, payout: 85 });
    const reloaded = new DemoAccount(store, noTicks);
    expect(reloaded.getState()).toEqual({ balanceCents: 90_000, trades: [trade] });
    // The next trade gets a new id, not one the stored trades already hold.
    const next = reloaded.place({ asset: 'EURUSD', direction: 'put', amount: 10, duration: 300, payout: 85 });
    expect(next.id).toBeGreaterThan(trade.id);
    reloaded.reset();
    expect(new DemoAccount(store, noTicks).getState()).toEqual({ balanceCents: DEMO_BALANCE * 100, trades: [] });
  });

  it('an unreadable or tampered store is a fresh account, not an error', () => {
    for (const raw of ['not json', '{"v":1,"balanceCents":-5,"trades":[],"nextId":1}', '{"v":2}', '[]']) {
      const demo = new DemoAccount({ load: () => raw, save: () => {} }, noTicks);
      expect(demo.getState()).toEqual({ balanceCents: DEMO_BALANCE * 100, trades: [] });
    }
  });

  it('a trade that expired while the page was closed settles by the server ticks before its expiry', async () => {
    feed.quote = { price: 1.1, at: Date.now() };
    const store = memory();
    const placed = new DemoAccount(store, noTicks).place({
      asset: 'EURUSD',
      direction: 'call',
      amount: 100,
      duration: 60,
      payout: 85,
    });
    const expiry = Date.parse(placed.expires_at);
    feed.quote = null; // the reopened page has no ticks yet
    const asked: { symbol: string; from: Date; to: Date }[] = [];
    const reopened = new DemoAccount(store, async (symbol, from, to) => {
      asked.push({ symbol, from, to });
      return [
        { price: 1.09, at: new Date(expiry - 4000).toISOString() },
        { price: 1.2, at: new Date(expiry - 1000).toISOString() }, // the last at or before the expiry: a win
        { price: 1.0, at: new Date(expiry + 2000).toISOString() },
      ];
    });
    const events: string[] = [];
    reopened.onEvent((e) => events.push(e.trade.status));
    reopened.settleDue(expiry + 60_000);
    await vi.waitFor(() => expect(events).toEqual(['won']));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.symbol).toBe('EURUSD');
    expect(asked[0]!.to.getTime() - asked[0]!.from.getTime()).toBeLessThanOrEqual(10 * 60_000);
    const [won] = reopened.getState().trades;
    expect(won).toMatchObject({ status: 'won', close_price: 1.2, profit_loss: 85 });
    expect(reopened.getState().balanceCents).toBe(90_000 + 18_500);
    // Asking again changes nothing: it was settled once.
    reopened.settleDue(expiry + 120_000);
    expect(asked).toHaveLength(1);
  });

  it('with no stored tick near the expiry the stake comes back (no_price), as on the server', async () => {
    feed.quote = { price: 1.1, at: Date.now() };
    const store = memory();
    const placed = new DemoAccount(store, noTicks).place({
      asset: 'EURUSD',
      direction: 'put',
      amount: 50,
      duration: 60,
      payout: 85,
    });
    feed.quote = null;
    const reopened = new DemoAccount(store, noTicks);
    reopened.settleDue(Date.parse(placed.expires_at) + 60_000);
    await vi.waitFor(() => expect(reopened.getState().trades[0]!.status).toBe('no_price'));
    expect(reopened.getState().balanceCents).toBe(DEMO_BALANCE * 100);
  });
});
