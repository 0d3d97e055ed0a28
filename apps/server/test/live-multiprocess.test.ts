import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { freshDatabase } from './helpers.js';
import { connectLive } from './live-helpers.js';
import { fundUserAccount, startServerProcess, until, type ServerProcess } from './server-process.js';

/**
 * Several real server processes over one PostgreSQL (design.md §3, decisions.md D2, D3, D11): `node --import tsx
 * apps/server/src/main.ts`, as in production. One holds the price-feed lock; the others take its ticks from
 * LISTEN/NOTIFY. Trades, ticks and settlements cross processes; every trade settles exactly once, also after a crash.
 */
type Proc = ServerProcess;

function startProcess(env: Record<string, string>): Promise<Proc> {
  return startServerProcess(
    { WEB_DIST: '/nonexistent', DEMO_DATA: '0', LOGIN_RATE_PER_MINUTE: '100000', ...env },
    { tmpPrefix: 'brokerage-mp-' },
  );
}

async function registerClient(base: string): Promise<{ token: string; userId: string }> {
  const res = await fetch(`${base}/api/auth/register-client`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Trader', email: `mp.${randomUUID()}@test.local`, password: 'secret-123' }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { access_token: string; user: { id: string } };
  return { token: body.access_token, userId: body.user.id };
}

/** The messages of a process's JSON log lines (pino), in order. */
function logEntries(p: Proc): Record<string, unknown>[] {
  return p
    .output()
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}
const logMessages = (p: Proc): string[] => logEntries(p).map((e) => String(e.msg));
/** How many trades a process logged settling (the settlement worker's debug line, one per run that settled some). */
const settledCount = (p: Proc): number =>
  logEntries(p)
    .filter((e) => e.msg === 'trades settled')
    .reduce((n, e) => n + Number(e.settled), 0);

type PlaceResult = { status: number; id?: number };
async function place(base: string, token: string, key: string, duration = 2): Promise<PlaceResult> {
  const res = await fetch(`${base}/api/trading/place-trade`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
    body: JSON.stringify({ direction: 'call', amount: 10, duration, asset: 'EURUSD' }),
  });
  const body = (await res.json()) as { trade?: { id: number } };
  return { status: res.status, ...(body.trade ? { id: body.trade.id } : {}) };
}

