import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { postEntry } from '../src/modules/ledger/service.js';
import { settleDueTrades } from '../src/modules/trading/settlement.js';
import { openDb } from '../src/platform/db/index.js';
import { createTestApp, dbKinds } from './helpers.js';
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

/**
 * Honest settlement through the HTTP API (decisions.md D1): prices come from a replay file, time from a controlled
 * clock, and settlement is called with that clock — no sleeping.
 *
 * EURUSD: 1.10000 at 0 s and 1 s, rises to 1.10020 at 3 s, 1.10010 at 8 s.
 * GBPUSD: 1.29500 throughout.
 * USDJPY: 143.210 at 0 s, falls to 143.100 at 2 s, nothing until 20 s (a gap in the feed).
 * After the last row (20 s) the replay repeats every symbol's last price each second.
 */
const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.10000' },
  { t: 0, symbol: 'GBPUSD', price: '1.29500' },
  { t: 0, symbol: 'USDJPY', price: '143.210' },
  { t: 1000, symbol: 'EURUSD', price: '1.10000' },
  { t: 1000, symbol: 'GBPUSD', price: '1.29500' },
  { t: 7000, symbol: 'GBPUSD', price: '1.29500' },
  { t: 2000, symbol: 'USDJPY', price: '143.100' },
  { t: 3000, symbol: 'EURUSD', price: '1.10020' },
  { t: 8000, symbol: 'EURUSD', price: '1.10010' },
  { t: 20000, symbol: 'USDJPY', price: '143.300' },
];

