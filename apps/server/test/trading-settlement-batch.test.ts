import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { settleDueTrades } from '../src/modules/trading/settlement.js';
import { openDb } from '../src/platform/db/index.js';
import type { BusEvent } from '../src/platform/bus/index.js';
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

/**
 * Set-based settlement of a claimed batch (decisions.md D1, D3): many trades of one account settled in one batch must
 * leave the same ledger a trade-by-trade settlement would — one payout or refund entry per credited trade, none for a
 * lost one, each balance_after the running balance in trade order — and racing settlers settle each trade once.
 *
 * EURUSD: 1.10000 until 2 s, then 1.10020 (a call placed at 1 s wins, a put loses). GBPUSD: 1.29500 throughout (a tie).
 */
const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.10000' },
  { t: 0, symbol: 'GBPUSD', price: '1.29500' },
  { t: 1000, symbol: 'EURUSD', price: '1.10000' },
  { t: 1000, symbol: 'GBPUSD', price: '1.29500' },
  { t: 2000, symbol: 'EURUSD', price: '1.10020' },
  { t: 2000, symbol: 'GBPUSD', price: '1.29500' },
];

interface EntryRow {
  id: number;
  kind: string;
  amount: number;
  after: number;
  reference: string;
}

async function entriesOf(app: TradingTestApp, accountId: number): Promise<EntryRow[]> {
  const rows = await app.t.db
    .selectFrom('ledger_entries')
    .select(['id', 'kind', 'amount_cents', 'balance_after_cents', 'reference'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    amount: Number(r.amount_cents),
    after: Number(r.balance_after_cents),
    reference: r.reference,
  }));
}

/** Each entry's balance_after is the one before it plus its amount, and the last one is the balance. */
async function expectChain(app: TradingTestApp, accountId: number): Promise<void> {
  const entries = await entriesOf(app, accountId);
  let running = 0;
  for (const e of entries) {
    running += e.amount;
    expect(e.after, `balance_after of ${e.reference}`).toBe(running);
    expect(e.after).toBeGreaterThanOrEqual(0);
  }
  expect(await balanceCents(app.t, accountId)).toBe(running);
}

