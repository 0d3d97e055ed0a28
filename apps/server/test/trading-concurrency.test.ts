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
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * D3 under load: many place-trade calls at once on one account. On PostgreSQL they really run in parallel (a pool of
 * connections, each waiting for the account's row lock); on PGlite they queue for its one connection.
 */
describe.each(dbKinds())('concurrent trades on %s', (kind) => {
  let app: TradingTestApp;

  beforeAll(async () => {
    app = await createTradingApp(kind, [{ t: 0, symbol: 'EURUSD', price: '1.08500' }]);
    app.clock.set(T0 + 100);
    await app.pump();
  });
  afterAll(() => app.close());
  // D3: after every test that moves money, each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(app.t));

  it('lets exactly as many of 100 simultaneous trades through as the balance pays for', async () => {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 3_700); // $37: room for 37 trades of $1
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        placeTrade(app.t, client.token, {
          direction: i % 2 ? 'call' : 'put',
          amount: 1,
          duration: 300,
          asset: 'EURUSD',
        }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(37);
    expect(statuses.filter((s) => s === 409)).toHaveLength(63);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.json().detail).toBe('Не достаточно баланса на торговом счету');
    }
    expect(await balanceCents(app.t, client.accountId)).toBe(0);
    const trades = await app.t.db
      .selectFrom('trades')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', client.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(trades.n)).toBe(37);
    // Every balance the ledger recorded on the way stayed at or above 0 and each step is the previous one − $1.
    const afters = (
      await app.t.db
        .selectFrom('ledger_entries')
        .select('balance_after_cents')
        .where('account_id', '=', client.accountId)
        .where('kind', '=', 'trade_stake')
        .orderBy('id')
        .execute()
    ).map((e) => Number(e.balance_after_cents));
    expect(afters).toEqual(Array.from({ length: 37 }, (_, i) => 3_600 - i * 100));
    await expectLedgerConsistent(app.t);
  });

  it('has one effect per Idempotency-Key when every call is retried at once', async () => {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 100_000);
    const keys = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    const calls = keys.flatMap((key, i) =>
      Array.from({ length: 5 }, () =>
        placeTrade(
          app.t,
          client.token,
          { direction: 'call', amount: 1 + i, duration: 300, asset: 'EURUSD' },
          { 'idempotency-key': key },
        ),
      ),
    );
    const results = await Promise.all(calls);
    expect(results.every((r) => r.statusCode === 201)).toBe(true);
    // Each key's five answers are the same trade.
    for (let k = 0; k < keys.length; k++) {
      const ids = new Set(results.slice(k * 5, k * 5 + 5).map((r) => r.json().trade.id));
      expect(ids.size).toBe(1);
    }
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(80);
    const n = await app.t.db
      .selectFrom('trades')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', client.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(20);
    // $1 + $2 + … + $20 = $210 staked, once.
    expect(await balanceCents(app.t, client.accountId)).toBe(100_000 - 21_000);
    await expectLedgerConsistent(app.t);
  });

  it('has one effect per key when 100 keyed trades beyond the balance are each sent twice at the same moment', async () => {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 3_700); // $37: room for 37 of the 100 trades of $1
    const keys = Array.from({ length: 100 }, (_, i) => `twice-${i}`);
    // Each key's two calls are the same request (same key, same body), sent together with all the others.
    const results = await Promise.all(
      keys.flatMap((key, i) =>
        [0, 1].map(() =>
          placeTrade(
            app.t,
            client.token,
            { direction: i % 2 ? 'call' : 'put', amount: 1, duration: 300, asset: 'EURUSD' },
            { 'idempotency-key': key },
          ),
        ),
      ),
    );
    const pairs = keys.map((_, i) => [results[2 * i]!, results[2 * i + 1]!] as const);
    // Both answers of a key are the same: the one trade it opened, or the one refusal stored for it.
    for (const [i, [a, b]] of pairs.entries()) {
      expect([b.statusCode, b.json()], keys[i]).toEqual([a.statusCode, a.json()]);
    }
    const opened = pairs.filter(([a]) => a.statusCode === 201);
    const refused = pairs.filter(([a]) => a.statusCode === 409);
    expect(opened).toHaveLength(37);
    expect(refused).toHaveLength(63);
    for (const [a] of refused) expect(a.json().detail).toBe('Не достаточно баланса на торговом счету');
    // Of each opened pair, one call did the work and the other was answered from the stored result.
    for (const pair of opened) {
      expect(pair.map((r) => r.headers['idempotent-replayed'] === 'true').sort()).toEqual([false, true]);
    }
    const ids = opened.map(([a]) => a.json().trade.id as number);
    expect(new Set(ids).size).toBe(37);

    expect(await balanceCents(app.t, client.accountId)).toBe(0);
    const trades = await app.t.db
      .selectFrom('trades')
      .select('id')
      .where('account_id', '=', client.accountId)
      .orderBy('id')
      .execute();
    expect(trades.map((t) => Number(t.id))).toEqual([...ids].sort((a, b) => a - b));
    // One stake entry per opened key, each balance on the way at or above 0.
    const stakes = await app.t.db
      .selectFrom('ledger_entries')
      .select(['reference', 'balance_after_cents'])
      .where('account_id', '=', client.accountId)
      .where('kind', '=', 'trade_stake')
      .orderBy('id')
      .execute();
    expect(stakes.map((e) => e.reference).sort()).toEqual(ids.map((id) => `trade:${id}:stake`).sort());
    expect(stakes.map((e) => Number(e.balance_after_cents))).toEqual(
      Array.from({ length: 37 }, (_, i) => 3_600 - i * 100),
    );
    await expectLedgerConsistent(app.t);
  });

  it('keeps accounts apart: simultaneous trades of many clients each stake only their own balance', async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => registerClient(app.t)));
    for (const c of clients) await fund(app.t, c.accountId, 1_000);
    const results = await Promise.all(
      clients.flatMap((c) =>
        Array.from({ length: 15 }, () =>
          placeTrade(app.t, c.token, { direction: 'put', amount: 1, duration: 300, asset: 'EURUSD' }),
        ),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(50);
    for (const c of clients) expect(await balanceCents(app.t, c.accountId)).toBe(0);
    await expectLedgerConsistent(app.t);
  });
});

