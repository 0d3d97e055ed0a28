import { settleTrade, type QuoteHistoryResponse, type TradeAudit } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import {
  T0,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type ReplayRowInput,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * The contract audit and the public quote history (issue 14) through the HTTP API, on a replayed price file and a
 * controlled clock. EURUSD rises by 0.00001 every 500 ms for 25 minutes from 1.08000; GBPUSD stays at 1.29500 (one
 * tick a second). A 10-second call opens at T0+60 s and a 15-minute call at T0+120 s; both win.
 */
const EUR_START = 1.08;
function rows(): ReplayRowInput[] {
  const out: ReplayRowInput[] = [];
  for (let i = 0; i <= (25 * 60_000) / 500; i++) {
    out.push({ t: i * 500, symbol: 'EURUSD', price: (EUR_START + i * 0.00001).toFixed(5) });
    if (i % 2 === 0) out.push({ t: i * 500, symbol: 'GBPUSD', price: '1.29500' });
  }
  return out;
}

const SHORT = 10;
const LONG = 900;
const QUOTE_RATE = 12;

describe.each(dbKinds())('trade audit and quote history on %s', (kind) => {
  let app: TradingTestApp;
  let alice: TestClient;
  let bob: TestClient;
  let shortId: number;
  let longId: number;

  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    app.t.inject({ method: 'GET', url, ...(token ? { token } : {}), headers });

  beforeAll(async () => {
    app = await createTradingApp(kind, rows(), {
      TRADE_DURATIONS: `${SHORT},${LONG}`,
      QUOTE_HISTORY_RATE_PER_MINUTE: String(QUOTE_RATE),
    });
    alice = await registerClient(app.t, 'Alice');
    bob = await registerClient(app.t, 'Bob');
    await fund(app.t, alice.accountId, 100_000);

    app.clock.set(T0 + 60_000);
    await app.pump();
    const short = await placeTrade(app.t, alice.token, {
      asset: 'EURUSD',
      direction: 'call',
      amount: 25,
      duration: SHORT,
    });
    expect(short.statusCode, short.body).toBe(201);
    shortId = short.json().trade.id;
    await app.settleAt(T0 + 60_000 + SHORT * 1000 + 1000);

    app.clock.set(T0 + 120_000);
    await app.pump();
    const long = await placeTrade(app.t, alice.token, {
      asset: 'EURUSD',
      direction: 'call',
      amount: 10,
      duration: LONG,
    });
    expect(long.statusCode, long.body).toBe(201);
    longId = long.json().trade.id;
    // The long trade is open: its audit runs up to now.
    app.clock.set(T0 + 300_000);
    await app.pump();
    await app.settleAt(T0 + 120_000 + LONG * 1000 + 1000);
    // Past both trades' audit windows.
    app.clock.set(T0 + 1200_000);
    await app.pump();
  });
  afterAll(() => app.close());

  /** What the audit must prove of a settled trade: the close tick, the strike tick, and the rule gives the status. */
  function expectSettledByItsTicks(audit: TradeAudit) {
    const { trade, ticks } = audit;
    const expiry = Date.parse(trade.expires_at);
    const atOrBefore = ticks.filter((x) => Date.parse(x.at) <= expiry);
    expect(atOrBefore.at(-1)).toEqual({ at: trade.close_at, price: trade.close_price });
    expect(ticks).toContainEqual({ at: trade.strike_at, price: trade.strike_price });
    const byRule = settleTrade({
      direction: trade.direction,
      strikePrice: trade.strike_price,
      closePrice: trade.close_price!,
      amountCents: Math.round(trade.amount * 100),
      payoutPercentage: trade.payout_percentage,
    });
    expect(byRule.status).toBe(trade.status);
    expect(byRule.profitCents / 100).toBe(trade.profit_loss);
  }

  it("answers a won call's audit: its ticks, the strike tick, the close tick, and the rule that gives its status", async () => {
    const res = await get(`/api/trading/trades/${shortId}/audit`, alice.token, { 'accept-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    const audit = res.json<TradeAudit>();
    expect(Object.keys(audit).sort()).toEqual(['candles', 'no_price', 'rule', 'ticks', 'trade']);
    expect(audit.no_price).toBeNull();
    expect(audit.trade).toMatchObject({ id: shortId, status: 'won', direction: 'call', asset: 'EURUSD' });
    expect(audit.trade.profit_loss).toBe(21.25);
    expect(audit.rule).toMatchObject({
      direction: 'call',
      compare: 'close_gt_strike',
      tie: 'close_eq_strike',
      gap_seconds: 10,
    });
    expect(audit.rule.sentence).toMatch(/above the strike/);
    expect(audit.rule.sentence).toMatch(/no price was stored in the 10 s before the expiry/);
    expectSettledByItsTicks(audit);
    // From 30 s before the strike to 30 s after the expiry, every stored tick (two a second), in time order.
    const strike = Date.parse(audit.trade.strike_at);
    const expiry = Date.parse(audit.trade.expires_at);
    const times = audit.ticks.map((x) => Date.parse(x.at));
    expect(times[0]).toBe(strike - 30_000);
    expect(times.at(-1)).toBe(expiry + 30_000);
    expect(times).toHaveLength((expiry + 30_000 - (strike - 30_000)) / 500 + 1);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // Prices with the asset's decimals, as numbers.
    expect(audit.ticks[0]!.price).toBe(Number((EUR_START + (strike - 30_000 - T0) / 500 / 100_000).toFixed(5)));
    expect(audit.candles).toEqual([]);
    await expectLedgerConsistent(app.t);
  });

  it('gives the rule in Russian by default', async () => {
    const res = await get(`/api/trading/trades/${shortId}/audit`, alice.token);
    expect(res.json<TradeAudit>().rule.sentence).toMatch(/выше цены открытия/);
  });

  it('shows a trade longer than 10 minutes by the ticks around its strike and expiry, and candles in between', async () => {
    const res = await get(`/api/trading/trades/${longId}/audit`, alice.token);
    expect(res.statusCode, res.body).toBe(200);
    const audit = res.json<TradeAudit>();
    expect(audit.trade.status).toBe('won');
    expectSettledByItsTicks(audit);
    const strike = Date.parse(audit.trade.strike_at);
    const expiry = Date.parse(audit.trade.expires_at);
    for (const tick of audit.ticks) {
      const at = Date.parse(tick.at);
      const inStrike = at >= strike - 30_000 && at <= strike + 30_000;
      const inExpiry = at >= expiry - 30_000 && at <= expiry + 30_000;
      expect(inStrike || inExpiry, tick.at).toBe(true);
    }
    expect(audit.candles.length).toBeGreaterThanOrEqual(LONG / 60);
    expect(audit.candles[0]!.time * 1000).toBeLessThanOrEqual(strike);
    expect(audit.candles.at(-1)!.time * 1000).toBeGreaterThanOrEqual(expiry - 60_000);
  });

  it("answers 404 for another client's trade and for an unknown one, and 401 without a session", async () => {
    expect((await get(`/api/trading/trades/${shortId}/audit`, bob.token)).statusCode).toBe(404);
    const missing = await get(`/api/trading/trades/999999/audit`, alice.token, { 'accept-language': 'en' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toBe('Trade not found');
    expect((await get(`/api/trading/trades/${shortId}/audit`)).statusCode).toBe(401);
    expect((await get(`/api/trading/trades/abc/audit`, alice.token)).statusCode).toBe(400);
  });

  it('gives staff in scope the same audit, and 404 to a manager outside the scope', async () => {
    const url = `/api/trading/admin/accounts/${alice.accountId}/trades/${shortId}/audit`;
    const admin = await app.t.userWithToken('superadmin');
    const res = await get(url, admin.token);
    expect(res.statusCode, res.body).toBe(200);
    const staffView = res.json<TradeAudit>();
    const clientView = (await get(`/api/trading/trades/${shortId}/audit`, alice.token)).json<TradeAudit>();
    expect(staffView).toEqual(clientView);

    const outsider = await app.t.userWithToken('sales_manager');
    expect((await get(url, outsider.token)).statusCode).toBe(404);
    const own = await app.t.userWithToken('sales_manager');
    await app.t.db.updateTable('clients').set({ assigned_manager: own.id }).where('id', '=', alice.clientId).execute();
    expect((await get(url, own.token)).statusCode).toBe(200);
    // The trade must belong to the account of the path.
    const wrongAccount = `/api/trading/admin/accounts/${bob.accountId}/trades/${shortId}/audit`;
    expect((await get(wrongAccount, admin.token)).statusCode).toBe(404);
    // A client session is not staff.
    expect((await get(url, alice.token)).statusCode).toBe(403);
  });

  it("answers anyone the stored ticks of a span, including a settled trade's strike tick", async () => {
    const audit = (await get(`/api/trading/trades/${shortId}/audit`, alice.token)).json<TradeAudit>();
    const strike = Date.parse(audit.trade.strike_at);
    const from = new Date(strike - 1000).toISOString();
    const to = new Date(strike + 1000).toISOString();
    const res = await get(`/api/prices/eurusd/ticks?from=${from}&to=${to}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<QuoteHistoryResponse>();
    expect(body.symbol).toBe('EURUSD');
    expect(body.ticks).toHaveLength(5);
    expect(body.ticks).toContainEqual({ at: audit.trade.strike_at, price: audit.trade.strike_price });
    const close = await get(
      `/api/prices/EURUSD/ticks?from=${new Date(Date.parse(audit.trade.close_at!) - 60_000).toISOString()}&to=${audit.trade.expires_at}`,
    );
    expect(close.json<QuoteHistoryResponse>().ticks.at(-1)).toEqual({
      at: audit.trade.close_at,
      price: audit.trade.close_price,
    });
  });

  it('refuses a span over 10 minutes, a reversed span, a missing bound and an unknown symbol', async () => {
    const en = { 'accept-language': 'en' };
    const from = new Date(T0).toISOString();
    const long = await get(`/api/prices/EURUSD/ticks?from=${from}&to=${new Date(T0 + 600_001).toISOString()}`, '', en);
    expect(long.statusCode).toBe(400);
    expect(long.json().detail).toBe('The quote span may be at most 10 minutes (from … to)');
    const exactly = await get(`/api/prices/EURUSD/ticks?from=${from}&to=${new Date(T0 + 600_000).toISOString()}`);
    expect(exactly.statusCode).toBe(200);
    const reversed = await get(`/api/prices/EURUSD/ticks?from=${from}&to=${from}`, '', en);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().detail).toMatch(/start of the period must be before its end/);
    const missing = await get(`/api/prices/EURUSD/ticks?from=${from}`, '', en);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toContain('to');
    const garbage = await get(`/api/prices/EURUSD/ticks?from=yesterday&to=${from}`, '', en);
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().detail).toContain('from');
    const unknown = await get(`/api/prices/NOPE/ticks?from=${from}&to=${new Date(T0 + 1000).toISOString()}`, '', en);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toBe('Asset NOPE not found');
  });

  it('limits the quote history per address', async () => {
    const url = `/api/prices/EURUSD/ticks?from=${new Date(T0).toISOString()}&to=${new Date(T0 + 1000).toISOString()}`;
    const call = () => app.t.inject({ method: 'GET', url, remoteAddress: '203.0.113.7' });
    for (let i = 0; i < QUOTE_RATE; i++) expect((await call()).statusCode).toBe(200);
    const refused = await call();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // Another address is not affected.
    expect((await app.t.inject({ method: 'GET', url, remoteAddress: '203.0.113.8' })).statusCode).toBe(200);
  });

  it("prunes old raw ticks but keeps every trade's audit windows, so a year-old trade can still be audited", async () => {
    const before = await app.t.db.selectFrom('price_ticks').select('at').where('symbol', '=', 'EURUSD').execute();
    app.clock.set(T0 + 400 * 86_400_000);
    const deleted = await app.t.app.engine.prices.pruneTicks(new Date(T0 + 399 * 86_400_000));
    expect(deleted).toBeGreaterThan(0);

    const trades = await app.t.db.selectFrom('trades').select(['strike_at', 'expires_at', 'close_at']).execute();
    const windows = trades.flatMap((t) => [
      [new Date(t.strike_at).getTime() - 30_000, new Date(t.strike_at).getTime() + 30_000],
      [new Date(t.expires_at).getTime() - 30_000, new Date(t.expires_at).getTime() + 30_000],
    ]);
    const inWindow = (ms: number) => windows.some(([a, b]) => ms >= a! && ms <= b!);
    const kept = (await app.t.db.selectFrom('price_ticks').select('at').where('symbol', '=', 'EURUSD').execute()).map(
      (r) => new Date(r.at).getTime(),
    );
    const expected = before.map((r) => new Date(r.at).getTime()).filter(inWindow);
    expect(kept.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(kept.length).toBeLessThan(before.length);
    // No trade on GBPUSD: every raw tick of it is gone (its candles stay).
    expect(await app.t.db.selectFrom('price_ticks').select('id').where('symbol', '=', 'GBPUSD').execute()).toEqual([]);
    const candles = await app.t.db.selectFrom('candles_1m').select('minute').where('symbol', '=', 'GBPUSD').execute();
    expect(candles.length).toBeGreaterThan(0);

    for (const id of [shortId, longId]) {
      const res = await get(`/api/trading/trades/${id}/audit`, alice.token);
      expect(res.statusCode).toBe(200);
      expectSettledByItsTicks(res.json<TradeAudit>());
    }
    // The public history still answers the strike tick of the year-old trade.
    const audit = (await get(`/api/trading/trades/${shortId}/audit`, alice.token)).json<TradeAudit>();
    const strike = Date.parse(audit.trade.strike_at);
    const history = await get(
      `/api/prices/EURUSD/ticks?from=${new Date(strike - 5000).toISOString()}&to=${new Date(strike).toISOString()}`,
    );
    expect(history.json<QuoteHistoryResponse>().ticks.at(-1)).toEqual({
      at: audit.trade.strike_at,
      price: audit.trade.strike_price,
    });
  });
});