describe.each(dbKinds())('batch settlement on %s', (kind) => {
  let app: TradingTestApp;
  let alice: TestClient;
  let bob: TestClient;

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    alice = await registerClient(app.t, 'Alice');
    bob = await registerClient(app.t, 'Bob');
    await fund(app.t, alice.accountId, 100_000); // $1000
    await fund(app.t, bob.accountId, 50_000); // $500
  });
  afterAll(() => app.close());
  afterEach(() => expectLedgerConsistent(app.t));

  it('settles won, lost and tied trades of one account in one batch with a correct balance_after chain', async () => {
    app.clock.set(T0 + 1000);
    await app.pump();
    // Alice's trades interleaved with Bob's, so one batch holds several trades of each account.
    const plan = [
      { who: alice, direction: 'call', amount: 10, asset: 'EURUSD', expect: 'won' },
      { who: bob, direction: 'put', amount: 7, asset: 'EURUSD', expect: 'lost' },
      { who: alice, direction: 'put', amount: 20, asset: 'EURUSD', expect: 'lost' },
      { who: alice, direction: 'call', amount: 30, asset: 'GBPUSD', expect: 'tie' },
      { who: bob, direction: 'call', amount: 3, asset: 'EURUSD', expect: 'won' },
      { who: alice, direction: 'call', amount: 40, asset: 'EURUSD', expect: 'won' },
      { who: bob, direction: 'put', amount: 2.5, asset: 'GBPUSD', expect: 'tie' },
      { who: alice, direction: 'put', amount: 5, asset: 'GBPUSD', expect: 'tie' },
      { who: alice, direction: 'put', amount: 1, asset: 'EURUSD', expect: 'lost' },
    ] as const;
    const ids: number[] = [];
    for (const p of plan) {
      const res = await placeTrade(app.t, p.who.token, {
        direction: p.direction,
        amount: p.amount,
        duration: 5,
        asset: p.asset,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().trade.id);
    }
    const aliceBefore = await balanceCents(app.t, alice.accountId);
    const bobBefore = await balanceCents(app.t, bob.accountId);
    expect(aliceBefore).toBe(100_000 - (10 + 20 + 30 + 40 + 5 + 1) * 100);
    expect(bobBefore).toBe(50_000 - (7 + 3 + 2.5) * 100);

    const events: BusEvent[] = [];
    const unsubscribe = app.t.app.engine.bus.subscribe((e) => void events.push(e));
    // The feed has passed the expiry (T0 + 6 s); one batch (the default size) takes all nine trades.
    const report = await app.settleAt(T0 + 8000);
    unsubscribe();
    expect(report.failed).toBe(0);
    expect(report.settled.map((s) => s.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));

    const trades = await app.t.db
      .selectFrom('trades')
      .select(['id', 'status', 'profit_cents', 'close_price'])
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(trades.map((t) => [Number(t.id), t]));
    plan.forEach((p, i) => {
      const t = byId.get(ids[i]!)!;
      expect(t.status, `${p.direction} ${p.asset}`).toBe(p.expect);
      const stake = Math.round(p.amount * 100);
      const profit = p.expect === 'won' ? Math.floor((stake * 85) / 100) : p.expect === 'tie' ? 0 : -stake;
      expect(Number(t.profit_cents)).toBe(profit);
    });

    // Alice: won 10 → +18.50, won 40 → +74.00, ties 30 and 5 → stakes back, the two lost trades → nothing.
    expect(await balanceCents(app.t, alice.accountId)).toBe(aliceBefore + 1850 + 7400 + 3000 + 500);
    expect(await balanceCents(app.t, bob.accountId)).toBe(bobBefore + 555 + 250);

    // The settlement entries: one per credited trade, in trade order per account, payout for a win, refund for a tie.
    const aliceSettle = (await entriesOf(app, alice.accountId)).filter((e) => e.reference.endsWith(':settle'));
    const aliceIds = ids.filter((_, i) => plan[i]!.who === alice);
    const credited = aliceIds.filter((id) => byId.get(id)!.status !== 'lost');
    expect(aliceSettle.map((e) => e.reference)).toEqual(credited.map((id) => `trade:${id}:settle`));
    expect(aliceSettle.map((e) => e.kind)).toEqual(['trade_payout', 'trade_refund', 'trade_payout', 'trade_refund']);
    expect(aliceSettle.map((e) => e.amount)).toEqual([1850, 3000, 7400, 500]);
    // Sequential balance_after inside the batch: the locked balance plus the entries before it.
    expect(aliceSettle.map((e) => e.after)).toEqual([
      aliceBefore + 1850,
      aliceBefore + 1850 + 3000,
      aliceBefore + 1850 + 3000 + 7400,
      aliceBefore + 1850 + 3000 + 7400 + 500,
    ]);
    await expectChain(app, alice.accountId);
    await expectChain(app, bob.accountId);
    expect(await reconcile(app.t.db)).toEqual([]);

    // One hint per account, with the live-update sequence the batch raised it to (issue 21 §7), which every trade it
    // settled carries: the sockets read the trades and the balance from the database (live-resume.test.ts).
    const seqOf = async (accountId: number) =>
      Number(
        (
          await app.t.db
            .selectFrom('trading_accounts')
            .select('live_seq')
            .where('id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).live_seq,
      );
    const hints = events.flatMap((e) => (e.type === 'account.changed' ? [[e.account_id, e.seq]] : []));
    expect(hints.sort((a, b) => a[0]! - b[0]!)).toEqual(
      [
        [alice.accountId, await seqOf(alice.accountId)],
        [bob.accountId, await seqOf(bob.accountId)],
      ].sort((a, b) => a[0]! - b[0]!),
    );
    const stamped = await app.t.db
      .selectFrom('trades')
      .select(['account_id', 'live_seq'])
      .where('id', 'in', ids)
      .execute();
    for (const t of stamped) expect(Number(t.live_seq)).toBe(await seqOf(Number(t.account_id)));
    expect(events.some((e) => e.type === 'trade.settled' || e.type === 'balance.changed')).toBe(false);

    // A second run finds nothing to settle and writes nothing.
    const entriesAfter = (await entriesOf(app, alice.accountId)).length;
    const again = await app.settleAt(T0 + 9000);
    expect(again.settled.filter((s) => ids.includes(s.id))).toEqual([]);
    expect((await entriesOf(app, alice.accountId)).length).toBe(entriesAfter);
  });

  it('settles each trade once when two settlers race over the same due trades, while trades are placed', async () => {
    const start = T0 + 20_000;
    app.clock.set(start);
    await app.pump();
    const clients = [alice, bob];
    const ids: number[] = [];
    for (let i = 0; i < 80; i++) {
      const c = clients[i % 2]!;
      const res = await placeTrade(app.t, c.token, {
        direction: i % 3 ? 'call' : 'put',
        amount: 1 + (i % 4),
        duration: 5,
        asset: i % 5 ? 'EURUSD' : 'GBPUSD',
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().trade.id);
    }
    // A second settler: on PostgreSQL its own connection pool to the same database (another process); the embedded
    // database admits one process, so there the two share it.
    const other =
      kind === 'postgres'
        ? await openDb({ databaseUrl: app.t.url!, dataDir: 'memory', poolSize: 5 })
        : { db: app.t.db, close: async () => {} };
    try {
      const now = new Date(start + 10_000);
      app.clock.set(now.getTime());
      await app.pump();
      // Small batches, so each settler's batches hold trades of both accounts; a place-trade on the same accounts
      // meanwhile (accounts are locked in id order everywhere, so nothing deadlocks). The settlers split the trades
      // into lanes differently (by account_id % 2, % 3, one lane), so lanes of one meet the others' trades too.
      const [a, b, c, placed] = await Promise.all([
        settleDueTrades({ db: app.t.db }, { now, batchSize: 9, lanes: 2 }),
        settleDueTrades({ db: other.db }, { now, batchSize: 6, lanes: 3 }),
        settleDueTrades({ db: other.db }, { now, batchSize: 13 }),
        placeTrade(app.t, alice.token, { direction: 'call', amount: 1, duration: 300, asset: 'EURUSD' }),
      ]);
      expect(placed.statusCode, placed.body).toBe(201);
      expect(a.failed + b.failed + c.failed).toBe(0);
      const all = [...a.settled, ...b.settled, ...c.settled];
      expect(all.map((s) => s.id).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
      const statuses = await app.t.db.selectFrom('trades').select('status').where('id', 'in', ids).execute();
      expect(statuses.every((s) => s.status === 'won' || s.status === 'lost' || s.status === 'tie')).toBe(true);
      const refs = await app.t.db
        .selectFrom('ledger_entries')
        .select('reference')
        .where(
          'reference',
          'in',
          ids.map((id) => `trade:${id}:settle`),
        )
        .execute();
      expect(refs.length).toBe(all.filter((s) => s.creditCents > 0).length);
      expect(new Set(refs.map((r) => r.reference)).size).toBe(refs.length);
      await expectChain(app, alice.accountId);
      await expectChain(app, bob.accountId);
      expect(await reconcile(app.t.db)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
