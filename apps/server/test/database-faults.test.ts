import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { MIGRATIONS, openDb } from '../src/platform/db/index.js';
import { createTestApp, dbKinds, freshDatabase, testConfig, type TestApp } from './helpers.js';
import { createPgCluster, type PgCluster } from './pg-cluster.js';
import { startServerProcess, until, type ServerProcess } from './server-process.js';

/**
 * Issue 21 §1, §5, §6 with real server processes over PostgreSQL: a busy connection terminated, PostgreSQL paused
 * (SIGSTOP) and PostgreSQL not yet started when a server starts. The pause and the late start use a cluster of this
 * test's own (pg-cluster.ts), so the shared server of the other tests is never disturbed.
 */
/** Server processes start in a few seconds, slower on a loaded machine. */
const SLOW = 120_000;
const BASE_ENV = { WEB_DIST: '/nonexistent', DEMO_DATA: '0', LOGIN_RATE_PER_MINUTE: '100000' };

function register(base: string, email = `fault.${randomUUID()}@test.local`, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/api/auth/register-client`, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ name: 'Fault', email, password: 'secret-123' }),
  });
}

const alive = (p: ServerProcess) => p.child.exitCode === null && p.child.signalCode === null;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // the test terminates and pauses its own connections' servers too
  await client.connect();
  return client;
}

describe.each(dbKinds())('health checks on %s (issue 21 §5)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /api/health is readiness (the database answered), GET /api/health/live liveness', async () => {
    const ready = await t.inject({ method: 'GET', url: '/api/health' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', db: 'ok', migrations: 'current', version: expect.any(String) });
    const live = await t.inject({ method: 'GET', url: '/api/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok', version: expect.any(String) });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('database faults (issue 21)', () => {
  describe('§1 busy connections terminated (PostgreSQL restart, failover, pg_terminate_backend)', () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let server: ServerProcess;

    beforeAll(async () => {
      database = await freshDatabase('postgres');
      server = await startServerProcess({ ...BASE_ENV, DATABASE_URL: database.url! });
    });
    afterAll(async () => {
      await server?.stop();
      await database?.close();
    });

    it(
      'answers the calls on the lost connections 503 with Retry-After, stays up, rolls them back and recovers',
      async () => {
        // Registrations held inside their transaction: the test locks the clients table, so each waits at its insert
        // with a checked-out connection (the state pg-pool leaves without an error listener).
        const locker = await connect(database.url!);
        await locker.query('begin');
        await locker.query('lock table clients in exclusive mode');
        const emails = [1, 2, 3].map((n) => `held${n}.${randomUUID()}@test.local`);
        const calls = emails.map((email) =>
          register(server.url, email).then(async (r) => ({ r, body: await r.json() })),
        );
        for (const call of calls) call.catch(() => undefined); // awaited below; an early failure is not unhandled
        await until('three registrations waiting on the lock', async () => {
          const { rows } = await locker.query<{ n: string }>(
            `select count(*) as n from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
          );
          return Number(rows[0]!.n) === 3;
        });

        // Every other connection of the database goes, as in a restart: the pool's, the bus's, the feed leader's.
        const { rows: killed } = await locker.query<{ pid: number }>(
          `with victims as materialized (
           select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid())
         select pid from victims where pg_terminate_backend(pid)`,
        );
        expect(killed.length).toBeGreaterThanOrEqual(3);
        await locker.query('rollback');

        for (const { r, body } of await Promise.all(calls)) {
          expect(r.status).toBe(503);
          expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(body).toMatchObject({ code: 'database_unavailable' });
          expect(String((body as { detail: string }).detail)).toMatch(/database is temporarily unavailable/);
        }
        const { rows: stored } = await locker.query('select 1 from users where email = any($1)', [emails]);
        expect(stored).toHaveLength(0); // their transactions were rolled back
        await locker.end();

        // The pool opens new connections by itself; the process never exited.
        const again = await until('a registration after the loss', async () => {
          const r = await register(server.url);
          return r.status === 201 ? r : undefined;
        });
        expect(again.status).toBe(201);
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
        expect(alive(server)).toBe(true);
        expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
      },
      SLOW,
    );
  });

  describe('§5 statement and request bounds', () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      database = await freshDatabase('postgres');
    });
    afterAll(async () => {
      await database?.close();
    });

    /** A registration held at its insert by a lock this test keeps on the clients table, through `app`. */
    async function heldRegistration(env: Record<string, string>, statementTimeoutMs: number) {
      const handle = await openDb({ databaseUrl: database.url!, dataDir: 'memory', poolSize: 3, statementTimeoutMs });
      const app = await buildApp({ config: testConfig(env), database: handle });
      await app.ready();
      const locker = await connect(database.url!);
      await locker.query('begin');
      await locker.query('lock table clients in exclusive mode');
      const email = `bound.${randomUUID()}@test.local`;
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/register-client',
        headers: { 'accept-language': 'en' },
        payload: { name: 'Bound', email, password: 'secret-123' },
      });
      await locker.query('rollback');
      await locker.end();
      return { res, email, handle, app };
    }

    it('a statement past DB_STATEMENT_TIMEOUT_MS: 503 with Retry-After, rolled back', async () => {
      const { res, email, handle, app } = await heldRegistration({}, 1000);
      expect(res.statusCode).toBe(503);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.json()).toMatchObject({ code: 'database_unavailable' });
      // Its transaction was rolled back.
      expect(await handle.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
      await app.close();
      await handle.close();
    });

    it('a request past REQUEST_TIMEOUT_MS: 503 with Retry-After; the work may still finish behind it', async () => {
      const { res, email, handle, app } = await heldRegistration({ REQUEST_TIMEOUT_MS: '1000' }, 0);
      expect(res.statusCode).toBe(503);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.json()).toEqual({ code: 'request_timeout', detail: expect.stringMatching(/^No answer within 1 s/) });
      // The answer does not stop the work: once the lock goes, the held registration commits (hence the detail's
      // advice to retry with the same Idempotency-Key).
      await until('the timed-out registration to finish', async () =>
        handle.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
      );
      await app.close();
      await handle.close();
    });
  });

  describe('a cluster of its own: late start (§6), two processes migrating (§6), a paused database (§5)', () => {
    let cluster: PgCluster;
    const servers: ServerProcess[] = [];
    /** Its requests time out after 3 s (REQUEST_TIMEOUT_MS); the pause test reuses it (one server start less). */
    const LATE_ENV = { REQUEST_TIMEOUT_MS: '3000' };
    let late: ServerProcess | undefined;

    beforeAll(async () => {
      cluster = await createPgCluster(); // initialised, not started
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await cluster?.destroy();
    });

    it(
      '§6: a server started before PostgreSQL waits for it (logging each try), then migrates and serves',
      async () => {
        let output = '';
        let triedOnce!: () => void;
        const waiting = new Promise<void>((resolve) => (triedOnce = resolve));
        const starting = startServerProcess(
          { ...BASE_ENV, ...LATE_ENV, DATABASE_URL: cluster.url, DB_STARTUP_WAIT_SECONDS: '60' },
          {
            onOutput: (text) => {
              output += text;
              if (output.includes('Waiting for the database')) triedOnce();
            },
          },
        );
        starting.catch(() => undefined); // awaited below; a failure before then must not be unhandled
        await Promise.race([waiting, starting]);
        expect(output).toMatch(/Waiting for the database \(try 1 failed: .*ECONNREFUSED/);
        await cluster.start();
        const server = await starting;
        servers.push(server);
        late = server;
        expect(server.output()).toMatch(/The database is answering \(after \d+ tries\)/);
        expect((await register(server.url)).status).toBe(201);
      },
      SLOW,
    );

    it(
      '§6: two processes started together on an empty database both come up; the migrations ran once',
      async () => {
        if (!cluster.running) await cluster.start();
        const admin = await connect(cluster.url);
        await admin.query('create database empty_start');
        await admin.end();
        const url = cluster.urlOf('empty_start');
        const pair = await Promise.all([0, 1].map(() => startServerProcess({ ...BASE_ENV, DATABASE_URL: url })));
        servers.push(...pair);
        const db = await connect(url);
        const { rows } = await db.query<{ name: string; n: string }>(
          'select name, count(*) as n from kysely_migration group by name order by name',
        );
        expect(rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());
        expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
        const { rows: users } = await db.query<{ n: string }>('select count(*) as n from users');
        expect(Number(users[0]!.n)).toBe(1); // one first superadmin: the bootstrap ran once too
        await db.end();
        for (const p of pair) expect((await fetch(`${p.url}/api/health`)).status).toBe(200);
      },
      SLOW,
    );

    it(
      '§5: paused PostgreSQL: readiness 503 within 2 s, liveness 200, requests answered 503, then resumed',
      async () => {
        if (!cluster.running) await cluster.start();
        const server = late ?? (await startServerProcess({ ...BASE_ENV, ...LATE_ENV, DATABASE_URL: cluster.url }));
        if (!late) servers.push(server);
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);

        await cluster.pause();
        try {
          const started = Date.now();
          // Bounded, so that the old behaviour (hanging for the whole pause) fails here rather than by the test timeout.
          const health = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(10_000) });
          const took = Date.now() - started;
          expect(health.status).toBe(503);
          expect(await health.json()).toMatchObject({ status: 'degraded', db: 'down' });
          expect(took).toBeLessThan(2000);

          const live = await fetch(`${server.url}/api/health/live`, { signal: AbortSignal.timeout(10_000) });
          expect(live.status).toBe(200);
          expect(await live.json()).toMatchObject({ status: 'ok' });

          // A call that needs the database is answered at a bound (REQUEST_TIMEOUT_MS, 3 s here, or the 5 s connect
          // bound of a connection being opened) instead of hanging for the whole pause.
          const held = await register(server.url, undefined, AbortSignal.timeout(10_000));
          expect(held.status).toBe(503);
          expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(await held.json()).toMatchObject({
            code: expect.stringMatching(/^(request_timeout|database_unavailable)$/),
          });
        } finally {
          await cluster.resume();
        }

        // Nothing restarts: the same connections and the same process go on.
        await until('readiness after the pause', async () => (await fetch(`${server.url}/api/health`)).status === 200);
        const after = await until('a registration after the pause', async () => {
          const r = await register(server.url);
          return r.status === 201 ? r : undefined;
        });
        expect(after.status).toBe(201);
        expect(alive(server)).toBe(true);
      },
      SLOW,
    );
  });
});
