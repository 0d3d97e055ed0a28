import { sql } from 'kysely';
import { isDatabaseUnavailable } from './errors.js';
import { migrate, openDb, type Db, type DbHandle, type OpenDbOptions } from './index.js';

export interface StartupOptions extends OpenDbOptions {
  /** How long to wait for PostgreSQL to accept connections before giving up (DB_STARTUP_WAIT_SECONDS). */
  waitSeconds: number;
  log: (line: string) => void;
}

const FIRST_DELAY_MS = 250;
const LONGEST_DELAY_MS = 5000;

/**
 * Waits until the database answers (issue 21 §6): a server started while PostgreSQL is down, starting up or in
 * recovery tries again with a doubling delay (250 ms up to 5 s), logging each failed try, for `waitSeconds` at most;
 * an error that is not about reaching the database (a wrong password, a missing database) fails at once.
 */
export async function waitForDatabase(
  db: Db,
  { waitSeconds, log }: Pick<StartupOptions, 'waitSeconds' | 'log'>,
): Promise<void> {
  const deadline = Date.now() + waitSeconds * 1000;
  let delay = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await sql`select 1`.execute(db);
      if (attempt > 1) log(`The database is answering (after ${attempt} tries).`);
      return;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!isDatabaseUnavailable(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the database did not answer within ${waitSeconds} s: ${message}`);
      const wait = Math.min(delay, left);
      log(`Waiting for the database (try ${attempt} failed: ${message}); next try in ${wait} ms.`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      delay = Math.min(delay * 2, LONGEST_DELAY_MS);
    }
  }
}

/**
 * Opens the server's database at start-up: waits for it (PostgreSQL), migrates, runs `prepare` (the first-run seed),
 * then returns the handle the server serves with. On PostgreSQL the waiting, the migrations and `prepare` use a small
 * pool of their own without the statement timeout: a migration or the demo seed may take longer than any request
 * should, and a second process starting at the same time waits on the migration and bootstrap locks (issue 21 §6;
 * Kysely's Migrator holds a PostgreSQL advisory lock while it migrates, so processes starting together migrate once).
 */
export async function openReadyDb(options: StartupOptions, prepare: (db: Db) => Promise<void>): Promise<DbHandle> {
  const { waitSeconds, log, ...open } = options;
  if (!open.databaseUrl) {
    const database = await openDb(open);
    await migrate(database.db);
    await prepare(database.db);
    return database;
  }
  const setup = await openDb({ ...open, poolSize: 2, statementTimeoutMs: 0 });
  try {
    await waitForDatabase(setup.db, { waitSeconds, log });
    await migrate(setup.db);
    await prepare(setup.db);
  } finally {
    await setup.close();
  }
  return openDb(open);
}