/**
 * A staff credit and the client's withdrawal request at once on one client (found by the fault test, issue 21 §8):
 * each locks the client and the account, and in opposite orders they deadlocked and one answered 500.
 */
describe.each(dbKinds())('a staff credit and a withdrawal request at once on %s', (kind) => {
  let app: TradingTestApp;

  beforeAll(async () => {
    app = await createTradingApp(kind, [{ t: 0, symbol: 'EURUSD', price: '1.08500' }]);
  });
  afterAll(() => app.close());
  afterEach(() => expectLedgerConsistent(app.t));

  it('both are answered, never with a server error, and every cent is accounted for', async () => {
    const staff = await app.t.userWithToken('superadmin');
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 100_000);
    const expiry = `12/${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, '0')}`;
    const statuses: number[] = [];
    for (let round = 0; round < 60; round++) {
      // The credit starts 0–9 ms after the request, so some rounds land in each other's lock windows.
      const [credit, withdrawal] = await Promise.all([
        new Promise((resolve) => setTimeout(resolve, round % 10)).then(() =>
          app.t.inject({
            method: 'POST',
            url: `/api/trading/admin/accounts/${client.accountId}/balance`,
            token: staff.token,
            headers: { 'idempotency-key': `credit-${round}` },
            payload: { action: 'add', amount: 1, reason: `round ${round}` },
          }),
        ),
        app.t.inject({
          method: 'POST',
          url: '/api/withdraw-requests',
          token: client.token,
          headers: { 'idempotency-key': `withdrawal-${round}` },
          payload: { amount: 10, card_number: '4111111111111111', card_holder: 'Ivan Petrov', card_expiry: expiry },
        }),
      ]);
      statuses.push(credit.statusCode, withdrawal.statusCode);
      expect(credit.statusCode, credit.body).toBeLessThan(500);
      expect(withdrawal.statusCode, withdrawal.body).toBeLessThan(500);
    }
    expect(statuses.filter((s) => s >= 200 && s < 300).length).toBeGreaterThan(0);
  });
});
