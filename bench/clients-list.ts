/**
 * The client base at a million leads (issue 4): GET /api/clients over real HTTP (the app listening on a local port,
 * keep-alive connections, signed in as a superadmin) for the default view, a status filter, a search by part of a
 * name, a search by part of a phone and a deep page — p50 and p95 of each beside the same SQL's own time in the same
 * run: the statements the list sent for that request (captured from the app's query log: the exact count and the
 * page), replayed straight over raw pg connections the way the service runs them (both at once). Then the Excel
 * export of the whole base: time to the last byte, size, and the process's peak RSS sampled during the export.
 *
 *   npm run bench:clients -- postgres://postgres@127.0.0.1:5432/brokerage_bulk
 *   BENCH_DATABASE_URL=postgres://… npm run bench:clients
 *
 * The database is migrated; if it has no clients, it is first filled by seed:bulk (BENCH_CLIENTS, default 1,000,000).
 * The bench adds one superadmin (bench.admin.*@bench.local), soft-deleted at the end.
 *
 * The export (issue 12, item 5): ours is the real route, GET /api/clients/export/excel by the superadmin over HTTP,
 * timed to the last byte of the body (counted, not kept). Its baseline is exceljs alone: its streaming writer with the
 * export's own options (no styles, no shared strings, archiver's default zlib level, the same sheet, header and widths
 * from the export's `clientsSheet`) writing the same rows, converted the same way, read straight from a raw pg cursor
 * (FETCH 2000 at a time, no Kysely), into a byte counter — no HTTP, no app. BENCH_EXPORT_RUNS (default 3) runs of each,
 * alternated; the medians are printed as
 *   `export of <n> clients ours <t> s baseline <t> s ratio <ours / baseline>`
 *   `export memory ours <m> MB RSS peak above idle …` (the process's RSS sampled every 20 ms during ours).
 * BENCH_LIST=0 measures only the export; BENCH_EXPORT=0 skips it.
 *
 * BENCH_SMOKE=1 (CI): a database of its own next to the one named, 2,000 leads, 3 runs — proves the bench runs.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.js';
import { migrate } from '../apps/server/src/platform/db/index.js';
import type { Database } from '../apps/server/src/platform/db/types.js';
import { hashPassword } from '../apps/server/src/platform/auth/passwords.js';
import { seedBulk } from '../apps/server/src/seed/bulk.js';
import { clientsSheet, type ExportClientRow } from '../apps/server/src/modules/exports/service.js';
import { headerRange, useDateTimeCells } from '../apps/server/src/modules/exports/xlsx-stream.js';
import { testConfig } from '../apps/server/test/helpers.js';
import { benchSize, guardLoad, printMarkdown, report, SMOKE } from './support.js';

const given = process.argv[2] ?? process.env.BENCH_DATABASE_URL;
const RUNS = benchSize('BENCH_RUNS', 40, 3);
const SKIP_EXPORT = process.env.BENCH_EXPORT === '0';
/** BENCH_LIST=0: only the export (no list or dashboard probes). */
const SKIP_LIST = process.env.BENCH_LIST === '0';
const EXPORT_RUNS = benchSize('BENCH_EXPORT_RUNS', 3, 1);

interface Captured {
  sql: string;
  parameters: readonly unknown[];
}

let capture: Captured[] | null = null;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
let port = 0;
/** The few answer fields the bench reads. */
type Json = { access_token?: string; user?: { id: string }; total?: number } | null;

function request(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; sink?: boolean } = {},
): Promise<{ status: number; json: Json; bytes: number }> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          'x-forwarded-for': '10.20.30.40',
          'accept-language': 'ru',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (!opts.sink) chunks.push(c);
        });
        res.on('end', () => {
          const text = opts.sink ? '' : Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text && text[0] === '{' ? JSON.parse(text) : null, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

type Q = { p50: number; p95: number };

function quantiles(samples: number[]): Q {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5), p95: q(0.95) };
}

/**
 * Times `runs` alternations of the API call and its baseline (and an optional third probe), after 3 warm-up rounds,
 * one after the other so neither loads the other; answers p50/p95 of each in ms.
 */
