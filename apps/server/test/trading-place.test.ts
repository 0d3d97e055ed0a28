import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import {
  T0,
  balanceCents,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.08500' },
  { t: 0, symbol: 'BTCUSD', price: '67500.12' },
];

describe.each(dbKinds())('placing a trade on %s', (kind) => {
  let app: TradingTestApp;
  let client: TestClient;
  let staffToken: string;

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    client = await registerClient(app.t);
    staffToken = (await app.t.userWithToken('superadmin')).token;
    app.clock.set(T0 + 500);
    await app.pump();
  });
  afterAll(() => app.close());
  // D3: after every test that moves money, each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(app.t));

  const ok = { direction: 'call', amount: 25, duration: 300, asset: 'EURUSD' };
  const place = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    placeTrade(app.t, client.token, body, headers);
  const settings = (body: Record<string, unknown>) =>
    app.t.inject({
      method: 'PUT',
      url: `/api/trading/admin/accounts/${client.accountId}/settings`,
      token: staffToken,
      payload: body,
    });
  const refusal = async (body: Record<string, unknown>) => {
    const res = await place(body);
    return { status: res.statusCode, detail: res.json().detail as string };
  };

  it('opens a registered client with a trading account at balance 0 and the default settings', async () => {
    expect(await balanceCents(app.t, client.accountId)).toBe(0);
    const balance = await app.t.inject({ method: 'GET', url: '/api/trading/balance', token: client.token });
    expect(balance.json()).toEqual({ balance: 0, total_profit: 0 });
    const s = await app.t.inject({ method: 'GET', url: '/api/trading/client-settings', token: client.token });
    expect(s.json()).toEqual({
      payout_percentage: 85,
      trading_enabled: true,
      max_trade_amount: 1000,
      min_trade_amount: 1,
      durations: [5, 10, 300],
    });
  });

  it('refuses in the order of the spec, each with its own text', async () => {
    // 1. trading disabled beats everything, even an amount below the minimum
    expect((await settings({ trading_enabled: false })).statusCode).toBe(200);
    expect(await refusal({ ...ok, amount: 0 })).toEqual({ status: 409, detail: 'Торговля по счету приостановлена' });
    expect((await settings({ trading_enabled: true })).statusCode).toBe(200);
    // … and so does a blocked account
    await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${client.accountId}/block`,
      token: staffToken,
    });
    expect(await refusal({ ...ok, amount: 0 })).toEqual({ status: 409, detail: 'Торговля по счету приостановлена' });
    await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${client.accountId}/activate`,
      token: staffToken,
    });

    // 2. below $1, even with no balance and an unknown asset
    expect(await refusal({ ...ok, amount: 0.99, asset: 'NOPE' })).toEqual({
      status: 400,
      detail: 'Минимальная сумма сделки: $1',
    });
    expect(await refusal({ ...ok, amount: -5 })).toEqual({ status: 400, detail: 'Минимальная сумма сделки: $1' });
    // 3. above the account's limit, before the balance check
    expect(await refusal({ ...ok, amount: 1000.01 })).toEqual({
      status: 400,
      detail: 'Максимальная сумма сделки: $1000',
    });
    expect((await settings({ max_trade_amount: 250.5 })).statusCode).toBe(200);
    expect(await refusal({ ...ok, amount: 251 })).toEqual({
      status: 400,
      detail: 'Максимальная сумма сделки: $250.50',
    });
    // 4. more than the balance (0)
    expect(await refusal({ ...ok, amount: 1 })).toEqual({
      status: 409,
      detail: 'Не достаточно баланса на торговом счету',
    });
    await fund(app.t, client.accountId, 10_000);
    expect(await refusal({ ...ok, amount: 100.01 })).toEqual({
      status: 409,
      detail: 'Не достаточно баланса на торговом счету',
    });
    // 5. an asset the catalogue does not have
    expect(await refusal({ ...ok, asset: 'NOPE', duration: 7 })).toEqual({
      status: 400,
      detail: 'Неизвестный актив: NOPE',
    });
    // 6. no price (AAPL is not in the feed) or a price older than 5 s
    expect(await refusal({ ...ok, asset: 'AAPL', duration: 7 })).toEqual({
      status: 503,
      detail: 'Котировка недоступна, попробуйте позже',
    });
    app.clock.set(T0 + 5001); // the last EURUSD tick is from T0
    expect(await refusal({ ...ok, duration: 7 })).toEqual({
      status: 503,
      detail: 'Котировка недоступна, попробуйте позже',
    });
    app.clock.set(T0 + 5000); // exactly 5 s old still opens
    // 7. a duration the server does not offer, naming the list
    expect(await refusal({ ...ok, duration: 7 })).toEqual({
      status: 400,
      detail: 'Недопустимая длительность сделки: 7 с. Доступные значения (с): 5, 10, 300',
    });
    const opened = await place(ok);
    expect(opened.statusCode, opened.body).toBe(201);
    expect(opened.json().balance).toBe(75);
    await settings({ max_trade_amount: 1000 });
    await expectLedgerConsistent(app.t);
  });

  it('answers in English for Accept-Language: en', async () => {
    const res = await place({ ...ok, amount: 0.5 }, { 'accept-language': 'en-US,en;q=0.9' });
    expect(res.json().detail).toBe('Minimum trade amount: $1');
  });

  it("opens at the server's price and the account's payout, whatever the client sends", async () => {
    // Its own stake, so that it passes alone too (not only after the test that funds the account).
    await fund(app.t, client.accountId, 1_000);
    app.clock.set(T0 + 1000);
    await settings({ payout_percentage: 70 });
    const res = await place({ ...ok, asset: 'BTCUSD', amount: 10, strike_price: 1, expected_payout: 9999 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().trade).toMatchObject({
      strike_price: 67500.12,
      payout_percentage: 70,
      payout: 70,
      expected_payout: 7,
    });
    // A later payout change does not touch an open trade.
    await settings({ payout_percentage: 90 });
    const open = (await app.t.inject({ method: 'GET', url: '/api/trading/open-trades', token: client.token })).json();
    expect(open.find((x: { id: number }) => x.id === res.json().trade.id)).toMatchObject({
      payout_percentage: 70,
      strike_price: 67500.12,
    });
    await settings({ payout_percentage: 85 });
  });

  it('refuses a body that tries to choose anything else, and malformed amounts', async () => {
    for (const extra of [{ force_result: 'win' }, { result: 'won' }, { profit_enabled: true }, { balance: 1e6 }]) {
      const res = await place({ ...ok, ...extra });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toContain(Object.keys(extra)[0]);
    }
    const cents = await place({ ...ok, amount: 1.005 });
    expect(cents.statusCode).toBe(400);
    expect(cents.json().detail).toContain('amount');
    expect((await place({ ...ok, direction: 'up' })).statusCode).toBe(400);
    expect((await place({ ...ok, duration: 300.5 })).statusCode).toBe(400);
  });

  it('is refused to staff and to anonymous callers', async () => {
    expect((await placeTrade(app.t, staffToken, ok)).statusCode).toBe(403);
    expect((await app.t.inject({ method: 'POST', url: '/api/trading/place-trade', payload: ok })).statusCode).toBe(401);
  });

  it('answers a retry with the same Idempotency-Key with the first answer and no second stake', async () => {
    app.clock.set(T0 + 1000);
    const before = await balanceCents(app.t, client.accountId);
    const headers = { 'idempotency-key': 'retry-1' };
    const first = await place({ ...ok, amount: 5 }, headers);
    const second = await place({ ...ok, amount: 5 }, headers);
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await balanceCents(app.t, client.accountId)).toBe(before - 500);

    const reused = await place({ ...ok, amount: 6 }, headers);
    expect(reused.statusCode).toBe(409);
    expect(reused.json().detail).toBe('Этот Idempotency-Key уже использован с другим запросом');

    // A refusal is remembered too: the retry gets the same answer even after the cause is gone.
    const tooMuch = await place({ ...ok, amount: 999 }, { 'idempotency-key': 'retry-2' });
    expect(tooMuch.statusCode).toBe(409);
    await fund(app.t, client.accountId, 100_000);
    const retry = await place({ ...ok, amount: 999 }, { 'idempotency-key': 'retry-2' });
    expect(retry.statusCode).toBe(409);
    expect(retry.json().detail).toBe('Не достаточно баланса на торговом счету');

    const bad = await place(ok, { 'idempotency-key': 'ключ' });
    expect(bad.statusCode).toBe(400);
    await expectLedgerConsistent(app.t);
  });

  it('lists the trades newest first, paged, and the open ones soonest first', async () => {
    const page1 = (
      await app.t.inject({ method: 'GET', url: '/api/trading/trades?per_page=2', token: client.token })
    ).json();
    const all = (
      await app.t.inject({ method: 'GET', url: '/api/trading/trades?per_page=200', token: client.token })
    ).json();
    expect(page1.total).toBe(all.total);
    expect(page1.items).toHaveLength(2);
    const ids = all.items.map((x: { id: number }) => x.id);
    const created = all.items.map((x: { created_at: string }) => x.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(page1.items.map((x: { id: number }) => x.id)).toEqual(ids.slice(0, 2));
    const page2 = (
      await app.t.inject({ method: 'GET', url: '/api/trading/trades?per_page=2&page=2', token: client.token })
    ).json();
    expect(page2.items.map((x: { id: number }) => x.id)).toEqual(ids.slice(2, 4));
    const open = (await app.t.inject({ method: 'GET', url: '/api/trading/open-trades', token: client.token })).json();
    expect(open.length).toBe(all.items.filter((x: { status: string }) => x.status === 'active').length);
    const expiries = open.map((x: { expires_at: string }) => x.expires_at);
    expect(expiries).toEqual([...expiries].sort());
    const closed = (
      await app.t.inject({ method: 'GET', url: '/api/trading/trades?status=closed', token: client.token })
    ).json();
    expect(closed.items.every((x: { status: string }) => x.status !== 'active')).toBe(true);
  });

  it('answers 404 to a client user that has no trading account', async () => {
    const bare = await app.t.userWithToken('client'); // a user without a CRM client record
    for (const url of [
      '/api/trading/balance',
      '/api/trading/trades',
      '/api/trading/open-trades',
      '/api/trading/client-settings',
    ]) {
      const res = await app.t.inject({ method: 'GET', url, token: bare.token });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().detail).toBe('Торговый аккаунт не найден');
    }
    expect((await placeTrade(app.t, bare.token, ok)).statusCode).toBe(404);
  });
});
