import { describe, expect, it } from 'vitest';
import { MIN_TRADE_DOLLARS, tradeAmountTooSmall, tradeCheck, type TradeCheckInput } from '../src/index.js';

const ok: TradeCheckInput = {
  accountActive: true,
  tradingEnabled: true,
  amountCents: 25_00,
  maxCents: 1000_00,
  balanceCents: 100_00,
};

describe('tradeCheck: the place-trade checks of D1, one definition for server, screen and demo', () => {
  it('passes a stake within the minimum, the limit and the balance', () => {
    expect(tradeCheck(ok)).toBeNull();
    expect(tradeCheck({ ...ok, amountCents: MIN_TRADE_DOLLARS * 100 })).toBeNull();
    expect(tradeCheck({ ...ok, amountCents: 100_00 })).toBeNull();
    expect(tradeCheck({ ...ok, amountCents: 50_00, maxCents: 50_00 })).toBeNull();
  });

  it('answers the first failed check, in the published order', () => {
    const everythingWrong: TradeCheckInput = {
      accountActive: false,
      tradingEnabled: false,
      amountCents: null,
      maxCents: 0,
      balanceCents: null,
    };
    expect(tradeCheck(everythingWrong)).toBe('trading_disabled');
    expect(tradeCheck({ ...ok, accountActive: false })).toBe('trading_disabled');
    expect(tradeCheck({ ...ok, tradingEnabled: false, amountCents: null })).toBe('trading_disabled');
    expect(tradeCheck({ ...ok, amountCents: null, maxCents: 0, balanceCents: 0 })).toBe('trade_amount_too_small');
    expect(tradeCheck({ ...ok, amountCents: 99 })).toBe('trade_amount_too_small');
    expect(tradeCheck({ ...ok, amountCents: 0 })).toBe('trade_amount_too_small');
    expect(tradeCheck({ ...ok, amountCents: -500 })).toBe('trade_amount_too_small');
    expect(tradeCheck({ ...ok, amountCents: 60_00, maxCents: 50_00, balanceCents: 10_00 })).toBe(
      'trade_amount_too_large',
    );
    expect(tradeCheck({ ...ok, amountCents: 60_00, maxCents: 50_00, balanceCents: null })).toBe(
      'trade_amount_too_large',
    );
    expect(tradeCheck({ ...ok, balanceCents: null })).toBe('balance_unknown');
    expect(tradeCheck({ ...ok, amountCents: 100_01 })).toBe('insufficient_trade_balance');
    expect(tradeCheck({ ...ok, balanceCents: 0 })).toBe('insufficient_trade_balance');
  });

  it('takes another minimum when given one; the published minimum otherwise', () => {
    expect(tradeCheck({ ...ok, amountCents: 5_00, minCents: 10_00 })).toBe('trade_amount_too_small');
    expect(tradeCheck({ ...ok, amountCents: 10_00, minCents: 10_00 })).toBeNull();
    expect(tradeAmountTooSmall(MIN_TRADE_DOLLARS * 100 - 1)).toBe(true);
    expect(tradeAmountTooSmall(MIN_TRADE_DOLLARS * 100)).toBe(false);
    expect(tradeAmountTooSmall(null)).toBe(true);
  });
});
