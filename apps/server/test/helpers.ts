import { sql } from 'kysely';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Role } from '@brokerage/shared';
import { departmentOfRole } from '@brokerage/shared';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { migrate, openDb, type Db, type DbHandle } from '../src/platform/db/index.js';
import { hashPassword } from '../src/platform/auth/passwords.js';
import { runCli } from '../src/cli.js';
import type { LogStream } from '../src/platform/http/logging.js';
import { PG_TEMPLATE_ENV, PGLITE_DUMP_ENV } from './global-setup.js';

export type DbKind = 'pglite' | 'postgres';

/**
 * The databases the integration suite runs on: always the embedded PGlite, and real PostgreSQL when
 * TEST_DATABASE_URL is set. With REQUIRE_PG=1 (CI) a missing TEST_DATABASE_URL is an error, not a skip.
 */
export function dbKinds(): DbKind[] {
  if (process.env.TEST_DATABASE_URL) return ['pglite', 'postgres'];
  if (process.env.REQUIRE_PG === '1') throw new Error('REQUIRE_PG=1 but TEST_DATABASE_URL is not set');
  return ['pglite'];
}

/** The migrated data directory of global-setup.ts, read once per process. */
let pgliteTemplate: Promise<Blob> | undefined;

/**
 * A fresh, migrated database of the given kind; PostgreSQL ones are created here and dropped by `close`.
 * `dataDir` keeps an embedded database in that directory (so the command line can open it after `close`).
 * Under vitest both start from what global-setup.ts migrated once: an in-memory PGlite loads its dumped data
 * directory (a file-backed one too, unpacked into `dataDir`), a PostgreSQL database is created from its template.
 * Outside vitest (the benches) the database is migrated here.
 */