describe.runIf(process.env.TEST_DATABASE_URL)('several server processes over PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let dir: string;
  let env: Record<string, string>;
  const procs: Proc[] = [];

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-mp-'));
    const file = path.join(dir, 'ticks.csv');
    // One constant price (the replay repeats it every second): every trade is a tie, so each has exactly one
    // settle entry (its refund) to count.
    fs.writeFileSync(file, 't_ms,symbol,price\n0,EURUSD,1.10000\n');
    env = {
      DATABASE_URL: database.url!,
      PRICE_SOURCE: `replay:${file}`,
      TRADE_DURATIONS: '2,3,300',
      SETTLEMENT_INTERVAL_MS: '200',
      FEED_LEADER_RETRY_MS: '500',
    };
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.kill();
    await database?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Every trade of the ids is settled, each with exactly one settle entry; the ledger reconciles. */
  async function expectSettledOnce(ids: number[]) {
    await until('every trade settled', async () => {
      const { n } = await database.db
        .selectFrom('trades')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', '=', 'active')
        .where('duration_seconds', '<', 300)
        .executeTakeFirstOrThrow();
      return Number(n) === 0;
    });
    const trades = await database.db.selectFrom('trades').select(['id', 'status']).where('id', 'in', ids).execute();
    expect(trades).toHaveLength(ids.length);
    expect(new Set(trades.map((t) => t.status))).toEqual(new Set(['tie']));
    const entries = await sql<{ reference: string; n: string }>`
      select reference, count(*) as n from ledger_entries where reference like 'trade:%:settle' group by reference`.execute(
      database.db,
    );
    const byRef = new Map(entries.rows.map((r) => [r.reference, Number(r.n)]));
    for (const id of ids) expect(byRef.get(`trade:${id}:settle`), `trade ${id}`).toBe(1);
    expect(await reconcile(database.db)).toEqual([]);
  }

  it('runs one price feed, shares its ticks and the user events, and settles a burst exactly once', async () => {
    // Both log at debug, so each one's settlement runs ('trades settled', with a count) can be told apart. The
    // follower settles once at start-up (nothing is due yet) and then only after an hour (SETTLEMENT_INTERVAL_MS at
    // its maximum): within this test only the leader may settle, and the logs below prove that it did.
    const leader = await startProcess({ ...env, LOG_LEVEL: 'debug' });
    procs.push(leader);
    const follower = await startProcess({ ...env, LOG_LEVEL: 'debug', SETTLEMENT_INTERVAL_MS: '3600000' });
    procs.push(follower);
    // The first process took the feed lock (advisory lock 7342001) before it listened; the second did not get it.
    expect(logMessages(leader)).toContain('this process is now the leader');
    expect(logMessages(leader)).toContain('price feed started (leader)');
    expect(logMessages(follower)).not.toContain('this process is now the leader');
    expect(logMessages(follower).some((m) => m.startsWith('price feed started'))).toBe(false);

    const client = await registerClient(follower.url);
    await fundUserAccount(database.db, client.userId, 1_000_000);

    // A socket on the follower, which runs no feed: every tick it gets was produced by the leader.
    const socket = await connectLive(`${follower.ws}?token=${client.token}`);
    socket.send({ type: 'subscribe', assets: ['EURUSD'] });
    for (let i = 0; i < 3; i++) await socket.next((f) => f.type === 'tick', 10_000, 'tick');
    const ticks = socket.frames.filter((f) => f.type === 'tick') as unknown as {
      symbol: string;
      price: number;
      at: string;
    }[];
    // Each one is a tick the leader's feed stored (the leader writes its ticks in batches, so wait for the write).
    await until('the ticks the follower relayed to be stored by the leader', async () => {
      for (const tick of ticks) {
        const row = await database.db
          .selectFrom('price_ticks')
          .select('price')
          .where('symbol', '=', tick.symbol)
          .where('at', '=', new Date(tick.at))
          .executeTakeFirst();
        if (!row || Number(row.price) !== tick.price) return false;
      }
      return true;
    });
    expect(logMessages(follower).some((m) => m.startsWith('price feed started'))).toBe(false);

    // The follower has prices only from the leader's ticks: a trade placed through it opens at one of them.
    await until(
      'a price on the follower',
      async () => (await place(follower.url, client.token, randomUUID(), 300)).status === 201,
    );
    // The burst goes through the leader: its trade.opened and (below) trade.settled events cross to the follower.
    const results = await Promise.all(Array.from({ length: 20 }, () => place(leader.url, client.token, randomUUID())));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = results.map((r) => r.id!);

    const settledIds = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const frame = await socket.next((f) => f.type === 'trade.settled', 30_000, 'trade.settled');
      settledIds.add((frame.payload as { trade: { id: number } }).trade.id);
    }
    expect([...settledIds].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(socket.frames.filter((f) => f.type === 'trade.opened')).toHaveLength(21);
    socket.close();
    // Every one of those results was produced by the leader: it logs each settlement run once its events are out,
    // so its count is awaited; it settled all 20, the follower none.
    await until('the leader to log its settlement runs', async () => settledCount(leader) >= 20);
    expect(settledCount(leader)).toBe(20);
    expect(settledCount(follower)).toBe(0);

    // Every strike is a tick the leader stored: one price for everyone (D2).
    const strikes = await sql<{ n: string }>`
      select count(*) as n from trades t
      where not exists (select 1 from price_ticks p where p.symbol = t.asset and p.at = t.strike_at and p.price = t.strike_price)`.execute(
      database.db,
    );
    expect(Number(strikes.rows[0]!.n)).toBe(0);
    await expectSettledOnce(ids);

    // The leader stops; the follower takes the feed over (its trades keep getting fresh prices).
    await leader.stop();
    procs.splice(procs.indexOf(leader), 1);
    const before = await database.db
      .selectFrom('price_ticks')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirstOrThrow();
    await until('the follower to take over the feed', async () => {
      const row = await database.db
        .selectFrom('price_ticks')
        .select('id')
        .where('id', '>', String(before.max ?? 0))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    });
    expect((await place(follower.url, client.token, randomUUID())).status).toBe(201);
    await follower.stop();
    procs.splice(procs.indexOf(follower), 1);
  }, 180_000);

  it('keeps every acknowledged trade exactly once and settles every due trade once after a SIGKILL', async () => {
    const first = await startProcess(env);
    procs.push(first);
    const client = await registerClient(first.url);
    await fundUserAccount(database.db, client.userId, 1_000_000);
    await until('a price', async () => (await place(first.url, client.token, randomUUID(), 300)).status === 201);

    // Trades keep coming, four at a time, while earlier ones fall due; the process is killed mid-stream.
    const keys: string[] = [];
    const acknowledged = new Map<string, number>();
    let killed = false;
    const stream = (async () => {
      while (!killed) {
        const batch = Array.from({ length: 4 }, () => randomUUID());
        keys.push(...batch);
        await Promise.all(
          batch.map(async (key) => {
            try {
              const r = await place(first.url, client.token, key);
              if (r.status === 201) acknowledged.set(key, r.id!);
            } catch {
              // Connection lost: unknown whether it was committed; retried below with the same key.
            }
          }),
        );
      }
    })();
    // Killed once the first process has settled some of them (so others are due, or falling due, at the kill).
    await until(
      'due trades',
      async () => {
        if (acknowledged.size < 40) return false;
        const row = await database.db
          .selectFrom('trades')
          .select('id')
          .where('status', '!=', 'active')
          .where('duration_seconds', '=', 2)
          .limit(1)
          .executeTakeFirst();
        return row !== undefined;
      },
      60_000,
    );
    await first.kill();
    killed = true;
    procs.splice(procs.indexOf(first), 1);
    await stream;

    const second = await startProcess(env);
    procs.push(second);
    // Acknowledged trades survived the crash.
    const ackIds = [...acknowledged.values()];
    const stored = await database.db.selectFrom('trades').select('id').where('id', 'in', ackIds).execute();
    expect(stored).toHaveLength(ackIds.length);
    // Every attempt retried with its key: the committed ones answer with the same trade, the others open now.
    const finalIds = new Map<string, number>();
    for (const key of keys) {
      const r = await until(`place ${key}`, async () => {
        const res = await place(second.url, client.token, key);
        return res.status === 201 ? res : false;
      });
      finalIds.set(key, r.id!);
      if (acknowledged.has(key)) expect(r.id).toBe(acknowledged.get(key));
    }
    expect(new Set(finalIds.values()).size).toBe(keys.length);
    const { n } = await database.db
      .selectFrom('trades as t')
      .innerJoin('trading_accounts as a', 'a.id', 't.account_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('a.user_id', '=', client.userId)
      .where('t.duration_seconds', '=', 2)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(keys.length);
    await expectSettledOnce([...finalIds.values()]);
    await second.stop();
    procs.splice(procs.indexOf(second), 1);
  }, 240_000);
});
