import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generatePassword } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Config } from './config.js';
import type { Db } from './platform/db/index.js';
import { hashPassword } from './platform/auth/passwords.js';
import { writeAudit } from './platform/audit/audit.js';
import { CLI_ACTOR } from './platform/auth/actor.js';
import { demoAccounts, seedDemoData } from './seed/demo.js';
import { priceLogSignerFromConfig } from './modules/price-log/keys.js';
import { vaultFromConfig } from './platform/crypto/vault.js';

export function randomPassword(): string {
  return generatePassword((n) => randomInt(n), 16);
}

export async function createSuperadmin(db: Db, email: string, password: string, name = 'Superadmin'): Promise<string> {
  const hash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({
        email: email.toLowerCase(),
        name,
        role: 'superadmin',
        department: null,
        phone: null,
        password_hash: hash,
        deleted_at: null,
        last_login_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, CLI_ACTOR, {
      action: 'user.create',
      entityType: 'user',
      entityId: row.id,
      after: { email, role: 'superadmin' },
    });
    return row.id;
  });
}

/**
 * First start on an empty database (decisions.md D8): create the superadmin from ADMIN_EMAIL / ADMIN_PASSWORD, or
 * generate a password and print it once; with DEMO_DATA=1 also seed the demo data set and print its logins.
 * `print` writes to the console, never to the log files.
 */
export async function bootstrap(db: Db, config: Config, print: (line: string) => void): Promise<void> {
  // Several processes may start together on an empty database (replicas behind a balancer, the crash test's three
  // servers): one of them creates the first users while the others wait on this lock and then find them there.
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${BOOTSTRAP_LOCK})`.execute(conn);
    try {
      await bootstrapOnce(conn, config, print);
    } finally {
      await sql`select pg_advisory_unlock(${BOOTSTRAP_LOCK})`.execute(conn);
    }
  });
}

/** The advisory lock key that serialises first starts ('boot' in ASCII). */
const BOOTSTRAP_LOCK = 0x626f6f74;

async function bootstrapOnce(db: Db, config: Config, print: (line: string) => void): Promise<void> {
  const { n } = await db
    .selectFrom('users')
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  if (Number(n) > 0) return;

  if (config.DEMO_DATA) {
    await seedDemoData(db, vaultFromConfig(config), {
      durations: config.TRADE_DURATIONS,
      priceLogSigner: priceLogSignerFromConfig(config),
    });
    print('Demo data set created. Demo logins (password for all shown):');
    for (const a of demoAccounts()) print(`  ${a.role.padEnd(20)} ${a.email.padEnd(34)} ${a.password}`);
  }
  if (config.ADMIN_EMAIL) {
    const password = config.ADMIN_PASSWORD ?? randomPassword();
    await createSuperadmin(db, config.ADMIN_EMAIL, password);
    if (config.ADMIN_PASSWORD) print(`Superadmin ${config.ADMIN_EMAIL} created with the password from ADMIN_PASSWORD.`);
    else print(`Superadmin ${config.ADMIN_EMAIL} created. Password (shown once): ${password}`);
  } else if (!config.DEMO_DATA) {
    const password = randomPassword();
    await createSuperadmin(db, DEFAULT_ADMIN_EMAIL, password);
    print(`Superadmin ${DEFAULT_ADMIN_EMAIL} created. Password (shown once, change it): ${password}`);
  }
}

/**
 * The first superadmin's e-mail when ADMIN_EMAIL is not set. It passes the shared e-mail schema (a dotless domain such
 * as 'localhost' does not), so the staff page can edit this user like any other.
 */
export const DEFAULT_ADMIN_EMAIL = 'admin@brokerage.local';

/** The file in DATA_DIR that says which process has the embedded database open. */
export const SERVER_PID_FILE = 'server.pid';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The process that has the embedded database of `dataDir` open, according to its server.pid, if it is still running;
 * null when there is no such file or its process has ended (a server that crashed leaves a stale file behind).
 */
export function embeddedDbHolder(dataDir: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, SERVER_PID_FILE), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}

/**
 * Marks the embedded database of `config.dataDir` as held by this process (PGlite admits one process at a time; a
 * second one opening the same directory can corrupt it), so the command line refuses to open it meanwhile. Returns
 * the function that removes the mark at shutdown. Nothing to do on PostgreSQL, which serves any number of processes.
 */
export function markEmbeddedDbInUse(config: Config): () => void {
  if (config.DATABASE_URL) return () => {};
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, SERVER_PID_FILE);
  fs.writeFileSync(file, `${process.pid}\n`);
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
    } catch {
      // already gone
    }
  };
}