describe.each(dbKinds())('settlement on %s', (kind) => {
  let app: TradingTestApp;
  let client: TestClient;

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    client = await registerClient(app.t);
    await fund(app.t, client.accountId, 100_000); // $1000
  });
  afterAll(() => app.close());
  // D3: after every test that moves money, each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(app.t));

  const trade = (body: Record<string, unknown>) => placeTrade(app.t, client.token, body);

  it('settles a call won, a put lost and an unchanged price as a tie, each by the prices it shows', async () => {
    app.clock.set(T0 + 1000);
    await app.pump();
    const call = await trade({ direction: 'call', amount: 100, duration: 5, asset: 'EURUSD', strike_price: 0.5 });
    const put = await trade({ direction: 'put', amount: 100, duration: 5, asset: 'EURUSD' });
    const tie = await trade({ direction: 'call', amount: 50.5, duration: 5, asset: 'GBPUSD', expected_payout: 1e6 });
    for (const res of [call, put, tie]) expect(res.statusCode, res.body).toBe(201);
    expect(call.json().trade).toMatchObject({
      status: 'active',
      strike_price: 1.1, // the server's price, not the 0.5 the client sent
      strike_at: new Date(T0 + 1000).toISOString(),
      created_at: new Date(T0 + 1000).toISOString(),
      expires_at: new Date(T0 + 6000).toISOString(),
      payout_percentage: 85,
      expected_payout: 85,
      profit_loss: null,
      close_price: null,
    });
    expect(tie.json().balance).toBe(1000 - 100 - 100 - 50.5);
    expect(await balanceCents(app.t, client.accountId)).toBe(100_000 - 25_050);

    // Before expiry nothing is due.
    expect((await app.settleAt(T0 + 5999)).settled).toEqual([]);

    const report = await app.settleAt(T0 + 9000);
    expect(report.settled.map((s) => s.status).sort()).toEqual(['lost', 'tie', 'won']);

    const trades = (await app.t.inject({ method: 'GET', url: '/api/trading/trades', token: client.token })).json();
    const byId = new Map(trades.items.map((x: { id: number }) => [x.id, x]));
    // call: 1.10000 → 1.10020 (last tick at or before 6 s, seen at 3 s): won, pays 100 + 100 × 85 / 100
    expect(byId.get(call.json().trade.id)).toMatchObject({
      status: 'won',
      strike_price: 1.1,
      close_price: 1.1002,
      close_at: new Date(T0 + 3000).toISOString(),
      settled_at: new Date(T0 + 9000).toISOString(),
      profit_loss: 85,
    });
    expect(byId.get(put.json().trade.id)).toMatchObject({ status: 'lost', close_price: 1.1002, profit_loss: -100 });
    expect(byId.get(tie.json().trade.id)).toMatchObject({
      status: 'tie',
      strike_price: 1.295,
      close_price: 1.295,
      profit_loss: 0,
    });
    // 1000 − 250.50 staked + 185 (won) + 50.50 (tie returned) = 985
    expect(await balanceCents(app.t, client.accountId)).toBe(98_500);
    const balance = (await app.t.inject({ method: 'GET', url: '/api/trading/balance', token: client.token })).json();
    expect(balance).toEqual({ balance: 985, total_profit: -15 });

    const entries = await app.t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_cents', 'reference'])
      .where('account_id', '=', client.accountId)
      .where('reference', 'like', 'trade:%')
      .orderBy('id')
      .execute();
    expect(entries.map((e) => [e.kind, Number(e.amount_cents), e.reference])).toEqual([
      ['trade_stake', -10_000, `trade:${call.json().trade.id}:stake`],
      ['trade_stake', -10_000, `trade:${put.json().trade.id}:stake`],
      ['trade_stake', -5_050, `trade:${tie.json().trade.id}:stake`],
      ['trade_payout', 18_500, `trade:${call.json().trade.id}:settle`],
      ['trade_refund', 5_050, `trade:${tie.json().trade.id}:settle`],
    ]);
    await expectLedgerConsistent(app.t);
  });

  it('settles each trade exactly once, however often settlement runs', async () => {
    const before = await balanceCents(app.t, client.accountId);
    for (let i = 0; i < 3; i++) expect((await app.settleAt(T0 + 9000 + i * 1000)).settled).toEqual([]);
    expect(await balanceCents(app.t, client.accountId)).toBe(before);
    await expectLedgerConsistent(app.t);
  });

  it('waits until the feed has stored every tick up to the expiry, however late, then settles at the last one (D22)', async () => {
    // EURUSD's last tick is at 8 s; the feed has stored (and written its watermark) up to 11.5 s.
    app.clock.set(T0 + 11_500);
    await app.pump();
    const call = await trade({ direction: 'call', amount: 10, duration: 5, asset: 'EURUSD' });
    expect(call.statusCode, call.body).toBe(201);
    expect(call.json().trade).toMatchObject({ strike_price: 1.1001, strike_at: new Date(T0 + 8000).toISOString() });
    const id = call.json().trade.id as number;

    // Expired at 16.5 s. At 30 s by the clock the feed has still stored nothing after 11.5 s (a stalled leader, or
    // writes failing): a tick at or before the expiry could still come, so nothing settles, however long after it.
    // (The old 5-second grace settled it here, at whatever was stored.)
    let report = await app.t.app.engine.settleDueTrades({ now: new Date(T0 + 30_000) });
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    expect(report.waiting).toBeGreaterThanOrEqual(1);
    // The feed stores up to 17 s, past the expiry, but EURUSD's next tick after it has not come: D27 waits for it
    // (the close is provable as the last at or before the expiry only by its successor, under a published head).
    report = await app.settleAt(T0 + 17_000);
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    // At 21 s the replay repeats EURUSD's last price, a head covers it: the last tick at or before the expiry is
    // EURUSD's at 8 s, 1.10010: a tie.
    report = await app.settleAt(T0 + 21_000);
    expect(report.settled.find((s) => s.id === id)).toMatchObject({ status: 'tie', creditCents: 1000 });
    const row = await app.t.db.selectFrom('trades').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.close_price)).toBe(1.1001);
    expect(new Date(row.close_at!).toISOString()).toBe(new Date(T0 + 8000).toISOString());
    await expectLedgerConsistent(app.t);
  });

  it('settles a trade that expired long ago (a server that was down) with the price at its expiry', async () => {
    app.clock.set(T0 + 22_000);
    await app.pump();
    const call = await trade({ direction: 'call', amount: 20, duration: 5, asset: 'EURUSD' }); // strike 1.10010
    expect(call.statusCode, call.body).toBe(201);
    // The server is down for an hour: no ticks, no settlement. Back up, the feed stores new ticks, and the trade
    // settles at the last price at or before its expiry — the one stored at 22 s, before the outage.
    const report = await app.settleAt(T0 + 3_600_000);
    const settled = report.settled.find((s) => s.id === call.json().trade.id);
    expect(settled).toMatchObject({ status: 'tie', creditCents: 2000 });
    const row = await app.t.db
      .selectFrom('trades')
      .selectAll()
      .where('id', '=', call.json().trade.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.close_price)).toBe(1.1001);
    expect(new Date(row.close_at!).getTime()).toBe(T0 + 22_000);
    expect(new Date(row.settled_at!).getTime()).toBe(T0 + 3_600_000);
    await expectLedgerConsistent(app.t);
  });

  it('settles by the gap rule a trade with no stored price in the 10 s before its expiry: stake back, no price (D22)', async () => {
    // After its rows the replay repeats every price each second; a jump of the clock past its catch-up (10 s) leaves a
    // gap in the feed.
    const start = app.clock.now() + 3_600_000;
    app.clock.set(start);
    await app.pump();
    // At the bound: expires 10 s after the last tick before the feed's gap — settled at that tick (a tie).
    const edge = await trade({ direction: 'call', amount: 10, duration: 10, asset: 'EURUSD' });
    app.clock.set(start + 500);
    await app.pump();
    // Past it: the last tick at or before its expiry is 10.5 s old — no price decides it, the stake comes back.
    const gap = await trade({ direction: 'put', amount: 12, duration: 10, asset: 'EURUSD' });
    for (const res of [edge, gap]) expect(res.statusCode, res.body).toBe(201);
    expect(gap.json().trade.strike_at).toBe(new Date(start).toISOString());
    const before = await balanceCents(app.t, client.accountId);

    const report = await app.settleAt(start + 30_000);
    expect(report.settled.find((s) => s.id === edge.json().trade.id)).toMatchObject({ status: 'tie' });
    expect(report.settled.find((s) => s.id === gap.json().trade.id)).toMatchObject({
      status: 'no_price',
      creditCents: 1200,
      profitCents: 0,
    });
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 1000 + 1200);
    const row = await app.t.db
      .selectFrom('trades')
      .selectAll()
      .where('id', '=', gap.json().trade.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'no_price', close_price: null, close_at: null });
    expect(Number(row.profit_cents)).toBe(0);
    const refund = await app.t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_cents'])
      .where('reference', '=', `trade:${row.id}:settle`)
      .execute();
    expect(refund.map((e) => [e.kind, Number(e.amount_cents)])).toEqual([['trade_refund', 1200]]);

    // The client sees the result, and the contract audit gives the reason with the published rule.
    const listed = await app.t.inject({
      method: 'GET',
      url: '/api/trading/trades?status=no_price',
      token: client.token,
    });
    expect(listed.json().items.map((t: { id: number }) => t.id)).toEqual([gap.json().trade.id]);
    const audit = await app.t.inject({
      method: 'GET',
      url: `/api/trading/trades/${gap.json().trade.id}/audit`,
      token: client.token,
      headers: { 'accept-language': 'en' },
    });
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().trade).toMatchObject({ status: 'no_price', close_price: null, profit_loss: 0 });
    expect(audit.json().no_price).toMatchObject({
      reason: 'feed_gap',
      gap_seconds: 10,
      last_tick_at: new Date(start).toISOString(),
    });
    expect(audit.json().no_price.sentence).toContain('stake was returned');
    expect(audit.json().rule).toMatchObject({ gap_seconds: 10 });
    expect(audit.json().rule.sentence).toContain('never settled at an older price');
    await expectLedgerConsistent(app.t);
  });

  it('lets staff void an active trade with a reason (two people): stake back once, audited, never settled afterwards', async () => {
    const now = app.clock.now();
    const open = await trade({ direction: 'call', amount: 30, duration: 300, asset: 'EURUSD' });
    expect(open.statusCode, open.body).toBe(201);
    const id = open.json().trade.id as number;
    const staff = await app.t.userWithToken('superadmin');
    const approver = await app.t.userWithToken('admin');
    const before = await balanceCents(app.t, client.accountId);

    const blank = await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${client.accountId}/void-trade`,
      token: staff.token,
      payload: { trade_id: id, reason: '   ' },
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().detail).toContain('reason');

    // Issue 20 finding 11: the call asks; a second person with finance.approve confirms (void-requests.test.ts).
    const res = await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${client.accountId}/void-trade`,
      token: staff.token,
      payload: { trade_id: id, reason: 'Котировка поставщика была ошибочной' },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(await balanceCents(app.t, client.accountId)).toBe(before);
    const confirmed = await app.t.inject({
      method: 'POST',
      url: `/api/void-requests/${res.json().id}/confirm`,
      token: approver.token,
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(
      await app.t.db
        .selectFrom('trades')
        .select(['status', 'void_reason', 'voided_by'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toMatchObject({
      status: 'voided',
      void_reason: 'Котировка поставщика была ошибочной',
      voided_by: staff.id,
    });
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 3000);
    const audit = await app.t.auditRows('trade.void');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: approver.id, entity_id: String(id) });
    expect(audit[0]!.after).toMatchObject({
      status: 'voided',
      reason: 'Котировка поставщика была ошибочной',
      refunded: 30,
    });

    const again = await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${client.accountId}/void-trade`,
      token: staff.token,
      payload: { trade_id: id, reason: 'ещё раз' },
    });
    expect(again.statusCode).toBe(409);
    const report = await app.settleAt(now + 400_000);
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 3000);
    const history = (
      await app.t.inject({ method: 'GET', url: '/api/trading/trades?status=voided', token: client.token })
    ).json();
    expect(history.items.map((x: { id: number }) => x.id)).toEqual([id]);
    await expectLedgerConsistent(app.t);
  });

  it('settles in batches, and two settlement runs at once settle each trade exactly once', async () => {
    const start = app.clock.now() + 1000;
    app.clock.set(start);
    await app.pump();
    const others = await Promise.all([registerClient(app.t), registerClient(app.t), registerClient(app.t)]);
    for (const c of others) await fund(app.t, c.accountId, 10_000);
    const ids: number[] = [];
    for (let i = 0; i < 60; i++) {
      const c = others[i % others.length]!;
      const res = await placeTrade(app.t, c.token, {
        direction: i % 2 ? 'call' : 'put',
        amount: 1,
        duration: 5,
        asset: i % 3 ? 'EURUSD' : 'GBPUSD',
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().trade.id);
    }
    app.clock.set(start + 10_000);
    await app.pump();
    const [a, b] = await Promise.all([
      app.t.app.engine.settleDueTrades({ now: new Date(start + 10_000), batchSize: 7 }),
      app.t.app.engine.settleDueTrades({ now: new Date(start + 10_000), batchSize: 7 }),
    ]);
    const settledIds = [...a.settled, ...b.settled].map((s) => s.id).filter((id) => ids.includes(id));
    expect(settledIds.sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(settledIds).size).toBe(ids.length);
    const statuses = await app.t.db.selectFrom('trades').select('status').where('id', 'in', ids).execute();
    expect(statuses.every((s) => s.status !== 'active')).toBe(true);
    const settleEntries = await app.t.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(
        'reference',
        'in',
        ids.map((id) => `trade:${id}:settle`),
      )
      .executeTakeFirstOrThrow();
    const credited = [...a.settled, ...b.settled].filter((s) => ids.includes(s.id) && s.creditCents > 0).length;
    expect(Number(settleEntries.n)).toBe(credited);
    await expectLedgerConsistent(app.t);
  });
});

describe.each(dbKinds())('settlement safety on %s', (kind) => {
  let app: TradingTestApp;
  let client: TestClient;

  beforeAll(async () => {
    app = await createTradingApp(kind, [
      { t: 0, symbol: 'EURUSD', price: '1.10000' },
      { t: 2000, symbol: 'EURUSD', price: '1.10100' },
    ]);
    client = await registerClient(app.t);
    await fund(app.t, client.accountId, 1_000_000);
    app.clock.set(T0 + 1000);
    await app.pump();
  });
  afterAll(() => app.close());
  // D3: after every test that moves money, each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(app.t));

  async function openTrades(n: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await placeTrade(app.t, client.token, {
        direction: i % 2 ? 'call' : 'put',
        amount: 1 + (i % 5),
        duration: 5,
        asset: 'EURUSD',
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().trade.id);
    }
    return ids;
  }

  it('rolls a failed batch back whole and settles the rest one by one; the failed trade settles once fixed', async () => {
    const ids = await openTrades(6);
    const poisoned = ids[2]!;
    // Something goes wrong while one trade is written (a crash, a lost connection): its batch must leave no trace.
    await sql`create function fail_one_trade() returns trigger language plpgsql as $$
      begin
        if new.id = ${sql.lit(poisoned)} and new.status <> 'active' then raise exception 'simulated failure'; end if;
        return new;
      end $$`.execute(app.t.db);
    await sql`create trigger fail_one_trade before update on trades for each row execute function fail_one_trade()`.execute(
      app.t.db,
    );
    const balanceBefore = await balanceCents(app.t, client.accountId);

    const report = await app.settleAt(T0 + 10_000);
    expect(report.failed).toBe(1);
    expect(report.settled.map((s) => s.id).sort((a, b) => a - b)).toEqual(ids.filter((id) => id !== poisoned));
    const row = await app.t.db
      .selectFrom('trades')
      .select('status')
      .where('id', '=', poisoned)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
    const settleEntry = await app.t.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('reference', '=', `trade:${poisoned}:settle`)
      .executeTakeFirst();
    expect(settleEntry).toBeUndefined();
    await expectLedgerConsistent(app.t);

    await sql`drop trigger fail_one_trade on trades`.execute(app.t.db);
    await sql`drop function fail_one_trade()`.execute(app.t.db);
    const retry = await app.settleAt(T0 + 11_000);
    expect(retry.settled.map((s) => s.id)).toEqual([poisoned]);
    const credited = [...report.settled, ...retry.settled].reduce((sum, s) => sum + s.creditCents, 0);
    expect(await balanceCents(app.t, client.accountId)).toBe(balanceBefore + credited);
    await expectLedgerConsistent(app.t);
  });

  it('settles each trade once when two server processes run settlement at the same moment', async () => {
    const ids = await openTrades(120);
    // A second process: on PostgreSQL its own connection pool to the same database; the embedded database admits
    // one process, so there the two runs share it (and its one connection).
    const other =
      kind === 'postgres'
        ? await openDb({ databaseUrl: app.t.url!, dataDir: 'memory', poolSize: 5 })
        : { db: app.t.db, close: async () => {} };
    try {
      const now = new Date(app.clock.now() + 10_000);
      app.clock.set(now.getTime());
      await app.pump();
      const [a, b, c] = await Promise.all([
        settleDueTrades({ db: app.t.db }, { now, batchSize: 10 }),
        settleDueTrades({ db: other.db }, { now, batchSize: 10 }),
        settleDueTrades({ db: other.db }, { now, batchSize: 25 }),
      ]);
      const all = [...a.settled, ...b.settled, ...c.settled].map((s) => s.id);
      expect(all.sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
      // Both processes did part of the work (SKIP LOCKED hands them different trades instead of making one wait).
      expect(a.settled.length).toBeGreaterThan(0);
      expect(b.settled.length + c.settled.length).toBeGreaterThan(0);
      expect(a.failed + b.failed + c.failed).toBe(0);
      const refs = await app.t.db
        .selectFrom('ledger_entries')
        .select(['reference'])
        .where(
          'reference',
          'in',
          ids.map((id) => `trade:${id}:settle`),
        )
        .execute();
      expect(refs.length).toBe(new Set(refs.map((r) => r.reference)).size);
      expect(refs.length).toBe([...a.settled, ...b.settled, ...c.settled].filter((s) => s.creditCents > 0).length);
    } finally {
      await other.close();
    }
    await expectLedgerConsistent(app.t);
  });
});

describe.each(dbKinds())('the engine as main.ts starts it, on %s', (kind) => {
  it('settles at start a trade that expired while the server was down, then keeps settling on its timer', async () => {
    // Real time and real timers here, as in production: a replay file that holds EURUSD at 1.20000.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-'));
    fs.writeFileSync(path.join(dir, 'ticks.csv'), 't_ms,symbol,price\n0,EURUSD,1.20000\n');
    const t = await createTestApp(kind, {
      PRICE_SOURCE: `replay:${path.join(dir, 'ticks.csv')}`,
      SETTLEMENT_INTERVAL_MS: '50',
      TRADE_DURATIONS: '1,5,300',
      LOGIN_RATE_PER_MINUTE: '100000',
    });
    const client = await registerClient(t);
    await fund(t, client.accountId, 10_000);
    const now = Date.now();
    // Before the outage: the price was 1.10000 when the trade opened and 1.15000 at its expiry, 10 s ago.
    await t.db
      .insertInto('price_ticks')
      .values([
        { symbol: 'EURUSD', price: '1.10000', at: new Date(now - 20_000) },
        { symbol: 'EURUSD', price: '1.15000', at: new Date(now - 12_000) },
      ])
      .execute();
    const trade = await t.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('trades')
        .values({
          account_id: client.accountId,
          asset: 'EURUSD',
          direction: 'call',
          amount_cents: 1000,
          duration_seconds: 10,
          payout_percentage: 85,
          strike_price: '1.10000',
          strike_at: new Date(now - 20_000),
          created_at: new Date(now - 20_000),
          expires_at: new Date(now - 10_000),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await postEntry(trx, {
        accountId: client.accountId,
        kind: 'trade_stake',
        amountCents: -1000,
        reference: `trade:${row.id}:stake`,
        actor: null,
      });
      return row;
    });

    await t.app.engine.start();
    await vi.waitFor(
      async () => {
        const row = await t.db
          .selectFrom('trades')
          .select(['status', 'close_price'])
          .where('id', '=', trade.id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ status: 'won', close_price: expect.stringMatching(/^1\.150*$/) });
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(await balanceCents(t, client.accountId)).toBe(10_000 + 850);

    // A trade placed now settles on the worker's own timer once it expires, at the replayed 1.20000: a tie.
    const placed = await placeTrade(t, client.token, { direction: 'put', amount: 5, duration: 1, asset: 'EURUSD' });
    expect(placed.statusCode, placed.body).toBe(201);
    await vi.waitFor(
      async () => {
        const row = await t.db
          .selectFrom('trades')
          .select('status')
          .where('id', '=', placed.json().trade.id)
          .executeTakeFirstOrThrow();
        expect(row.status).toBe('tie');
      },
      { timeout: 10_000, interval: 50 },
    );
    await expectLedgerConsistent(t);
    await t.close(); // stops the worker and the feed, flushing buffered ticks
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
