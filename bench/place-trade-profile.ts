/**
 * Where place-trade's CPU goes in the server (issue 12: "the profile that shows where the remaining time goes").
 * The app as bench:trading builds it (PostgreSQL, 64 funded clients signed in), the calls sent by bench/http-client.ts
 * from a process of its own, so the profile is the server process alone: PROFILE_WARM warm-up calls (default 5000),
 * then PROFILE_CALLS calls (default 20000) measuring the server's CPU per call (user and system, process.cpuUsage),
 * then as many again under node:inspector's sampling profiler (every 100 µs). Prints the CPU per call beside the CPU
 * a raw pg client spends on the very statement (the same calls), and the profile's self time per call by package
 * (node_modules/<package>, node:<module>, our files, the engine's own entries: writev, garbage collector, idle) and by
 * function. PROFILE_CONCURRENCY sets the calls in flight (default 1); PROFILE_OUT writes the .cpuprofile too (Chrome
 * DevTools opens it).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:profile
 */
import { randomBytes } from 'node:crypto';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.js';
import { migrate } from '../apps/server/src/platform/db/index.js';
import type { Database } from '../apps/server/src/platform/db/types.js';
import { testConfig } from '../apps/server/test/helpers.js';
import { fundAccount, stakeStatement } from './place-trade-calls.js';
import { benchSize, guardLoad, report } from './support.js';

const CALLS = benchSize('PROFILE_CALLS', 20_000, 200);
const WARM = benchSize('PROFILE_WARM', 5000, 50);
const CONCURRENCY = benchSize('PROFILE_CONCURRENCY', 1, 1);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A sample's place: the package under node_modules, a node: module, our file, or the engine's own entry. */
function where(frame: ProfileNode['callFrame']): string {
  const url = frame.url.replace(/^file:\/\//, '');
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return `node_modules/${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (url.startsWith('node:')) return url;
  if (url) return path.relative(path.resolve(path.dirname(new URL(import.meta.url).pathname), '..'), url);
  return frame.functionName || '(anonymous)';
}

function printSelfTimes(profile: Profile, calls: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    total += micros;
    const place = where(frame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
    // Line numbers of node_modules and node: code are its own; our TypeScript runs transformed (tsx), so not ours.
    const line = frame.url && !place.endsWith('.ts') ? `:${frame.lineNumber + 1}` : '';
    const fn = frame.url ? `${frame.functionName || '(anonymous)'} ${place}${line}` : place;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  });
  const show = (title: string, map: Map<string, number>, top: number) => {
    console.log(`\n${title} (self time, ms per call, share of the profile)`);
    for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(
        `${(micros / 1000 / calls).toFixed(4).padStart(9)}  ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`,
      );
  };
  console.log(`profiled: ${(total / 1000 / calls).toFixed(3)} ms of wall time per call, idle included`);
  show('by package or file', byPlace, 30);
  show('by function', byFunction, 30);
}

async function main(): Promise<void> {
  guardLoad();
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl)
    throw new Error('BENCH_DATABASE_URL is required (a PostgreSQL server the profile may create a database on)');
  const name = `bench_profile_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'));
  const child = fork(path.join(path.dirname(new URL(import.meta.url).pathname), 'http-client.ts'), [], {
    execArgv: ['--import', 'tsx'],
  });
  try {
    await migrate(db);
    const file = path.join(dir, 'ticks.csv');
    fs.writeFileSync(file, 't_ms,symbol,price\n0,EURUSD,1.10000\n');
    const config = testConfig({
      PRICE_SOURCE: `replay:${file}`,
      TRADE_DURATIONS: '5,300',
      LOGIN_RATE_PER_MINUTE: '100000',
      TRUST_PROXY: 'loopback',
      DATABASE_URL: url.toString(), // the bus a server runs with on PostgreSQL: LISTEN/NOTIFY
    });
    const app = await buildApp({ config, database: { db, kind: 'postgres', close: () => db.destroy() } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const now = Date.UTC(2026, 10, 23, 10, 0, 1);
    app.engine.useClock(() => new Date(now));
    await app.engine.startPriceFeed({ timers: false });
    await app.engine.prices.pump();

    const tokens: string[] = [];
    const userIds: string[] = [];
    for (let i = 0; i < 64; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/register-client',
        payload: {
          name: `Profile ${i}`,
          email: `profile.${i}.${randomBytes(3).toString('hex')}@test.local`,
          password: 'secret-123',
        },
      });
      const body = res.json<{ access_token: string; user: { id: string } }>();
      const account = await db
        .selectFrom('trading_accounts')
        .select('id')
        .where('user_id', '=', body.user.id)
        .executeTakeFirstOrThrow();
      await fundAccount(db, Number(account.id), `bench:profile-fund:${account.id}`);
      tokens.push(body.access_token);
      userIds.push(body.user.id);
    }
    const ask = (n: number) =>
      new Promise<{ seconds: number }>((resolve, reject) => {
        child.once('message', (m: { ok: boolean; error?: string; seconds: number }) =>
          m.ok ? resolve(m) : reject(new Error(m.error)),
        );
        child.send({ cmd: 'run', port, tokens, n, concurrency: CONCURRENCY });
      });

    await ask(WARM);
    // The CPU per call from a run without the profiler (its sampling thread would count too), then the profiled run.
    const cpu = process.cpuUsage();
    const run = await ask(CALLS);
    const used = process.cpuUsage(cpu);
    const session = new inspector.Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    await ask(CALLS);
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    console.log(
      `place-trade, ${CALLS} calls ${CONCURRENCY} at a time from a client process of its own: ` +
        `${(CALLS / run.seconds).toFixed(0)} req/s; the server's CPU per call ${((used.user + used.system) / 1000 / CALLS).toFixed(3)} ms ` +
        `(user ${(used.user / 1000 / CALLS).toFixed(3)}, system ${(used.system / 1000 / CALLS).toFixed(3)})`,
    );
    if (process.env.PROFILE_OUT) fs.writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));

    // Baseline: the CPU this process spends to send the very statement place-trade sends (compiled by the same
    // builder) over a raw pg pool and read its answer, the same number of calls at the same concurrency.
    const raw = new pg.Pool({ connectionString: url.toString(), max: 10 });
    raw.on('error', () => {});
    const direct = async (i: number) => {
      const q = stakeStatement(userIds[i % userIds.length]!, i, now).compile(db);
      const { rows } = await raw.query(q.sql, q.parameters as unknown[]);
      if (rows[0]?.balance_after_cents == null) throw new Error('the raw statement placed no trade');
    };
    const runDirect = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < n; i = next++) await direct(i);
        }),
      );
    };
    await runDirect(WARM);
    const rawCpu = process.cpuUsage();
    await runDirect(CALLS);
    const rawUsed = process.cpuUsage(rawCpu);
    await raw.end();
    report(
      "place-trade CPU per call: the server beside the raw statement's client",
      (used.user + used.system) / 1000 / CALLS,
      (rawUsed.user + rawUsed.system) / 1000 / CALLS,
      'ms',
      3,
    );
    printSelfTimes(profile as unknown as Profile, CALLS);
    await app.close();
  } finally {
    child.send({ cmd: 'close' });
    await db.destroy().catch(() => {});
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
