import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { freshDatabase } from './helpers.js';
import {
  fundUserAccount,
  startServerProcess,
  until,
  untilNoActiveTrade,
  type ServerProcess,
} from './server-process.js';

/**
 * Proof by crash (issue 13 item 8). Real server processes (`node --import tsx apps/server/src/main.ts`, as in
 * production; two or three at a time) over one PostgreSQL database; trades with 2–3 s expiries keep coming through both while the leader —
 * the process that runs the price feed and settles — is killed with SIGKILL at random moments, at least KILLS times,
 * and a new process is started in its place each time. Afterwards: every trade whose place-trade was answered 2xx
 * exists, every trade settled exactly once (at most one payout or refund entry, and exactly the one its result
 * calls for), and the ledger reconciles.
 *
 * PostgreSQL only (the embedded database admits one process). With REQUIRE_PG=1 (CI) it must run.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 20);
if (process.env.REQUIRE_PG === '1' && !process.env.TEST_DATABASE_URL)
  throw new Error('REQUIRE_PG=1 but TEST_DATABASE_URL is not set: the crash test needs PostgreSQL');

interface Proc extends ServerProcess {
  isLeader(): boolean;
}

/** Every child this file spawned, so none outlives a failed test. */
const spawned: ChildProcess[] = [];
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
async function startProcess(env: Record<string, string>): Promise<Proc> {
  const proc = await startServerProcess(
    { WEB_DIST: '/nonexistent', LOG_LEVEL: 'info', DEMO_DATA: '0', ...env },
    { tmpPrefix: 'brokerage-crash-' },
  );
  spawned.push(proc.child);
  return { ...proc, isLeader: () => proc.output().includes('this process is now the leader') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(process.env.TEST_DATABASE_URL)('settlement survives SIGKILL of the settling process', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let dir: string;
  let env: Record<string, string>;
  const procs: Proc[] = [];

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-crash-'));
    // A price that moves every second (up, down, back), so trades are won, lost and tied.
    const rows = ['t_ms,symbol,price'];
    for (let s = 0; s < 600; s++) rows.push(`${s * 1000},EURUSD,${(1.1 + (((s * 7) % 5) - 2) / 10_000).toFixed(5)}`);
    fs.writeFileSync(path.join(dir, 'ticks.csv'), rows.join('\n'));
    env = {
      DATABASE_URL: database.url!,
      PRICE_SOURCE: `replay:${path.join(dir, 'ticks.csv')}`,
      TRADE_DURATIONS: '2,3,300',
      SETTLEMENT_INTERVAL_MS: '200',
      FEED_LEADER_RETRY_MS: '300',
      API_RATE_PER_MINUTE: '1000000',
      LOGIN_RATE_PER_MINUTE: '1000000',
    };
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.kill();
    for (const child of spawned) if (alive(child)) child.kill('SIGKILL');
    await database?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged trade and settles each exactly once across ${KILLS} kills`, async () => {
    // Three processes to start with, so that while a killed one's replacement starts up, the survivor that took
    // over is not alone and can itself be killed.
    procs.push(...(await Promise.all([startProcess(env), startProcess(env), startProcess(env)])));
    await until('a leader', async () => procs.some((p) => p.isLeader()));

    const reg = await fetch(`${procs[0]!.url}/api/auth/register-client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Crash Trader', email: `crash.${randomUUID()}@test.local`, password: 'secret-123' }),
    });
    expect(reg.status).toBe(201);
    const { access_token: token, user } = (await reg.json()) as { access_token: string; user: { id: string } };
    await fundUserAccount(database.db, user.id, 100_000_000);

    // Trades keep coming through whichever processes are up, two at a time.
    const acknowledged = new Set<number>();
    let attempts = 0;
    let lost = 0;
    let stop = false;
    /** Answers other than a success or a clean refusal, checked after the run (a throw here would end the stream). */
    const wrong: string[] = [];
    const place = async (p: Proc) => {
      attempts++;
      let status: number;
      let body: { trade?: { id: number }; code?: string };
      try {
        const res = await fetch(`${p.url}/api/trading/place-trade`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            direction: Math.random() < 0.5 ? 'call' : 'put',
            amount: 1 + Math.floor(Math.random() * 50),
            duration: Math.random() < 0.5 ? 2 : 3,
            asset: 'EURUSD',
          }),
          signal: AbortSignal.timeout(10_000),
        });
        status = res.status;
        body = (await res.json()) as typeof body;
      } catch {
        lost++; // the process died under the request: no answer, so no promise was made
        return;
      }
      if (status >= 200 && status < 300) acknowledged.add(body.trade!.id);
      // A process whose feed just changed hands may briefly have no fresh price: a refusal, not a failure.
      else if (status >= 500 && !(status === 503 && body.code === 'price_unavailable'))
        wrong.push(`${status} ${JSON.stringify(body)}`);
    };
    const stream = (async () => {
      while (!stop) {
        const live = procs.filter((p) => alive(p.child));
        await Promise.all(live.map((p) => place(p)));
        await sleep(20);
      }
    })();

    let kills = 0;
    const replacements: Promise<void>[] = [];
    while (kills < KILLS) {
      // The leader (the process running the feed and settling), once another process is up to take over.
      const leader = await until(
        'a leader and a process to take over',
        async () => {
          const live = procs.filter((p) => alive(p.child));
          return live.length >= 2 ? live.find((p) => p.isLeader()) : undefined;
        },
        60_000,
      );
      await sleep(200 + Math.random() * 800); // a random moment in its work
      await leader.kill();
      procs.splice(procs.indexOf(leader), 1);
      kills++;
      // A new process takes the dead one's place (started in the background; it joins when it serves).
      replacements.push(startProcess(env).then((p) => void procs.push(p)));
    }
    await Promise.all(replacements);
    await sleep(500);
    stop = true;
    await stream;

    expect(wrong, 'answers other than success or a clean refusal').toEqual([]);
    // Every acknowledged trade exists.
    const ids = [...acknowledged];
    expect(ids.length).toBeGreaterThan(KILLS);
    const stored = await database.db.selectFrom('trades').select('id').where('id', 'in', ids).execute();
    expect(stored).toHaveLength(ids.length);

    // Every trade settles (the surviving processes finish what the dead ones left), each exactly once.
    await untilNoActiveTrade(database.db, 'every short trade settled');
    const settles = await sql<{ id: string; status: string; n: string; kinds: string | null }>`
      select t.id::text as id, t.status, count(e.id)::text as n, string_agg(e.kind, ',') as kinds
      from trades t left join ledger_entries e on e.reference = 'trade:' || t.id || ':settle'
      group by t.id, t.status`.execute(database.db);
    const expected: Record<string, [number, string | null]> = {
      won: [1, 'trade_payout'],
      tie: [1, 'trade_refund'],
      lost: [0, null],
    };
    const byStatus: Record<string, number> = {};
    for (const r of settles.rows) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      expect(expected[r.status], `trade ${r.id} is ${r.status}`).toBeDefined();
      expect([Number(r.n), r.kinds], `trade ${r.id} (${r.status})`).toEqual(expected[r.status]);
    }
    expect(await reconcile(database.db)).toEqual([]);
    console.log(
      `crash test: ${kills} kills survived; ${ids.length} trades acknowledged of ${attempts} attempts ` +
        `(${lost} cut off by a kill); settled ${JSON.stringify(byStatus)}`,
    );
    for (const p of procs.splice(0)) await p.stop();
  }, 420_000);
});
