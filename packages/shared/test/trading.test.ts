import { describe, expect, it } from 'vitest';
import {
  ASSETS,
  ASSET_CATEGORIES,
  ASSET_SYMBOLS,
  TRADE_DURATIONS,
  accountSettingsRequestSchema,
  balanceChangeRequestSchema,
  centsToDollars,
  compareDecimal,
  dollarsToCents,
  findAsset,
  formatCents,
  formatDollarLimit,
  formatDuration,
  formatUsd,
  numberToDecimal,
  placeTradeRequestSchema,
  potentialProfitCents,
  REFERENCE_PRICES_DATE,
  SETTLEMENT_GAP_SECONDS,
  isPriceGap,
  priceDecimals,
  roundDecimal,
  settleAtExpiry,
  settleTrade,
  voidTradeRequestSchema,
} from '../src/index.js';

describe('asset catalogue (client-platform.md §9)', () => {
  it('has every symbol §9 names, in its 7 categories and order', () => {
    // §9 announces "37 symbols" but names 38; every named symbol is kept (docs/decisions.md).
    expect(ASSETS).toHaveLength(38);
    expect(new Set(ASSET_SYMBOLS).size).toBe(38);
    const by = (category: string) => ASSETS.filter((a) => a.category === category).map((a) => a.symbol);
    expect(ASSET_CATEGORIES.map((c) => c.label)).toEqual([
      'Основные валютные пары',
      'Минорные валютные пары',
      'Криптовалюты',
      'Драгметаллы и товары',
      'Топовые акции США',
      'Основные индексы',
      'Европейские индексы',
    ]);
    expect(by('forex_major')).toEqual(['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'USDCAD', 'NZDUSD']);
    expect(by('forex_minor')).toEqual(['EURGBP', 'EURJPY', 'GBPJPY', 'EURCHF']);
    expect(by('crypto')).toEqual(['BTCUSD', 'ETHUSD', 'BNBUSD', 'ADAUSD', 'SOLUSD', 'XRPUSD', 'DOTUSD']);
    expect(by('commodities')).toEqual(['XAUUSD', 'XAGUSD', 'WTIUSD', 'XPDUSD', 'XPTUSD']);
    expect(by('stocks_us')).toEqual(['AAPL', 'MSFT', 'GOOGL', 'AMZN', 'TSLA', 'META', 'NVDA', 'NFLX']);
    expect(by('indices')).toEqual(['SPX500', 'NASDAQ', 'DJI', 'RUSSELL2000']);
    expect(by('indices_eu')).toEqual(['DAX', 'FTSE', 'CAC40']);
    for (const a of ASSETS) expect(a.name.length, a.symbol).toBeGreaterThan(0);
  });

  it('takes reference prices from the dated snapshot (§9 base prices kept) and an annual volatility per class', () => {
    expect(REFERENCE_PRICES_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(findAsset('EURUSD')).toMatchObject({ basePrice: '1.11460', assetClass: 'fx_major', annualVolatility: 0.07 });
    expect(findAsset('USDJPY')).toMatchObject({ basePrice: '143.210', assetClass: 'fx_major' });
    expect(findAsset('BTCUSD')).toMatchObject({ basePrice: '67500.00', assetClass: 'crypto' });
    expect(findAsset('NASDAQ')).toMatchObject({ basePrice: '18137.85', assetClass: 'index', annualVolatility: 0.18 });
    expect(findAsset('XAUUSD')).toMatchObject({ basePrice: '2670.50000', assetClass: 'metal', annualVolatility: 0.15 });
    expect(findAsset('WTIUSD')).toMatchObject({ assetClass: 'oil', annualVolatility: 0.35 });
    expect(findAsset('EURGBP')).toMatchObject({ basePrice: '0.86070', assetClass: 'fx_minor', annualVolatility: 0.09 });
    expect(findAsset('USDCAD')).toMatchObject({ basePrice: '1.35420' });
    expect(findAsset('DAX')).toMatchObject({ basePrice: '19473.60' });
    const band: Record<string, [number, number]> = {
      fx_major: [0.05, 0.08],
      fx_minor: [0.08, 0.1],
      metal: [0.14, 0.16],
      oil: [0.3, 0.4],
      index: [0.15, 0.2],
      stock: [0.3, 0.5],
      crypto: [0.6, 0.9],
    };
    for (const a of ASSETS) {
      const [lo, hi] = band[a.assetClass]!;
      expect(a.annualVolatility, a.symbol).toBeGreaterThanOrEqual(lo);
      expect(a.annualVolatility, a.symbol).toBeLessThanOrEqual(hi);
      // No symbol sits at §9's old "any other: 100" any more.
      expect(a.basePrice, a.symbol).not.toMatch(/^100\.0+$/);
    }
    expect(findAsset('NOPE')).toBeUndefined();
  });

  it('quotes JPY pairs with 3 decimals, other currency pairs with 5, then §9: non-USD, BTC, ETH 2, the rest 5', () => {
    expect(priceDecimals('USDJPY')).toBe(3);
    expect(priceDecimals('EURJPY')).toBe(3);
    expect(priceDecimals('AAPL')).toBe(2);
    expect(priceDecimals('EURGBP')).toBe(5); // D18: every currency pair but JPY's has 5
    expect(priceDecimals('EURCHF')).toBe(5);
    expect(priceDecimals('XAUUSD')).toBe(5);
    expect(priceDecimals('DAX')).toBe(2);
    expect(priceDecimals('BTCUSD')).toBe(2);
    expect(priceDecimals('ETHUSD')).toBe(2);
    expect(priceDecimals('EURUSD')).toBe(5);
    expect(priceDecimals('XRPUSD')).toBe(5);
  });

  it('offers the expiry options of §9 and names them by size', () => {
    expect(TRADE_DURATIONS).toEqual([300, 900, 1800, 3600, 14400, 86400, 2592000]);
    expect(formatDuration(30)).toBe('30 с');
    expect(formatDuration(300)).toBe('5 мин');
    expect(formatDuration(14400)).toBe('4 ч');
    expect(formatDuration(2592000, 'en')).toBe('30 d');
  });
});

describe('money: dollars ↔ cents', () => {
  it('reads dollars with at most 2 decimals exactly', () => {
    expect(dollarsToCents(19.99)).toBe(1999);
    expect(dollarsToCents(0.07)).toBe(7); // 0.07 * 100 is 7.000000000000001 in floats
    expect(dollarsToCents(1.15)).toBe(115); // 1.15 * 100 is 114.99999999999999
    expect(dollarsToCents(1000)).toBe(100000);
    expect(dollarsToCents(0)).toBe(0);
    expect(dollarsToCents(-0)).toBe(0);
    expect(dollarsToCents(-12.5)).toBe(-1250);
    expect(dollarsToCents('25.10')).toBe(2510);
    expect(dollarsToCents(' 3 ')).toBe(300);
  });

  it('refuses what is not a 2-decimal amount instead of rounding it', () => {
    expect(dollarsToCents(1.005)).toBeNull();
    expect(dollarsToCents(0.1 + 0.2)).toBeNull();
    expect(dollarsToCents(1e-7)).toBeNull();
    expect(dollarsToCents(1e21)).toBeNull();
    expect(dollarsToCents(Number.NaN)).toBeNull();
    expect(dollarsToCents(Number.POSITIVE_INFINITY)).toBeNull();
    expect(dollarsToCents('1,5')).toBeNull();
    expect(dollarsToCents('')).toBeNull();
    expect(dollarsToCents('1e3')).toBeNull();
    expect(dollarsToCents(Number.MAX_SAFE_INTEGER)).toBeNull(); // more cents than a safe integer holds
  });

  it('writes cents back as dollars', () => {
    expect(centsToDollars(1999)).toBe(19.99);
    expect(centsToDollars('250')).toBe(2.5);
    expect(centsToDollars(7n)).toBe(0.07);
    expect(() => centsToDollars(1.5)).toThrow(RangeError);
    expect(formatCents(1999)).toBe('19.99');
    expect(formatCents(-5)).toBe('-0.05');
    expect(formatCents('100000')).toBe('1000.00');
    expect(formatUsd(123456789)).toBe('$1,234,567.89');
    expect(formatUsd(-2500)).toBe('$25.00');
    expect(formatUsd(2500, { prefix: false })).toBe('25.00');
    expect(formatDollarLimit(100000)).toBe('$1000');
    expect(formatDollarLimit(100050)).toBe('$1000.50');
  });

  it('round-trips every cent value of a range exactly', () => {
    for (let c = 0; c < 100_000; c += 7) expect(dollarsToCents(centsToDollars(c))).toBe(c);
  });
});

describe('decimal prices', () => {
  it('compares exactly, ignoring trailing zeros', () => {
    expect(compareDecimal('1.10', '1.1')).toBe(0);
    expect(compareDecimal('1.11461', '1.1146')).toBe(1);
    expect(compareDecimal('0.99999', '1')).toBe(-1);
    expect(compareDecimal('-1.5', '-1.4')).toBe(-1);
    expect(compareDecimal('67500.12', '67500.120000')).toBe(0);
    expect(compareDecimal(0.1 + 0.2, 0.3)).toBe(1); // the numbers given really differ
    expect(() => compareDecimal('abc', '1')).toThrow(TypeError);
  });

  it('rounds half away from zero to the quoted decimals', () => {
    expect(roundDecimal('67500.12500000', 2)).toBe('67500.13');
    expect(roundDecimal('67500.12499999', 2)).toBe('67500.12');
    expect(roundDecimal('1.1', 5)).toBe('1.10000');
    expect(roundDecimal(1.114649999, 5)).toBe('1.11465');
    expect(roundDecimal('-0.004', 2)).toBe('0.00');
    expect(roundDecimal('-0.005', 2)).toBe('-0.01');
    expect(roundDecimal('143.2105', 3)).toBe('143.211');
    expect(roundDecimal('7', 0)).toBe('7');
  });

  it('writes numbers without exponents', () => {
    expect(numberToDecimal(1e-7)).toBe('0.0000001');
    expect(numberToDecimal(1.5e-7)).toBe('0.00000015');
    expect(numberToDecimal(1e21)).toBe('1000000000000000000000');
    expect(numberToDecimal(-2.5e-8)).toBe('-0.000000025');
    expect(numberToDecimal(1.1146)).toBe('1.1146');
  });
});

describe('settleTrade: the one settlement rule (D1)', () => {
  const base = { amountCents: 10000, payoutPercentage: 85 };

  it('a call wins when the close is above the strike and pays stake + amount × payout / 100', () => {
    expect(settleTrade({ ...base, direction: 'call', strikePrice: '1.11460', closePrice: '1.11461' })).toEqual({
      status: 'won',
      creditCents: 18500,
      profitCents: 8500,
    });
  });

  it('a call loses when the close is below, and nothing comes back', () => {
    expect(settleTrade({ ...base, direction: 'call', strikePrice: '1.11460', closePrice: '1.11459' })).toEqual({
      status: 'lost',
      creditCents: 0,
      profitCents: -10000,
    });
  });

  it('a put wins when the close is below the strike and loses when above', () => {
    expect(settleTrade({ ...base, direction: 'put', strikePrice: '143.210', closePrice: '143.209' }).status).toBe(
      'won',
    );
    expect(settleTrade({ ...base, direction: 'put', strikePrice: '143.210', closePrice: '143.211' }).status).toBe(
      'lost',
    );
  });

  it('an equal price is a tie for either direction and returns exactly the stake', () => {
    for (const direction of ['call', 'put'] as const) {
      expect(settleTrade({ ...base, direction, strikePrice: '1.10', closePrice: '1.1' })).toEqual({
        status: 'tie',
        creditCents: 10000,
        profitCents: 0,
      });
    }
  });

  it('rounds the profit down to a whole cent', () => {
    // $1.99 at 85 %: 169.15 cents of profit → 169
    expect(
      settleTrade({ direction: 'call', strikePrice: '1', closePrice: '2', amountCents: 199, payoutPercentage: 85 }),
    ).toEqual({
      status: 'won',
      creditCents: 368,
      profitCents: 169,
    });
    expect(potentialProfitCents(199, 85)).toBe(169);
    expect(potentialProfitCents(100, 1)).toBe(1);
    expect(potentialProfitCents(100, 100)).toBe(100);
    // a huge stake stays exact (the product passes 2^53)
    expect(potentialProfitCents(9_000_000_000_000_00, 99)).toBe(891_000_000_000_000);
  });

  it('refuses inputs that are not a trade', () => {
    const ok = {
      direction: 'call' as const,
      strikePrice: '1',
      closePrice: '2',
      amountCents: 100,
      payoutPercentage: 85,
    };
    expect(() => settleTrade({ ...ok, amountCents: 0 })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, amountCents: 1.5 })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, payoutPercentage: 0 })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, payoutPercentage: 101 })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, payoutPercentage: 85.5 })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, direction: 'up' as never })).toThrow(RangeError);
    expect(() => settleTrade({ ...ok, closePrice: 'NaN' })).toThrow(TypeError);
  });

  it('depends on nothing but its inputs', () => {
    const input = {
      direction: 'put' as const,
      strikePrice: '2534.00',
      closePrice: '2533.99',
      amountCents: 2500,
      payoutPercentage: 70,
    };
    const results = new Set(Array.from({ length: 50 }, () => JSON.stringify(settleTrade(input))));
    expect([...results]).toEqual([JSON.stringify({ status: 'won', creditCents: 4250, profitCents: 1750 })]);
  });
});

