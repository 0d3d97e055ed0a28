/**
 * Money and trading engine benchmark (issue 3). Two questions, each answered against a baseline measured in the same
 * run on the same database:
 *
 * 1. place-trade over real HTTP — the app listening on a local port, requests on keep-alive connections — one at a
 *    time and many at once: throughput and p50/p99 latency. Baseline: the very SQL the place-trade service runs
 *    (ledger's tradeStakeStatement, compiled by the same builder: lock the account row, check it, move the balance
 *    and note the activity, insert the trade and the stake's ledger entry — one statement), sent straight over a raw
 *    pg connection (PGlite: straight to the PGlite instance), at the same concurrency. The ratio is what HTTP,
 *    Fastify, the session check, validation, the idempotency wrapper and the live events cost on top of the database
 *    work. Ours and the baseline run in alternating blocks (BENCH_BLOCKS, default 8 of each, after a warm-up block of
 *    each), their calls and times summed per side, so neither is measured colder than the other and a drift of the
 *    machine during the run weighs on both alike.
 * 2. Settlement of 100,000 trades expiring at the same moment by the engine's worker (batches, SKIP LOCKED, the
 *    shared outcome rule, one ledger entry per credited trade) against one plain set-based SQL statement doing the
 *    same state change (trades closed, payout and refund entries with their running balance_after, balances moved).
 *    The worker's figure is its settlement committed; a third line adds the live events it then sends (trade.settled
 *    per trade, balance.changed per account), work the statement does not do.
 * 3. The price log (issue 30, D27): ticks appended per second by the feed's statement (storeTicks: the ticks, their
 *    leaf indexes, symbol counts and leaf hashes, the watermark), in batches of BENCH_TICK_BATCH (default 1,000),
 *    against the same batches inserted into a table of price_ticks' shape and index without the log (one INSERT …
 *    SELECT FROM unnest), alternated; a second line adds a signed head after every batch (the internal nodes hashed and
 *    written, the root signed: what the feed does once a second). BENCH_TICKS (default 200,000) ticks per side. Then
 *    the proof of one settled trade (price-log/proof.ts tradeProof, as the route builds it) for BENCH_PROOFS (default
 *    500) trades of the settlement set, one at a time: p95 against the 10 ms target (the baseline column is the
 *    target; ratio ≤ 1 is within it), with the contract audit of the same trades for scale.
 *
 *   npm run bench:trading                                                   # embedded PGlite
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:trading
 *
 * With BENCH_DATABASE_URL the bench creates its own database next to the one named (and drops it at the end).
 * BENCH_TRADES (default 2000) sets the number of HTTP trades per side of a measurement, BENCH_SETTLE (default 100000)
 * the settlement size.
 * BENCH_ONLY=settle runs only the settlement part, BENCH_ONLY=place only the place-trade part; BENCH_SETTLE_BATCH sets
 * the worker's batch size (default: the engine's), BENCH_SETTLE_LANES its lanes (default: the engine's for the
 * database). BENCH_COUNT_QUERIES=1 prints how many statements the app sent per place-trade request (counted through
 * the pool's query method). BENCH_STAGES=1 (PostgreSQL) prints where one call's time goes inside the server, by stage.
 *
 * To show where place-trade's time goes, the bench also measures, one call at a time: the same call to a bare Fastify
 * route (the HTTP floor), the calls from a client process of their own (bench/http-client.ts; also 32 in flight), the
 * statement through the app's Kysely, the place-trade service called without HTTP, and a public GET through the app's
 * whole pipeline.
 * Then the design's floor: the same statement behind a bare Fastify route (no app code at all), one at a time and at
 * 32 in flight beside ours, and the raw statement with a 0.2 ms busy gap between calls beside none (what the
 * database's process costs when it has gone idle between two calls, as it does behind any HTTP server).
 */
import { randomBytes } from 'node:crypto';
import { fork } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.js';
import { migrate, type Db, type DbHandle } from '../apps/server/src/platform/db/index.js';
import { PGliteDialect } from '../apps/server/src/platform/db/pglite-dialect.js';
import type { Database } from '../apps/server/src/platform/db/types.js';
import { reconcile } from '../apps/server/src/modules/ledger/service.js';
import { storeTicks } from '../apps/server/src/modules/prices/feed-store.js';
import { settleDueTrades, settlementLanes } from '../apps/server/src/modules/trading/settlement.js';
import { publishHead } from '../apps/server/src/modules/price-log/publisher.js';
import type { PriceLogSigner } from '../apps/server/src/modules/price-log/keys.js';
import type { PriceTick } from '../apps/server/src/modules/prices/source.js';
import { tradeProof } from '../apps/server/src/modules/price-log/proof.js';
import { clientTradeAudit } from '../apps/server/src/modules/trading/audit.js';
import { ASSET_SYMBOLS } from '@brokerage/shared';
import { generateKeyPairSync } from 'node:crypto';
import { placeTrade } from '../apps/server/src/modules/trading/service.js';
import { testConfig } from '../apps/server/test/helpers.js';
import { fundAccount, placeTradeBody, stakeStatement } from './place-trade-calls.js';
import { benchSize, guardLoad, printMarkdown, report } from './support.js';

