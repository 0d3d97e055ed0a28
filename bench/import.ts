/**
 * Lead file import (issue 10): a CSV of BENCH_ROWS leads (default 100,000; four ASCII columns — full name, Email,
 * Phone, Country — under the 10 MB upload limit) imported through POST /api/upload-clients over real HTTP (the app
 * listening on a local port, signed in as an admin, the file sent as multipart/form-data), beside the baseline: the
 * same file loaded into the same clients table by PostgreSQL's COPY (`psql -c "\copy clients(name, email, phone,
 * country) from … csv header"`: pg-copy-streams is not a dependency, so the baseline is psql's client-side COPY FROM
 * STDIN, timed as a whole command). The import does more than COPY — parse, check and normalise every phone (E.164),
 * look for duplicates in the base and in the file under the import lock, store the import's row and audit row — and
 * both pay the same index upkeep of the clients table. Each side runs BENCH_REPEAT times (default 2) on an emptied
 * table, alternating; the best run of each is the figure.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:import
 *   BENCH_ROWS=2000 BENCH_REPEAT=1 BENCH_DATABASE_URL=… npm run bench:import      # a quick check that it runs
 *
 * The bench creates its own database next to the one named and drops it at the end. BENCH_MARKDOWN=1 also prints
 * the operations.md table row.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.js';
import { migrate } from '../apps/server/src/platform/db/index.js';
import type { Database } from '../apps/server/src/platform/db/types.js';
import { hashPassword } from '../apps/server/src/platform/auth/passwords.js';
import { testConfig } from '../apps/server/test/helpers.js';
import { benchSize, guardLoad, report } from './support.js';

const run = promisify(execFile);
const ROWS = benchSize('BENCH_ROWS', 100_000, 500);
const REPEAT = Math.max(1, benchSize('BENCH_REPEAT', 2, 1));
const adminUrl = process.env.BENCH_DATABASE_URL;

/** Four ASCII columns, distinct e-mails and phones (Kazakh mobiles, E.164 as typed), 74 bytes a row. */
function writeCsv(file: string, rows: number): number {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, 'full name,Email,Phone,Country\n');
  const batch: string[] = [];
  for (let i = 0; i < rows; i++) {
    const n = String(i).padStart(7, '0');
    batch.push(`Bench Lead ${n},bench.lead.${n}@example.com,+7701${n},Kazakhstan\n`);
    if (batch.length === 10_000) {
      fs.writeSync(out, batch.join(''));
      batch.length = 0;
    }
  }
  fs.writeSync(out, batch.join(''));
  fs.closeSync(out);
  return fs.statSync(file).size;
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function main(): Promise<void> {
  if (!adminUrl) {
    console.error(
      'bench:import measures against PostgreSQL and its COPY: set BENCH_DATABASE_URL, e.g.\n' +
        '  BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:import',
    );
    process.exit(2);
  }
  guardLoad();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  const file = path.join(dir, 'leads.csv');
  const bytes = writeCsv(file, ROWS);
  const limit = 10 * 1024 * 1024;
  if (bytes >= limit) throw new Error(`the CSV is ${bytes} bytes, over the 10 MB upload limit: lower BENCH_ROWS`);

  const name = `bench_import_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();

  const pool = new pg.Pool({ connectionString: dbUrl, max: 10 });
  // The bench drops its database at the end: an idle connection cut then is expected, not a crash.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await migrate(db);
    app = await buildApp({ config: testConfig(), database: { db, kind: 'postgres', close: async () => {} } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    const email = `bench.import.${randomBytes(3).toString('hex')}@bench.local`;
    await db
      .insertInto('users')
      .values({
        email,
        name: 'Bench import admin',
        role: 'admin',
        department: null,
        phone: null,
        password_hash: await hashPassword('bench-secret-1'),
        deleted_at: null,
        last_login_at: null,
      })
      .execute();
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'bench-secret-1' }),
    });
    if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const content = fs.readFileSync(file);

    const empty = async () => {
      await sql`truncate clients restart identity cascade`.execute(db);
      await sql`vacuum analyze clients`.execute(db);
    };
    const count = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from clients`.execute(db)).rows[0]!.n);

    const copy = async (): Promise<number> => {
      await empty();
      const start = process.hrtime.bigint();
      await run('psql', [
        dbUrl,
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `\\copy clients(name, email, phone, country) from '${file}' with (format csv, header true)`,
      ]);
      const took = seconds(start);
      if ((await count()) !== ROWS) throw new Error('COPY did not load every row');
      return took;
    };

    const upload = async (): Promise<number> => {
      await empty();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(content)], { type: 'text/csv' }), 'leads.csv');
      const start = process.hrtime.bigint();
      const res = await fetch(`${base}/api/upload-clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const body = (await res.json()) as { clients_created?: number };
      const took = seconds(start);
      if (res.status !== 200 || body.clients_created !== ROWS)
        throw new Error(`upload: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      if ((await count()) !== ROWS) throw new Error('the import did not create every row');
      return took;
    };

    console.log(`database: PostgreSQL ${version}; node ${process.version}; ${os.cpus().length} CPUs`);
    console.log(
      `file: ${ROWS.toLocaleString('en')} rows, ${(bytes / 1024 / 1024).toFixed(2)} MB, four ASCII columns; ` +
        `${REPEAT} run(s) of each, alternating, on an emptied clients table`,
    );
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      baseline.push(await copy());
      ours.push(await upload());
      console.log(`  run ${i + 1}: COPY ${baseline.at(-1)!.toFixed(2)} s, import ${ours.at(-1)!.toFixed(2)} s`);
    }
    const best = (xs: number[]) => Math.min(...xs);
    const oursRate = ROWS / best(ours);
    const copyRate = ROWS / best(baseline);
    const ratio = oursRate / copyRate;
    console.log(
      `\nPOST /api/upload-clients   ours ${best(ours).toFixed(2)} s (${Math.round(oursRate).toLocaleString('en')} rows/s)` +
        `   baseline COPY ${best(baseline).toFixed(2)} s (${Math.round(copyRate).toLocaleString('en')} rows/s)` +
        `   ratio ${ratio.toFixed(2)} (goal ≥ 0.5)`,
    );
    report(`import of ${ROWS} rows (CSV) vs psql COPY`, oursRate, copyRate, 'rows/s', 0);
    if (process.env.BENCH_MARKDOWN) {
      console.log('\n| Measurement | Ours | Baseline (COPY) | Ratio |\n|---|---:|---:|---:|');
      console.log(
        `| Import of ${ROWS.toLocaleString('en')} rows (${(bytes / 1024 / 1024).toFixed(1)} MB CSV) | ` +
          `${best(ours).toFixed(2)} s | ${best(baseline).toFixed(2)} s | ${ratio.toFixed(2)} |`,
      );
    }
  } finally {
    await app?.close();
    await db.destroy();
    const drop = new pg.Client({ connectionString: adminUrl });
    await drop.connect();
    await drop.query(`drop database if exists ${name} with (force)`);
    await drop.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