describe('settleAtExpiry: the gap rule of D22', () => {
  const expiresAt = '2026-11-23T10:00:10.000Z';
  const trade = { direction: 'call' as const, strikePrice: '1.10000', amountCents: 2500, payoutPercentage: 85 };
  const closeAt = (msBefore: number) => new Date(Date.parse(expiresAt) - msBefore).toISOString();

  it('publishes a bound of 10 seconds', () => {
    expect(SETTLEMENT_GAP_SECONDS).toBe(10);
  });

  it('settles by settleTrade at a close price stored at most 10 s before the expiry, the bound included', () => {
    for (const before of [0, 1, 9_999, 10_000]) {
      expect(settleAtExpiry({ ...trade, expiresAt, close: { price: '1.10001', at: closeAt(before) } })).toEqual({
        status: 'won',
        creditCents: 4625,
        profitCents: 2125,
      });
      expect(isPriceGap(closeAt(before), expiresAt)).toBe(false);
    }
    expect(settleAtExpiry({ ...trade, expiresAt, close: { price: '1.1', at: closeAt(10_000) } }).status).toBe('tie');
  });

  it('returns the stake as no_price when the last price is older than the bound, or there is none', () => {
    for (const close of [{ price: '1.10001', at: closeAt(10_001) }, { price: '0.9', at: closeAt(3_600_000) }, null]) {
      expect(settleAtExpiry({ ...trade, expiresAt, close })).toEqual({
        status: 'no_price',
        creditCents: 2500,
        profitCents: 0,
      });
    }
    expect(isPriceGap(closeAt(10_001), expiresAt)).toBe(true);
    expect(isPriceGap(null, expiresAt)).toBe(true);
  });

  it('never settles at an older price, whatever it says, and still refuses what is not a trade', () => {
    // A price 11 s old that would have won (call above the strike) or lost: the same refund either way.
    const won = settleAtExpiry({ ...trade, expiresAt, close: { price: '2', at: closeAt(11_000) } });
    const lost = settleAtExpiry({ ...trade, expiresAt, close: { price: '0.5', at: closeAt(11_000) } });
    expect(won).toEqual(lost);
    expect(() => settleAtExpiry({ ...trade, amountCents: 0, expiresAt, close: null })).toThrow(RangeError);
    expect(() => isPriceGap('not a time', expiresAt)).toThrow(TypeError);
  });
});