const TRADES = benchSize('BENCH_TRADES', 2000, 40);
const SETTLE = benchSize('BENCH_SETTLE', 100_000, 400);
const TICKS = benchSize('BENCH_TICKS', 200_000, 2_000);
const TICK_BATCH = benchSize('BENCH_TICK_BATCH', 1_000, 200);
const PROOFS = benchSize('BENCH_PROOFS', 500, 20);
const CONCURRENCY = 32;
const POOL = 10;
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
/** Statements sent through the app's pool (BENCH_COUNT_QUERIES=1, PostgreSQL only). */
let appQueries = 0;
/** BENCH_STAGES=1: the app's last statement, sent and answered (performance.now()), for the stage timings. */
const STAGES = process.env.BENCH_STAGES === '1';
let lastQuery = { sent: 0, done: 0 };

// ---------------------------------------------------------------- the database, opened here so the baseline can reach it raw

interface Raw {
  /** Runs one transaction of compiled statements on one connection; `next` builds each statement from the previous rows. */
  transaction(steps: ((prev: Record<string, unknown>[]) => CompiledQuery)[]): Promise<void>;
  /** One statement on its own (autocommit), answering its rows. */
  query(q: CompiledQuery): Promise<Record<string, unknown>[]>;
  exec(text: string): Promise<void>;
  close(): Promise<void>;
}

async function openBenchDb(): Promise<{ handle: DbHandle; raw: Raw; url?: string; label: string }> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    const pglite = new PGlite({ extensions: { pg_trgm } });
    await pglite.waitReady;
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    await migrate(db);
    // PGlite is one connection: the baseline's transactions queue on the instance itself, as the app's do.
    let queue: Promise<unknown> = Promise.resolve();
    const raw: Raw = {
      transaction(steps) {
        const run = queue.then(() =>
          pglite.transaction(async (tx) => {
            let prev: Record<string, unknown>[] = [];
            for (const step of steps) {
              const q = step(prev);
              prev = (await tx.query<Record<string, unknown>>(q.sql, q.parameters as unknown[])).rows;
            }
          }),
        );
        queue = run.catch(() => {});
        return run;
      },
      query(q) {
        const run = queue.then(
          async () => (await pglite.query<Record<string, unknown>>(q.sql, q.parameters as unknown[])).rows,
        );
        queue = run.catch(() => {});
        return run;
      },
      async exec(text) {
        await pglite.exec(text);
      },
      async close() {},
    };
    return {
      handle: { db, kind: 'pglite', close: () => db.destroy() },
      raw,
      label: `PGlite ${(await pglite.query<{ v: string }>('select version() as v')).rows[0]!.v.split(' ')[1]}`,
    };
  }
  const name = `bench_trading_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: POOL });
  if (process.env.BENCH_COUNT_QUERIES === '1' || STAGES) {
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        appQueries += 1;
        const sent = performance.now();
        const result = query(...args);
        if (STAGES && result instanceof Promise)
          void result.then(
            () => (lastQuery = { sent, done: performance.now() }),
            () => undefined,
          );
        return result;
      };
    });
  }
  // The bench drops its database at the end: an idle connection cut then is expected, not a crash.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db);
  const rawPool = new pg.Pool({ connectionString: url.toString(), max: POOL });
  rawPool.on('error', () => {});
  const raw: Raw = {
    async transaction(steps) {
      const client = await rawPool.connect();
      try {
        await client.query('begin');
        let prev: Record<string, unknown>[] = [];
        for (const step of steps) {
          const q = step(prev);
          prev = (await client.query(q.sql, q.parameters as unknown[])).rows;
        }
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
    },
    async query(q) {
      return (await rawPool.query(q.sql, q.parameters as unknown[])).rows;
    },
    async exec(text) {
      await rawPool.query(text);
    },
    async close() {
      await rawPool.end();
    },
  };
  return {
    handle: {
      db,
      kind: 'postgres',
      async close() {
        await db.destroy();
        const drop = new pg.Client({ connectionString: adminUrl });
        await drop.connect();
        await drop.query(`drop database if exists ${name} with (force)`);
        await drop.end();
      },
    },
    raw,
    url: url.toString(),
    label: `PostgreSQL ${version}`,
  };
}

// ---------------------------------------------------------------- HTTP on keep-alive connections

let agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
/** A new pool of keep-alive connections per phase: a socket left idle by an earlier phase may have been closed by the
 * server's keep-alive timeout, and a request sent on it would fail with ECONNRESET. */
function freshConnections(): void {
  agent.destroy();
  agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
}
let port = 0;
/** The few answer fields the bench reads. */
type Json = { access_token?: string; user?: { id: string }; total?: number } | null;
let ipCounter = 0;

/** Every request comes from its own address (X-Forwarded-For behind TRUST_PROXY=loopback), like real clients. */
function request(
  method: string,
  url: string,
  token?: string,
  body?: unknown,
  to: number = port,
): Promise<{ status: number; json: Json }> {
  ipCounter += 1;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: to,
        method,
        path: url,
        agent,
        headers: {
          'x-forwarded-for': `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

// ---------------------------------------------------------------- measuring

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