export async function freshDatabase(kind: DbKind, dataDir?: string): Promise<DbHandle & { url?: string }> {
  if (kind === 'pglite') {
    const dump = process.env[PGLITE_DUMP_ENV];
    // A file-backed database opened again (`reopen`) is not new: it is only checked to be migrated, below.
    if (dump && !(dataDir && fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION')))) {
      pgliteTemplate ??= fs.promises.readFile(dump).then((bytes) => new Blob([bytes]));
      return openDb({ dataDir: dataDir ?? 'memory', loadDataDir: await pgliteTemplate });
    }
    const handle = await openDb({ dataDir: dataDir ?? 'memory' });
    await migrate(handle.db);
    return handle;
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const template = process.env[PG_TEMPLATE_ENV];
  const name = `brokerage_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDb({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 5 });
  if (!template) await migrate(handle.db);
  return {
    ...handle,
    url: url.toString(),
    async close() {
      await handle.close();
      const drop = new pg.Client({ connectionString: adminUrl });
      await drop.connect();
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}

/** The audit chain key of this test file's apps and commands (issue 20 §7), so no test makes a key file. */
export const TEST_AUDIT_CHAIN_KEY = randomBytes(32).toString('base64');
/** The price log's signing key of this test file's apps (D27), for the same reason. */
export const TEST_PRICE_LOG_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** Tests sign in with a password alone (REQUIRE_2FA_ROLES empty) unless they set it: only the 2FA tests do. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent',
    WEB_DIST: '/nonexistent',
    REQUIRE_2FA_ROLES: '',
    AUDIT_CHAIN_KEY: TEST_AUDIT_CHAIN_KEY,
    PRICE_LOG_KEY: TEST_PRICE_LOG_KEY,
    ...overrides,
  });
}

export const PASSWORD = 'correct-horse-1';

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  kind: DbKind;
  url?: string;
  /** Creates a user of the role directly in the database and returns its id. */
  createUser(
    role: Role,
    opts?: { email?: string; name?: string; password?: string },
  ): Promise<{ id: string; email: string }>;
  /** Signs in through the API and returns the bearer token. */
  login(email: string, password?: string, remoteAddress?: string): Promise<string>;
  /** Creates a user of the role and signs in; returns its id, e-mail and token. */
  userWithToken(role: Role): Promise<{ id: string; email: string; token: string }>;
  inject(opts: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  auditRows(
    action?: string,
  ): Promise<{ action: string; actor_id: string | null; entity_id: string | null; after: unknown; before: unknown }[]>;
  /** How many audit rows there are (of one action). */
  auditCount(action?: string): Promise<number>;
  /**
   * The environment under which the command line (src/cli.ts) opens this app's database: DATABASE_URL for
   * PostgreSQL, DATA_DIR for a file-backed embedded database; null for an in-memory one, which no other tool can open.
   */
  cliEnv: Record<string, string> | null;
  /** A new app over the same file-backed embedded database, after `close` (a server restart). */
  reopen(): Promise<TestApp>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Keep the embedded database in this directory instead of memory (PGlite only). */
  dataDir?: string;
  /** Where the app's log lines go instead of stdout (with a LOG_LEVEL other than the tests' `silent`). */
  logStream?: LogStream;
}

let counter = 0;
let passwordHash: Promise<string> | undefined;

export async function createTestApp(
  kind: DbKind,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database = await freshDatabase(kind, options.dataDir);
  const config = testConfig(env);
  const app = await buildApp({ config, database, ...(options.logStream ? { logStream: options.logStream } : {}) });
  await app.ready();
  passwordHash ??= hashPassword(PASSWORD);

  const t: TestApp = {
    app,
    db: database.db,
    kind,
    ...(database.url ? { url: database.url } : {}),
    async createUser(role, opts = {}) {
      counter += 1;
      const email = opts.email ?? `${role}.${counter}.${randomBytes(3).toString('hex')}@test.local`;
      const hash = opts.password ? await hashPassword(opts.password) : await passwordHash!;
      const row = await database.db
        .insertInto('users')
        .values({
          email,
          name: opts.name ?? `Test ${role} ${counter}`,
          role,
          department: departmentOfRole(role),
          phone: null,
          password_hash: hash,
          deleted_at: null,
          last_login_at: null,
          // An account as it stood before issue 22 (its address counts as verified); the e-mail tests register theirs.
          email_verified_at: sql`now()` as never,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, email };
    },
    async login(email, password = PASSWORD, remoteAddress) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password },
        ...(remoteAddress ? { remoteAddress } : {}),
      });
      if (res.statusCode !== 200) throw new Error(`login ${email} failed: ${res.statusCode} ${res.body}`);
      return res.json().access_token as string;
    },
    async userWithToken(role) {
      const user = await t.createUser(role);
      return { ...user, token: await t.login(user.email) };
    },
    inject({ token, headers, ...opts }) {
      return app.inject({
        ...opts,
        headers: { ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
    },
    async auditRows(action) {
      let q = database.db
        .selectFrom('audit_log')
        .select(['action', 'actor_id', 'entity_id', 'after', 'before'])
        .orderBy('id');
      if (action) q = q.where('action', '=', action);
      return q.execute();
    },
    async auditCount(action) {
      let q = database.db.selectFrom('audit_log').select((eb) => eb.fn.countAll<string>().as('n'));
      if (action) q = q.where('action', '=', action);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
    // The app's audit chain key goes along (a command writing an audit row stamps it with the same key), and on
    // PostgreSQL the app's DATA_DIR (where its audit checkpoints are).
    cliEnv: database.url
      ? { DATABASE_URL: database.url, DATA_DIR: config.DATA_DIR, LOG_LEVEL: 'silent', ...chainKeyEnv(config) }
      : options.dataDir
        ? { DATA_DIR: options.dataDir, LOG_LEVEL: 'silent', ...chainKeyEnv(config) }
        : null,
    reopen() {
      if (kind !== 'pglite' || !options.dataDir)
        throw new Error('only a file-backed embedded database can be reopened');
      return createTestApp(kind, env, options);
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
  return t;
}

const chainKeyEnv = (config: Config): Record<string, string> =>
  config.AUDIT_CHAIN_KEY ? { AUDIT_CHAIN_KEY: config.AUDIT_CHAIN_KEY } : {};

/** The session cookie a response sets, with its attributes as written. */
export function sessionCookie(res: LightMyRequestResponse): { value: string; raw: string } | undefined {
  const header = res.headers['set-cookie'];
  const all = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const raw = all.find((c) => c.startsWith('session='));
  if (!raw) return undefined;
  return { value: decodeURIComponent(raw.slice('session='.length).split(';')[0]!), raw };
}

/**
 * Runs an admin command (src/cli.ts) on the app's database the way an operator does: against PostgreSQL while the
 * server keeps running; the embedded database admits one process at a time, so there the server is stopped first
 * and started again on the same directory afterwards. Returns the exit code, what the command printed, and the
 * app to carry on with.
 */
export async function runAdminCommand(
  t: TestApp,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; output: string; t: TestApp }> {
  if (!t.cliEnv) throw new Error('the command line cannot open an in-memory database: build the app with a dataDir');
  const lines: string[] = [];
  const out = (line: string) => void lines.push(line);
  if (t.kind === 'postgres') {
    const code = await runCli(args, { ...t.cliEnv, ...extraEnv }, out);
    return { code, output: lines.join('\n'), t };
  }
  await t.close();
  const code = await runCli(args, { ...t.cliEnv, ...extraEnv }, out);
  return { code, output: lines.join('\n'), t: await t.reopen() };
}