describe('trading request schemas', () => {
  it('place-trade accepts and ignores the price and payout a client saw, and refuses other fields', () => {
    const ok = placeTradeRequestSchema.safeParse({
      direction: 'call',
      amount: 25,
      duration: 300,
      asset: 'EURUSD',
      strike_price: 1.0001,
      expected_payout: 46.25,
    });
    expect(ok.success).toBe(true);
    expect(
      placeTradeRequestSchema.safeParse({
        direction: 'call',
        amount: 25,
        duration: 300,
        asset: 'EURUSD',
        force_result: 'win',
      }).success,
    ).toBe(false);
    expect(
      placeTradeRequestSchema.safeParse({ direction: 'up', amount: 25, duration: 300, asset: 'EURUSD' }).success,
    ).toBe(false);
    const bad = placeTradeRequestSchema.safeParse({ direction: 'put', amount: 1.005, duration: 300, asset: 'EURUSD' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('invalid_value');
    // Below the minimum is a business refusal with its own text, not a shape error.
    expect(
      placeTradeRequestSchema.safeParse({ direction: 'put', amount: 0.5, duration: 300, asset: 'EURUSD' }).success,
    ).toBe(true);
  });

  it('staff requests need a reason, a sane amount and a payout of 1–100', () => {
    expect(voidTradeRequestSchema.safeParse({ trade_id: 1, reason: '   ' }).success).toBe(false);
    expect(voidTradeRequestSchema.safeParse({ trade_id: 1, reason: 'ошибочная котировка' }).success).toBe(true);
    expect(balanceChangeRequestSchema.safeParse({ action: 'add', amount: -5, reason: 'x' }).success).toBe(false);
    expect(balanceChangeRequestSchema.safeParse({ action: 'set', amount: 0, reason: 'x' }).success).toBe(true);
    expect(balanceChangeRequestSchema.safeParse({ action: 'add', amount: 10, reason: '' }).success).toBe(false);
    expect(accountSettingsRequestSchema.safeParse({ payout_percentage: 0 }).success).toBe(false);
    expect(accountSettingsRequestSchema.safeParse({ payout_percentage: 101 }).success).toBe(false);
    expect(accountSettingsRequestSchema.safeParse({ payout_percentage: 100 }).success).toBe(true);
    expect(accountSettingsRequestSchema.safeParse({}).success).toBe(false);
    expect(accountSettingsRequestSchema.safeParse({ profit_enabled: false }).success).toBe(false);
  });
});