/** Calls `op` n times, `concurrency` at once, indices from `offset`: each call's latency and the time of them all. */
async function timeCalls(
  n: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
  offset = 0,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const t = performance.now();
        await op(offset + i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

function summarise(n: number, seconds: number, latencies: number[]): Run {
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { perSecond: n / seconds, p50: q(0.5), p99: q(0.99) };
}

async function measure(n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<Run> {
  freshConnections();
  const { latencies, seconds } = await timeCalls(n, concurrency, op);
  return summarise(n, seconds, latencies);
}

/** Blocks each side of a paired measurement is cut into (BENCH_BLOCKS). */
const BLOCKS = benchSize('BENCH_BLOCKS', 8, 2);

/**
 * Ours and its baseline measured in alternating blocks (a warm-up block of each at this concurrency, then ours,
 * baseline, ours, … BLOCKS of each), each side's calls, latencies and time summed over its blocks. A drift of the
 * machine or the database during the run (seen on one machine: the raw statement from 1.03 to 1.70 ms over the
 * bench) then weighs on both sides alike, where two phases one after the other laid it on whichever ran second, and
 * neither side is measured colder than the other. The keep-alive connections are opened once, in the warm-up.
 */
async function paired(
  n: number,
  concurrency: number,
  ours: (i: number) => Promise<void>,
  base: (i: number) => Promise<void>,
): Promise<{ ours: Run; base: Run }> {
  const [o, r] = await interleaved(n, concurrency, [ours, base]);
  return { ours: o!, base: r! };
}

/** As `paired`, for any number of sides: a block of each in turn, BLOCKS rounds, after a warm-up block of each. */
async function interleaved(n: number, concurrency: number, ops: ((i: number) => Promise<void>)[]): Promise<Run[]> {
  freshConnections();
  const block = Math.max(1, Math.ceil(n / BLOCKS));
  for (const op of ops) await timeCalls(block, concurrency, op);
  const sides = ops.map((op) => ({ op, seconds: 0, latencies: [] as number[], calls: 0 }));
  for (let b = 0; b < BLOCKS; b++) {
    for (const side of sides) {
      const run = await timeCalls(block, concurrency, side.op, (b + 1) * block);
      side.seconds += run.seconds;
      side.latencies.push(...run.latencies);
      side.calls += block;
    }
  }
  return sides.map((side) => summarise(side.calls, side.seconds, side.latencies));
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  guardLoad();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const file = path.join(dir, 'ticks.csv');
  fs.writeFileSync(file, 't_ms,symbol,price\n0,EURUSD,1.10000\n');
  const { handle, raw, label, url } = await openBenchDb();
  const db: Db = handle.db;
  const config = testConfig({
    PRICE_SOURCE: `replay:${file}`,
    TRADE_DURATIONS: '5,300',
    LOGIN_RATE_PER_MINUTE: '100000',
    TRUST_PROXY: 'loopback',
    // D27: the feed signs price log heads (settlement waits for them); a key of the run's own, no key file.
    PRICE_LOG_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    // On PostgreSQL the bus a server runs with: LISTEN/NOTIFY (every placed trade's events are a NOTIFY, and the
    // database's announcements keep the session cache), as in production.
    ...(url ? { DATABASE_URL: url } : {}),
  });
  const app = await buildApp({ config, database: handle });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  const now = T0 + 1000;
  app.engine.useClock(() => new Date(now));
  await app.engine.startPriceFeed({ timers: false });
  await app.engine.prices.pump();
  console.log(`database: ${label}; node ${process.version}; ${os.cpus().length} CPUs`);
  console.log(`server on 127.0.0.1:${port}, keep-alive HTTP, ${CONCURRENCY} requests in flight when concurrent`);

  // 64 client users registered over HTTP, each funded with $1,000,000 through the ledger.
  const clients: { token: string; userId: string; accountId: number }[] = [];
  for (let i = 0; i < 64; i++) {
    const email = `bench.${i}.${randomBytes(3).toString('hex')}@test.local`;
    const res = await request('POST', '/api/auth/register-client', undefined, {
      name: `Bench ${i}`,
      email,
      password: 'secret-123',
    });
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`register: ${res.status} ${JSON.stringify(res.json)}`);
    const userId = res.json!.user!.id;
    const account = await db
      .selectFrom('trading_accounts')
      .select('id')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    await fundAccount(db, Number(account.id), `bench:fund:${account.id}`);
    clients.push({ token: res.json!.access_token!, userId, accountId: Number(account.id) });
  }

  /** One place-trade call to the server on port `to` (by default the app). */
  const tradeOn = (to?: number) => async (i: number) => {
    const c = clients[i % clients.length]!;
    const res = await request('POST', '/api/trading/place-trade', c.token, placeTradeBody(i), to ?? port);
    if (res.status !== 201) throw new Error(`place-trade: ${res.status} ${JSON.stringify(res.json)}`);
  };
  const trade = tradeOn();
  // The very statement placeTrade sends (ledger's tradeStakeStatement: lock, check, trade, balance, stake entry — one
  // statement, atomic by itself, no explicit transaction), compiled by the same builder, run raw.
  const stake = (i: number) => stakeStatement(clients[i % clients.length]!.userId, i, now);
  const direct = async (i: number) => {
    const rows = await raw.query(stake(i).compile(db));
    if (rows[0]?.balance_after_cents == null) throw new Error('the raw statement placed no trade');
  };

  // BENCH_ONLY=settle skips the place-trade measurements (the settlement part alone).
  if (process.env.BENCH_ONLY !== 'settle') {
    // Warm-up (JIT, plans, connections), not measured; each paired measurement below also warms both sides first.
    await measure(1000, 8, trade);
    await measure(1000, 8, direct);

    console.log(`\nplace-trade (ours and the baseline in ${BLOCKS} alternating blocks each, summed)`);
    const seq = await paired(TRADES, 1, trade, direct);
    const seqOurs = seq.ours;
    const seqBase = seq.base;
    report(`place-trade one at a time, ${TRADES} trades: throughput`, seqOurs.perSecond, seqBase.perSecond, 'req/s');
    report('place-trade one at a time: p50 latency', seqOurs.p50, seqBase.p50, 'ms', 2);
    report('place-trade one at a time: p99 latency', seqOurs.p99, seqBase.p99, 'ms', 2);
    const par = await paired(TRADES, CONCURRENCY, trade, direct);
    report(
      `place-trade ${CONCURRENCY} in flight over 64 accounts: throughput`,
      par.ours.perSecond,
      par.base.perSecond,
      'req/s',
    );
    report(`place-trade ${CONCURRENCY} in flight: p50 latency`, par.ours.p50, par.base.p50, 'ms', 2);
    report(`place-trade ${CONCURRENCY} in flight: p99 latency`, par.ours.p99, par.base.p99, 'ms', 2);
    const mid = await paired(TRADES, 8, trade, direct);
    report('place-trade 8 in flight: throughput', mid.ours.perSecond, mid.base.perSecond, 'req/s');
    report('place-trade 8 in flight: p99 latency', mid.ours.p99, mid.base.p99, 'ms', 2);

    // The floor under ours: the same request and an answer of the same size over the same keep-alive HTTP to a bare
    // Fastify route (the framework alone: no hooks, no validation, no database). Ours can be no faster than the
    // statement plus this round trip, so the statement's p50 over (statement + floor) bounds the one-at-a-time ratio.
    const sample = await request('POST', '/api/trading/place-trade', clients[0]!.token, {
      direction: 'call',
      amount: 1,
      duration: 5,
      asset: 'EURUSD',
    });
    const canned = JSON.stringify(sample.json);
    const bare = Fastify();
    bare.post('/api/trading/place-trade', async (_req, reply) =>
      reply.code(201).type('application/json; charset=utf-8').send(canned),
    );
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const appPort = port;
    port = (bare.server.address() as AddressInfo).port;
    await measure(200, 1, trade);
    const floor = await measure(TRADES, 1, trade);
    port = appPort;
    await bare.close();
    // The same one-at-a-time calls from a client process of their own: the HTTP client's own work (building the
    // request, parsing the answer) then runs on the other core instead of between the server's turns. In alternating
    // blocks with the raw statement, as above.
    const child = fork(path.join(path.dirname(new URL(import.meta.url).pathname), 'http-client.ts'), [], {
      execArgv: ['--import', 'tsx'],
    });
    const ask = (n: number, concurrency: number) =>
      new Promise<{ seconds: number; latencies: number[] }>((resolve, reject) => {
        child.once('message', (m: { ok: boolean; error?: string; seconds: number; latencies: number[] }) =>
          m.ok ? resolve(m) : reject(new Error(m.error)),
        );
        child.send({ cmd: 'run', port, tokens: clients.map((c) => c.token), n, concurrency });
      });
    /** The child's calls and the raw statement in alternating blocks at one concurrency, summed per side. */
    const apartAt = async (concurrency: number): Promise<{ ours: Run; base: Run }> => {
      const block = Math.max(1, Math.ceil(TRADES / BLOCKS));
      await ask(block, concurrency);
      await timeCalls(block, concurrency, direct);
      const sides = [0, 1].map(() => ({ seconds: 0, latencies: [] as number[] }));
      for (let b = 0; b < BLOCKS; b++) {
        const o = await ask(block, concurrency);
        const r = await timeCalls(block, concurrency, direct, b * block);
        for (const [side, run] of [
          [sides[0]!, o],
          [sides[1]!, r],
        ] as const) {
          side.seconds += run.seconds;
          side.latencies.push(...run.latencies);
        }
      }
      const [ours, base] = sides.map((side) => summarise(block * BLOCKS, side.seconds, side.latencies));
      return { ours: ours!, base: base! };
    };
    await ask(Math.min(TRADES, 1000), 1);
    const apart = await apartAt(1);
    const apartPar = await apartAt(CONCURRENCY);
    child.send({ cmd: 'close' });
    report(
      'place-trade one at a time, client in its own process: throughput',
      apart.ours.perSecond,
      apart.base.perSecond,
      'req/s',
    );
    report(
      'place-trade one at a time, client in its own process: p50 latency',
      apart.ours.p50,
      apart.base.p50,
      'ms',
      2,
    );
    report(
      `place-trade ${CONCURRENCY} in flight, client in its own process: throughput`,
      apartPar.ours.perSecond,
      apartPar.base.perSecond,
      'req/s',
    );
    report(
      `place-trade ${CONCURRENCY} in flight, client in its own process: p99 latency`,
      apartPar.ours.p99,
      apartPar.base.p99,
      'ms',
      2,
    );

    // Where the rest goes, a layer at a time, one at a time beside the raw statement: the same statement run through
    // the app's Kysely (driver and builder), then the place-trade service itself called directly (no HTTP, no hooks).
    const deps = app.engine.tradingDeps();
    const viaKysely = async (i: number) => {
      const { rows } = await stake(i).execute(db);
      if (rows[0]?.balance_after_cents == null) throw new Error('the statement placed no trade');
    };
    const viaService = async (i: number) => {
      const c = clients[i % clients.length]!;
      await placeTrade(deps, db, c.userId, placeTradeBody(i));
    };
    await measure(500, 1, viaKysely);
    await measure(500, 1, viaService);
    const layerKysely = await measure(TRADES, 1, viaKysely);
    const layerService = await measure(TRADES, 1, viaService);
    const layerBase = await measure(TRADES, 1, direct);
    report('place-trade layers, p50: the statement through Kysely', layerKysely.p50, layerBase.p50, 'ms', 2);
    report('place-trade layers, p50: the service called directly', layerService.p50, layerBase.p50, 'ms', 2);
    // The app's request pipeline alone (helmet, the rate limit, the guard, the answer's schema): a public GET that
    // reads nothing, beside the bare Fastify route above.
    const pipeline = async () => {
      const res = await request('GET', '/api/trading/demo-settings');
      if (res.status !== 200) throw new Error(`demo-settings: ${res.status}`);
    };
    await measure(500, 1, pipeline);
    const layerPipeline = await measure(TRADES, 1, pipeline);
    report(
      'place-trade layers, p50: a public GET through the app vs the bare route',
      layerPipeline.p50,
      floor.p50,
      'ms',
      2,
    );

    // The design's floor: the very statement behind a bare Fastify route (no hooks, no schemas, no session, no
    // Kysely), answering its row, called over the same HTTP. What separates it from the raw statement is what any
    // HTTP server in front of this database pays on this machine; what separates ours from it is our code.
    const floorApp = Fastify();
    let floorCalls = 0;
    floorApp.post('/api/trading/place-trade', async (_req, reply) => {
      const rows = await raw.query(stake(floorCalls++).compile(db));
      return reply.code(201).send(rows[0]);
    });
    await floorApp.listen({ host: '127.0.0.1', port: 0 });
    const atFloor = tradeOn((floorApp.server.address() as AddressInfo).port);
    // Ours, the floor and the raw statement in the same alternating blocks, so each ratio compares like with like.
    const [oursSeq, floorSeq, rawSeq] = (await interleaved(TRADES, 1, [trade, atFloor, direct])) as [Run, Run, Run];
    const [oursPar, floorPar, rawPar] = (await interleaved(TRADES, CONCURRENCY, [trade, atFloor, direct])) as [
      Run,
      Run,
      Run,
    ];
    await floorApp.close();
    report(
      'place-trade one at a time vs the statement behind a bare Fastify route: throughput',
      oursSeq.perSecond,
      floorSeq.perSecond,
      'req/s',
    );
    report(
      `place-trade ${CONCURRENCY} in flight vs the statement behind a bare Fastify route: throughput`,
      oursPar.perSecond,
      floorPar.perSecond,
      'req/s',
    );
    report(
      `place-trade ${CONCURRENCY} in flight vs the statement behind a bare Fastify route: p99`,
      oursPar.p99,
      floorPar.p99,
      'ms',
      2,
    );
    console.log(
      `  (the statement behind a bare route keeps ${(floorSeq.perSecond / rawSeq.perSecond).toFixed(2)} of the raw ` +
        `statement's rate one at a time and ${(floorPar.perSecond / rawPar.perSecond).toFixed(2)} at ${CONCURRENCY} ` +
        `in flight; ours ${(oursSeq.perSecond / rawSeq.perSecond).toFixed(2)} and ` +
        `${(oursPar.perSecond / rawPar.perSecond).toFixed(2)}, in the same blocks; p99 at ${CONCURRENCY} in flight: ours ` +
        `${oursPar.p99.toFixed(2)} ms, the bare route ${floorPar.p99.toFixed(2)} ms, the raw statement ${rawPar.p99.toFixed(2)} ms)`,
    );
    // Why: the raw statement, one at a time, with the client busy for a moment between calls (as an HTTP server is
    // between the database's answer and the next call). The database's process waits idle in that moment, and a call
    // that finds it idle takes longer than one that follows at once.
    const gapped = async (gapMs: number): Promise<number> => {
      let spent = 0;
      const n = Math.min(TRADES, 1500);
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await direct(i);
        spent += performance.now() - t;
        const until = performance.now() + gapMs;
        while (performance.now() < until);
      }
      return spent / n;
    };
    await gapped(0);
    const noGap = await gapped(0);
    const withGap = await gapped(0.2);
    report('the raw statement after a 0.2 ms busy gap vs none: mean time', withGap, noGap, 'ms', 3);

    console.log(
      `  (HTTP floor: the same call to a bare Fastify route, no database: p50 ${floor.p50.toFixed(2)} ms, ` +
        `${floor.perSecond.toFixed(0)} req/s; statement p50 + floor = ${(seqBase.p50 + floor.p50).toFixed(2)} ms, ` +
        `so the one-at-a-time ratio can reach at most ~${(seqBase.p50 / (seqBase.p50 + floor.p50)).toFixed(2)} ` +
        `on this design; ours p50 is ${(seqOurs.p50 - seqBase.p50 - floor.p50).toFixed(2)} ms above that sum)`,
    );
    if (STAGES && label.startsWith('PostgreSQL')) {
      // Where one call's time goes inside the server, one at a time: request start (node's http.server.request.start)
      // -> the route's handler starts (Fastify's tracing channel) -> the statement sent -> its answer -> the response
      // handed to the socket (http.server.response.finish). The rest of the client's time is outside the server.
      const marks = new WeakMap<object, { start: number; handler: number }>();
      const sums = { parse: 0, toStatement: 0, statement: 0, after: 0, server: 0, client: 0 };
      let counted = 0;
      const onStart = (m: unknown) => {
        marks.set((m as { request: object }).request, { start: performance.now(), handler: 0 });
      };
      const onHandler = (m: unknown) => {
        const mark = marks.get((m as { request: { raw: object } }).request.raw);
        if (mark) mark.handler = performance.now();
      };
      const onFinish = (m: unknown) => {
        const mark = marks.get((m as { request: object }).request);
        if (!mark || !mark.handler || lastQuery.sent < mark.handler) return;
        const end = performance.now();
        counted += 1;
        sums.parse += mark.handler - mark.start;
        sums.toStatement += lastQuery.sent - mark.handler;
        sums.statement += lastQuery.done - lastQuery.sent;
        sums.after += end - lastQuery.done;
        sums.server += end - mark.start;
      };
      const handlerChannel = diagnostics.tracingChannel('fastify.request.handler');
      diagnostics.subscribe('http.server.request.start', onStart);
      diagnostics.subscribe('http.server.response.finish', onFinish);
      handlerChannel.start.subscribe(onHandler);
      const timed = await measure(TRADES, 1, async (i) => {
        const t = performance.now();
        await trade(i);
        sums.client += performance.now() - t;
      });
      diagnostics.unsubscribe('http.server.request.start', onStart);
      diagnostics.unsubscribe('http.server.response.finish', onFinish);
      handlerChannel.start.unsubscribe(onHandler);
      const rawRun = await measure(TRADES, 1, direct);
      const mean = (v: number) => (v / Math.max(1, counted)).toFixed(3);
      console.log(
        `  stages, one at a time (${counted} of ${TRADES} calls, mean ms): request to handler ${mean(sums.parse)}, ` +
          `handler to statement ${mean(sums.toStatement)}, statement ${mean(sums.statement)}, statement's answer ` +
          `to response written ${mean(sums.after)}; in the server ${mean(sums.server)}, at the client ` +
          `${(sums.client / TRADES).toFixed(3)} (${timed.perSecond.toFixed(0)} req/s); the raw statement alone ` +
          `${(1000 / rawRun.perSecond).toFixed(3)} ms a call`,
      );
    }
    if (process.env.BENCH_COUNT_QUERIES === '1') {
      const before = appQueries;
      const n = 200;
      await measure(n, 1, trade);
      console.log(
        `  (statements the app sent per place-trade, begin/commit included: ${((appQueries - before) / n).toFixed(2)})`,
      );
    }
    console.log('  (ratio: throughput ours/baseline — below 1 is the share of the bare SQL rate the HTTP API keeps;');
    console.log('   latency ours/baseline — how many times the bare SQL time a call takes end to end)');
  }

  if (process.env.BENCH_ONLY === 'place') {
    printMarkdown();
    agent.destroy();
    await app.close();
    await raw.close();
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }

  // Settle what the place-trade phase opened, so the settlement measurement starts from a clean slate.
  // Stored with the watermark, as the feed stores its ticks (D22: settlement waits for the watermark).
  await storeTicks(db, {
    ticks: [{ symbol: 'EURUSD', price: '1.10000', at: new Date(now + 10_000) }],
    watermark: new Date(now + 20_000),
    fence: null,
  });
  // D27: settlement waits for a signed head covering the tick after the expiry.
  await publishHead(db, app.engine.priceLogSigner, now + 20_000);
  await app.engine.settleDueTrades({ now: new Date(now + 20_000) });

  // ---------------------------------------------------------------- settlement of 100,000 trades expiring together
  console.log(`\nsettlement of ${SETTLE.toLocaleString('en')} trades expiring at the same moment`);
  const ACCOUNTS = 1000;
  const tag = randomBytes(3).toString('hex');
  const setupStart = performance.now();
  // 1000 funded accounts, written set-based (their users cannot sign in: the password hash is not a hash).
  await raw.exec(`
    insert into users (email, name, role, password_hash)
      select 'settle.' || g || '.${tag}@bench.local', 'Settle ' || g, 'client', '!' from generate_series(1, ${ACCOUNTS}) g;
    insert into clients (name, email, user_id)
      select u.name, u.email, u.id from users u where u.email like 'settle.%.${tag}@bench.local';
    insert into trading_accounts (client_id, user_id)
      select c.id, c.user_id from clients c where c.email like 'settle.%.${tag}@bench.local';
    create temp table bench_accounts as
      select a.id from trading_accounts a join clients c on c.id = a.client_id where c.email like 'settle.%.${tag}@bench.local';
    insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference)
      select id, 'deposit', 100000000, 100000000, 'bench:settle-fund:' || id from bench_accounts order by id;
    update trading_accounts set balance_cents = balance_cents + 100000000 where id in (select id from bench_accounts);`);

  // Two equal sets of trades, one expiring at E1 (settled by the engine), one at E2 (settled by the plain SQL); the
  // strikes around the close price give a mix of won, lost and tie. Stakes are posted with their running balance.
  const E1 = new Date(now + 60_000);
  const E2 = new Date(now + 120_000);
  for (const [expires, label2] of [
    [E1, 'engine'],
    [E2, 'sql'],
  ] as const) {
    await raw.exec(`
      create temp table new_trades_${label2} as
      with ins as (
        insert into trades (account_id, asset, direction, amount_cents, duration_seconds, payout_percentage,
                            strike_price, strike_at, expires_at, created_at, opened_log_size)
        select a.id, 'EURUSD', case when g % 2 = 0 then 'call' else 'put' end, 100 + (g % 50) * 100, 300, 85,
               1.10000 + ((g % 3) - 1) * 0.00010,
               -- the newest stored EURUSD tick and the log's size: the proofs measured below find their strike
               (select max(at) from price_ticks where symbol = 'EURUSD'), '${expires.toISOString()}',
               '${new Date(now).toISOString()}', (select size from price_log_state)
        from generate_series(0, ${SETTLE - 1}) g
        join (select id, row_number() over (order by id) - 1 as n from bench_accounts) a on a.n = g % ${ACCOUNTS}
        order by a.id, g
        returning id, account_id, amount_cents)
      select * from ins;
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference)
        select t.account_id, 'trade_stake', -t.amount_cents,
               a.balance_cents - sum(t.amount_cents) over (partition by t.account_id order by t.id),
               'trade:' || t.id || ':stake'
        from new_trades_${label2} t join trading_accounts a on a.id = t.account_id
        order by t.account_id, t.id;
      update trading_accounts a set balance_cents = a.balance_cents - s.total
        from (select account_id, sum(amount_cents) as total from new_trades_${label2} group by account_id) s
        where a.id = s.account_id;`);
  }
  await raw.exec(`analyze trades; analyze ledger_entries; analyze trading_accounts;`);
  await storeTicks(db, {
    ticks: [
      { symbol: 'EURUSD', price: '1.10000', at: new Date(E1.getTime() - 1000) },
      { symbol: 'EURUSD', price: '1.10000', at: new Date(E1.getTime() + 1000) },
    ],
    watermark: new Date(E1.getTime() + 1000),
    fence: null,
  });
  // The head the engine's settlement of E1 waits for (D27), signed before it settles (E1 + 2 s).
  await publishHead(db, app.engine.priceLogSigner, E1.getTime() + 1500);
  await storeTicks(db, {
    ticks: [
      { symbol: 'EURUSD', price: '1.10000', at: new Date(E2.getTime() - 1000) },
      { symbol: 'EURUSD', price: '1.10000', at: new Date(E2.getTime() + 1000) },
    ],
    watermark: new Date(E2.getTime() + 1000),
    fence: null,
  });
  const setupMismatches = await reconcile(db);
  if (setupMismatches.length) throw new Error(`setup does not reconcile: ${JSON.stringify(setupMismatches[0])}`);
  console.log(
    `  (setup: ${2 * SETTLE} trades with their stakes in ${((performance.now() - setupStart) / 1000).toFixed(1)} s)`,
  );

  // The engine's run, in its two parts: the settlement itself (every trade closed and its payout posted, committed),
  // then the live events (trade.settled per trade, balance.changed per account), which the statement has no part of.
  const engineStart = performance.now();
  const settled = await settleDueTrades(
    { db },
    {
      now: new Date(E1.getTime() + 2000),
      batchSize: process.env.BENCH_SETTLE_BATCH ? Number(process.env.BENCH_SETTLE_BATCH) : undefined,
      lanes: process.env.BENCH_SETTLE_LANES ? Number(process.env.BENCH_SETTLE_LANES) : settlementLanes(handle.kind),
    },
  );
  const engineSeconds = (performance.now() - engineStart) / 1000;
  await app.engine.announceSettled(settled);
  const withEventsSeconds = (performance.now() - engineStart) / 1000;
  if (settled.settled.length !== SETTLE) throw new Error(`engine settled ${settled.settled.length} of ${SETTLE}`);

  const settleAt = new Date(E2.getTime() + 2000).toISOString();
  const sqlStart = performance.now();
  await raw.exec(`
    begin;
    with due as (
      select t.id, t.account_id, t.direction, t.amount_cents, t.payout_percentage, t.strike_price,
             c.price as close_price, c.at as close_at
      from trades t
      cross join lateral (
        select p.price, p.at from price_ticks p
        where p.symbol = t.asset and p.at <= t.expires_at order by p.at desc, p.id desc limit 1) c
      where t.status = 'active' and t.expires_at <= '${settleAt}'
      for update of t
    ), outcome as (
      select *, case when close_price = strike_price then 'tie'
                     when (direction = 'call') = (close_price > strike_price) then 'won' else 'lost' end as result
      from due
    ), money as (
      select *, case result when 'won' then amount_cents + amount_cents * payout_percentage / 100
                            when 'tie' then amount_cents else 0 end as credit,
                case result when 'won' then amount_cents * payout_percentage / 100
                            when 'tie' then 0 else -amount_cents end as profit
      from outcome
    ), closed as (
      update trades t set status = m.result, close_price = m.close_price, close_at = m.close_at,
                          profit_cents = m.profit, settled_at = '${settleAt}'
      from money m where t.id = m.id
    ), entries as (
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference)
      select m.account_id, case m.result when 'won' then 'trade_payout' else 'trade_refund' end, m.credit,
             a.balance_cents + sum(m.credit) over (partition by m.account_id order by m.id),
             'trade:' || m.id || ':settle'
      from money m join trading_accounts a on a.id = m.account_id
      where m.credit > 0
      order by m.account_id, m.id
    )
    update trading_accounts a set balance_cents = a.balance_cents + s.total, updated_at = now()
    from (select account_id, sum(credit) as total from money where credit > 0 group by account_id) s
    where a.id = s.account_id;
    commit;`);
  const sqlSeconds = (performance.now() - sqlStart) / 1000;
  const { left } = await db
    .selectFrom('trades')
    .select(sql<string>`count(*)`.as('left'))
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  if (Number(left) !== 0) throw new Error(`${left} trades left active after the set-based settlement`);

  const outcomes = await db
    .selectFrom('trades')
    .select(['status', sql<string>`count(*)`.as('n')])
    .where('expires_at', 'in', [E1, E2])
    .groupBy('status')
    .orderBy('status')
    .execute();
  report(
    `settle ${SETTLE} trades, engine worker vs one set-based statement`,
    SETTLE / engineSeconds,
    SETTLE / sqlSeconds,
    'trades/s',
    0,
  );
  report(`settle ${SETTLE} trades: wall time`, engineSeconds, sqlSeconds, 's', 2);
  report(`settle ${SETTLE} trades: wall time with the live events`, withEventsSeconds, sqlSeconds, 's', 2);
  console.log(`  (outcomes over both sets: ${outcomes.map((o) => `${o.status} ${o.n}`).join(', ')})`);

  await priceLogBench(db, app.engine.priceLogSigner, E2.getTime() + 10_000);
  await proofBench(db, E1);

  const mismatches = await reconcile(db);
  console.log(
    `\nreconcile after the run: ${mismatches.length === 0 ? 'every balance equals its ledger' : JSON.stringify(mismatches.slice(0, 3))}`,
  );
  printMarkdown();
  agent.destroy();
  await app.close();
  await raw.close();
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (mismatches.length) process.exit(1);
}

// ---------------------------------------------------------------- the price log (issue 30, D27)

/**
 * Ticks appended per second by the price log against a plain insert of the same batches, alternated batch by batch
 * (so a drift of the machine weighs on both). Ours: storeTicks, the feed's statement (each tick's leaf index, symbol
 * count and leaf hash, the watermark); then the same with a signed head after each batch (publishHead: the internal
 * nodes hashed and written, the root signed). Baseline: the batch into a table of price_ticks' shape and index
 * (bench_plain_ticks), one INSERT … SELECT FROM unnest, through the same Kysely connection. Ticks of every symbol of
 * the catalogue, times after `from` (past every watermark so far).
 */
async function priceLogBench(db: Db, signer: PriceLogSigner, from: number): Promise<void> {
  console.log(`\nprice log: ${TICKS.toLocaleString('en')} ticks per side in batches of ${TICK_BATCH}`);
  await sql`create table bench_plain_ticks (id bigserial primary key, symbol text not null,
            price numeric not null check (price > 0), at timestamptz not null)`.execute(db);
  await sql`create index bench_plain_ticks_symbol_at on bench_plain_ticks (symbol, at desc, id desc)`.execute(db);
  let at = from;
  const batch = (): PriceTick[] =>
    Array.from({ length: TICK_BATCH }, (_, i) => ({
      symbol: ASSET_SYMBOLS[i % ASSET_SYMBOLS.length]!,
      price: (1 + (at % 1000) / 10_000).toFixed(5),
      at: new Date((at += 1)),
    }));
  const plain = async (ticks: PriceTick[]) => {
    await sql`insert into bench_plain_ticks (symbol, price, at)
      select v.symbol, v.price, v.at
      from unnest(${ticks.map((t) => t.symbol)}::text[], ${ticks.map((t) => t.price)}::numeric[],
                  ${ticks.map((t) => t.at.toISOString())}::timestamptz[]) with ordinality as v(symbol, price, at, n)
      order by v.n`.execute(db);
  };
  const logged = async (ticks: PriceTick[], head: boolean) => {
    const stored = await storeTicks(db, { ticks, watermark: ticks[ticks.length - 1]!.at, fence: null });
    if (stored.stored !== ticks.length) throw new Error(`price log: stored ${stored.stored} of ${ticks.length}`);
    if (head) await publishHead(db, signer, ticks[ticks.length - 1]!.at.getTime());
  };
  const rounds = Math.max(1, Math.floor(TICKS / TICK_BATCH));
  for (const head of [false, true]) {
    let ours = 0;
    let base = 0;
    // One warm-up batch of each, not counted.
    await logged(batch(), head);
    await plain(batch());
    for (let r = 0; r < rounds; r++) {
      const a = batch();
      const b = batch();
      const t0 = performance.now();
      await logged(a, head);
      const t1 = performance.now();
      await plain(b);
      base += performance.now() - t1;
      ours += t1 - t0;
    }
    const n = rounds * TICK_BATCH;
    report(
      head
        ? 'price log: ticks appended per second with a signed head per batch vs plain tick insert'
        : 'price log: ticks appended per second vs plain tick insert',
      n / (ours / 1000),
      n / (base / 1000),
      'ticks/s',
      0,
    );
  }
  await sql`drop table bench_plain_ticks`.execute(db);
}

/**
 * The proof of one settled trade, as GET /api/trading/trades/{id}/proof builds it (its scope lookup, the ticks and head
 * statement, the audit paths' subtree hashes in one load), one at a time for PROOFS trades of the engine's settlement
 * set: p95 against the 10 ms target; the contract audit of the same trades (GET …/audit) for scale.
 */
async function proofBench(db: Db, expiresAt: Date): Promise<void> {
  const sample = await db
    .selectFrom('trades')
    .innerJoin('trading_accounts as a', 'a.id', 'trades.account_id')
    .select(['trades.id', 'a.user_id'])
    .where('trades.expires_at', '=', expiresAt)
    .where('trades.status', '<>', 'active')
    .orderBy('trades.id')
    .limit(PROOFS)
    .execute();
  if (sample.length === 0) throw new Error('proof bench: no settled trade to prove');
  const time = async (op: (id: number, userId: string) => Promise<unknown>) => {
    const times: number[] = [];
    for (const row of sample) {
      const t = performance.now();
      await op(Number(row.id), row.user_id!);
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    return {
      p50: times[Math.floor(times.length * 0.5)]!,
      p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!,
    };
  };
  // One pass each to warm the caches and the plans.
  await time((id, userId) => tradeProof(db, id, { userId }));
  const proof = await time((id, userId) => tradeProof(db, id, { userId }));
  const audit = await time((id, userId) => clientTradeAudit(db, userId, id, new Date(), 'en'));
  console.log(`\nproof of one trade, ${sample.length} trades one at a time`);
  report('proof generation per trade p95 (baseline: the 10 ms target)', proof.p95, 10, 'ms', 2);
  console.log(
    `  (proof p50 ${proof.p50.toFixed(2)} ms; the contract audit of the same trades p50 ${audit.p50.toFixed(2)} ms, ` +
      `p95 ${audit.p95.toFixed(2)} ms)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
