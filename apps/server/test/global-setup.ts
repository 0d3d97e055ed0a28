import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate, openDb } from '../src/platform/db/index.js';

/** The template database's name (PostgreSQL) and the migrated data directory tarball (PGlite), for the workers. */
export const PG_TEMPLATE_ENV = 'BROKERAGE_TEST_PG_TEMPLATE';
export const PGLITE_DUMP_ENV = 'BROKERAGE_TEST_PGLITE_DUMP';

/**
 * Migrates once per run what every test database starts from (issue 28 §4), instead of once per test app:
 * - PGlite: an in-memory database is migrated and its data directory dumped to a tarball, which each
 *   `freshDatabase('pglite')` loads (`loadDataDir`);
 * - PostgreSQL (TEST_DATABASE_URL): a template database `brokerage_tpl_<random>`, which each
 *   `freshDatabase('postgres')` clones (`CREATE DATABASE … TEMPLATE`). Nobody stays connected to it: PostgreSQL
 *   refuses to clone a database someone is connected to.
 * The workers find both through environment variables (forks inherit this process's environment); both are removed
 * when the run ends.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-test-template-'));
  const embedded = await openDb({ dataDir: 'memory' });
  try {
    await migrate(embedded.db);
    const dump = await embedded.pglite!.dumpDataDir('none');
    const file = path.join(dir, 'pgdata.tar');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    process.env[PGLITE_DUMP_ENV] = file;
  } finally {
    await embedded.close();
  }

  const adminUrl = process.env.TEST_DATABASE_URL;
  let template: string | undefined;
  if (adminUrl) {
    template = `brokerage_tpl_${randomBytes(6).toString('hex')}`;
    await adminQuery(adminUrl, `create database ${template}`);
    const url = new URL(adminUrl);
    url.pathname = `/${template}`;
    const handle = await openDb({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 1 });
    try {
      await migrate(handle.db);
    } finally {
      await handle.close(); // closes the pool: no connection to the template is left open
    }
    process.env[PG_TEMPLATE_ENV] = template;
  }

  return async () => {
    delete process.env[PGLITE_DUMP_ENV];
    delete process.env[PG_TEMPLATE_ENV];
    fs.rmSync(dir, { recursive: true, force: true });
    if (adminUrl && template) await adminQuery(adminUrl, `drop database if exists ${template} with (force)`);
  };
}

async function adminQuery(adminUrl: string, query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(query);
  } finally {
    await admin.end();
  }
}