async function alternate(runs: number, ...probes: (() => Promise<unknown>)[]) {
  for (let i = 0; i < 3; i++) for (const probe of probes) await probe();
  const samples = probes.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [k, probe] of probes.entries()) {
      const t = performance.now();
      await probe();
      samples[k]!.push(performance.now() - t);
    }
  }
  return samples.map(quantiles);
}

/** Under BENCH_SMOKE a throwaway database next to the one named (never the caller's own data); else the one named. */
async function benchDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!SMOKE) return { url, drop: async () => {} };
  const name = `bench_smoke_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function main(): Promise<void> {
  if (!given) {
    console.error('usage: npm run bench:clients -- postgres://… (or BENCH_DATABASE_URL): a PostgreSQL database');
    process.exit(2);
  }
  guardLoad();
  const target = await benchDatabase(given);
  const url = target.url;
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A smoke run drops its database at the end: an idle connection cut then is expected, not a crash.
  pool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (capture && event.level === 'query')
        capture.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  await migrate(db);
  const raw = new pg.Pool({ connectionString: url, max: 2 });
  raw.on('error', () => {});

  let { n } = await db
    .selectFrom('clients')
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  if (Number(n) === 0) {
    const clients = benchSize('BENCH_CLIENTS', 1_000_000, 2000);
    console.log(`the database has no clients: seeding ${clients.toLocaleString('en')} leads first`);
    const seeded = await seedBulk(db, { clients, progress: (l) => console.log(`  ${l}`) });
    console.log(`  seeded in ${seeded.seconds.toFixed(0)} s`);
    n = String(clients);
  }
  const version = (await raw.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
  console.log(
    `database: PostgreSQL ${version}, ${Number(n).toLocaleString('en')} clients; node ${process.version}; ${os.cpus().length} CPUs`,
  );

  const config = testConfig({ TRUST_PROXY: 'loopback', LOGIN_RATE_PER_MINUTE: '100000' });
  const app = await buildApp({ config, database: { db, kind: 'postgres', close: async () => {} } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;

  const email = `bench.admin.${randomBytes(4).toString('hex')}@bench.local`;
  const password = randomBytes(12).toString('base64url');
  const admin = await db
    .insertInto('users')
    .values({
      email,
      name: 'Bench Admin',
      role: 'superadmin',
      department: null,
      phone: null,
      password_hash: await hashPassword(password),
      deleted_at: null,
      last_login_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const login = await request('POST', '/api/auth/login', { body: { email, password } });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.json)}`);
  const token = login.json!.access_token!;

  // Search terms taken from the data: part of a common surname, and four digits from the middle of a phone.
  const cases: [string, string][] = [
    ['default view (newest first, page 1 of 50)', ''],
    ['status filter (potential)', 'status=potential'],
    ['search by part of a name ("иванов")', `search=${encodeURIComponent('иванов')}`],
    ['search by part of a phone ("4583")', 'search=4583'],
    ['deep page (page 2000 of 50)', 'page=2000'],
  ];

  const table: string[][] = [];
  if (!SKIP_LIST) console.log(`\nGET /api/clients, ${RUNS} runs each after 3 warm-up runs (ms)`);
  for (const [label, qs] of SKIP_LIST ? [] : cases) {
    const path = `/api/clients${qs ? `?${qs}` : ''}`;
    // One call with the query log on: the list's own statements (count and page) for the direct baseline.
    capture = [];
    const first = await request('GET', path, { token });
    // (The log fires as each query completes, so the count is found by its text, not its place.)
    // The total is a sum over the dashboard's rollup (default, status, manager, dates) or a count capped at 10,001
    // rows (other filters): decisions.md, the clients list's total.
    const isCount = (q: string) => /count\(\*\)|sum\(r\.clients\)/.test(q);
    const statements = capture
      .filter((c) => /from "(clients|dashboard_clients_\w+)"/.test(c.sql))
      .sort((x, y) => Number(isCount(y.sql)) - Number(isCount(x.sql)));
    capture = null;
    if (first.status !== 200) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.json)}`);
    if (statements.length !== 2 || !isCount(statements[0]!.sql))
      throw new Error(
        `${path}: expected the count and the page, saw ${statements.length} statements:\n${statements.map((x) => x.sql).join('\n')}`,
      );

    const direct = () => Promise.all(statements.map((s) => raw.query(s.sql, s.parameters as unknown[])));
    const api = async () => {
      const res = await request('GET', path, { token });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    };
    const count = () => raw.query(statements[0]!.sql, statements[0]!.parameters as unknown[]);
    const [a, s, c] = (await alternate(RUNS, api, direct, count)) as [Q, Q, Q];
    table.push([
      label,
      first.json!.total!.toLocaleString('en'),
      a.p50.toFixed(1),
      a.p95.toFixed(1),
      s.p50.toFixed(1),
      s.p95.toFixed(1),
      (a.p95 / s.p95).toFixed(2),
      c.p50.toFixed(1),
    ]);
    console.log(
      `${label.padEnd(44)} total ${first.json!.total!.toLocaleString('en').padStart(9)}  API p50 ${a.p50.toFixed(1).padStart(6)} p95 ${a.p95.toFixed(1).padStart(6)}   SQL p50 ${s.p50.toFixed(1).padStart(6)} p95 ${s.p95.toFixed(1).padStart(6)}   ratio(p95) ${(a.p95 / s.p95).toFixed(2)}   (count alone p50 ${c.p50.toFixed(1)})`,
    );
    report(`clients list, ${label}: p95`, a.p95, s.p95, 'ms');
  }

  // The dashboard (issue 11): GET /api/dashboard for all time, this month and three managers, beside the same
  // statements (captured from the app's query log) run straight over pg at once, as the service runs them.
  const dashboardTable: string[][] = [];
  if (process.env.BENCH_DASHBOARD !== '0' && !SKIP_LIST) {
    const managers = await db
      .selectFrom('clients')
      .select('assigned_manager')
      .where('assigned_manager', 'is not', null)
      .groupBy('assigned_manager')
      .orderBy(sql`count(*)`, 'desc')
      .limit(3)
      .execute();
    const dashCases: [string, string][] = [
      ['dashboard, all time', ''],
      ['dashboard, this month', 'period=month'],
      ['dashboard, 3 managers', managers.map((m) => `manager_id=${m.assigned_manager}`).join('&')],
    ];
    const rawDash = new pg.Pool({ connectionString: url, max: 10 });
    console.log(`\nGET /api/dashboard as the superadmin, ${RUNS} runs each after 3 warm-up runs (ms)`);
    for (const [label, qs] of dashCases) {
      const path = `/api/dashboard${qs ? `?${qs}` : ''}`;
      capture = [];
      const first = await request('GET', path, { token });
      const statements = capture;
      capture = null;
      if (first.status !== 200) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.json)}`);
      const direct = () => Promise.all(statements.map((st) => rawDash.query(st.sql, st.parameters as unknown[])));
      const api = async () => {
        const res = await request('GET', path, { token });
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      };
      const [a, q] = (await alternate(RUNS, api, direct)) as [Q, Q];
      dashboardTable.push([
        label,
        String(statements.length),
        a.p50.toFixed(1),
        a.p95.toFixed(1),
        q.p50.toFixed(1),
        q.p95.toFixed(1),
        (a.p95 / q.p95).toFixed(2),
      ]);
      console.log(
        `${label.padEnd(44)} ${String(statements.length).padStart(2)} statements  API p50 ${a.p50.toFixed(1).padStart(6)} p95 ${a.p95.toFixed(1).padStart(6)}   SQL p50 ${q.p50.toFixed(1).padStart(6)} p95 ${q.p95.toFixed(1).padStart(6)}   ratio(p95) ${(a.p95 / q.p95).toFixed(2)}`,
      );
      report(`${label}: p95`, a.p95, q.p95, 'ms');
    }
    await rawDash.end();
  }

  if (SKIP_EXPORT) console.log('export: not measured (BENCH_EXPORT=0)');
  else {
    console.log(
      `\nGET /api/clients/export/excel — the whole base, ${EXPORT_RUNS} run(s) each of ours and the baseline, alternated (medians)`,
    );
    const probe = await request('GET', '/api/clients/export/excel?status=fake&search=zzzzzz', { token, sink: true });
    if (probe.status === 404) {
      console.log('export: GET /api/clients/export/excel is not available in this build (404); not measured');
    } else {
      const ours: number[] = [];
      const baseline: number[] = [];
      let rssAbove = 0;
      let bytes = 0;
      for (let i = 0; i < EXPORT_RUNS; i++) {
        // Ours: the real route over HTTP as a superadmin, to the last byte, the body only counted. RSS of the process
        // (server and the counting client) sampled every 20 ms, above what it was just before the request.
        global.gc?.();
        const idle = process.memoryUsage().rss;
        let peak = idle;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
        const t = performance.now();
        const res = await request('GET', '/api/clients/export/excel', { token, sink: true });
        ours.push((performance.now() - t) / 1000);
        clearInterval(sampler);
        peak = Math.max(peak, process.memoryUsage().rss);
        if (res.status !== 200) throw new Error(`export: ${res.status}`);
        bytes = res.bytes;
        rssAbove = Math.max(rssAbove, peak - idle);
        const base = await exceljsAlone(url, config.BUSINESS_TIMEZONE);
        if (base.rows !== Number(n)) throw new Error(`baseline wrote ${base.rows} rows, expected ${n}`);
        baseline.push(base.seconds);
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
      const oursS = median(ours);
      console.log(
        `  ${mb(bytes)} MB of XLSX; ours ${ours.map((x) => x.toFixed(1)).join(', ')} s, ` +
          `baseline ${baseline.map((x) => x.toFixed(1)).join(', ')} s; ${(Number(n) / oursS).toFixed(0)} rows/s`,
      );
      report(`export of ${Number(n)} clients`, oursS, median(baseline), 's');
      console.log(`export memory ours ${mb(rssAbove)} MB RSS peak above idle (limit 256 MB)`);
    }
  }

  if (process.env.BENCH_MARKDOWN) {
    console.log(
      '\n| Query | Total | API p50 | API p95 | SQL p50 | SQL p95 | Ratio (p95) | count(*) alone p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of table) console.log(`| ${r.join(' | ')} |`);
    if (dashboardTable.length > 0) {
      console.log(
        '\n| Dashboard | Statements | API p50 | API p95 | SQL p50 | SQL p95 | Ratio (p95) |\n|---|---:|---:|---:|---:|---:|---:|',
      );
      for (const r of dashboardTable) console.log(`| ${r.join(' | ')} |`);
    }
  }
  printMarkdown();

  await db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', admin.id).execute();
  agent.destroy();
  await app.close();
  await raw.end();
  await db.destroy();
  await target.drop();
}

/**
 * The export's baseline: exceljs' streaming writer with the export's options writing the same sheet (the export's own
 * `clientsSheet`: header, widths, the same cells of the same rows) read through a raw pg cursor, into a sink that only
 * counts bytes. Seconds from the cursor's open to the workbook's last byte.
 */
async function exceljsAlone(url: string, timeZone: string): Promise<{ seconds: number; rows: number }> {
  const layout = clientsSheet('ru', timeZone);
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done();
    },
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t = performance.now();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: false, useSharedStrings: false });
  useDateTimeCells(workbook);
  const sheet = workbook.addWorksheet(layout.name, {
    views: [{ state: 'frozen', ySplit: 1 }],
    autoFilter: headerRange(layout.header.length),
  } as Partial<ExcelJS.AddWorksheetOptions>);
  sheet.columns = layout.header.map((title, i) => ({ header: title, width: layout.widths[i] ?? 16 }));
  sheet.getRow(1).commit();
  await client.query('begin');
  await client.query(
    `declare export_rows no scroll cursor for
       select c.id, c.name, c.email, c.phone, c.phone_e164, c.country, c.status, c.campaign, c.source, c.ftd, c.total_deposits_cents,
              c.assigned_manager, m.name as assigned_manager_name, af.name as affiliate_name, c.last_comment_date,
              c.created_at, ta.balance_cents as trading_balance_cents
       from clients c left join users m on m.id = c.assigned_manager left join affiliates af on af.id = c.affiliate_id
         left join trading_accounts ta on ta.client_id = c.id
       order by c.id desc`,
  );
  let rows = 0;
  for (;;) {
    const batch = await client.query<ExportClientRow>('fetch 2000 from export_rows');
    for (const r of batch.rows) {
      sheet.addRow(layout.cells(r)).commit();
    }
    rows += batch.rows.length;
    if (batch.rows.length < 2000) break;
  }
  await client.query('commit');
  sheet.commit();
  await workbook.commit();
  const seconds = (performance.now() - t) / 1000;
  await client.end();
  if (bytes === 0) throw new Error('exceljs wrote nothing');
  return { seconds, rows };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
