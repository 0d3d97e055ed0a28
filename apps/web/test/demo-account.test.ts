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
