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
