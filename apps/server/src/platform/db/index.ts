import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Database } from './types.js';
import { PGliteDialect } from './pglite-dialect.js';
import { withAuditChain } from '../audit/stamping.js';
import * as m0001 from './migrations/2026-11-22T0001-foundation.js';
import * as m0002 from './migrations/2026-11-22T0002-trading.js';
import * as m0003 from './migrations/2026-11-22T0003-funds-messages.js';
import * as m0004 from './migrations/2026-11-22T0004-client-base.js';
import * as m0005 from './migrations/2026-11-22T0005-client-search.js';
import * as m0006 from './migrations/2026-11-22T0006-notifications.js';
import * as m0007 from './migrations/2026-11-25T0007-identity.js';
import * as m0008 from './migrations/2026-11-25T0008-lead-supply.js';
import * as m0010 from './migrations/2026-11-25T0010-external-api.js';
import * as m0012 from './migrations/2026-11-25T0012-dashboard.js';
import * as m0013 from './migrations/2026-11-25T0013-trade-audit.js';
import * as m0015 from './migrations/2026-11-25T0015-dashboard-rollup.js';
import * as m0016 from './migrations/2026-11-25T0016-two-factor.js';
import * as m0017 from './migrations/2026-11-25T0017-four-eyes.js';
import * as m0018 from './migrations/2026-11-25T0018-audit-chain.js';
import * as m0019 from './migrations/2026-11-25T0019-deposit-intents.js';
import * as m0020 from './migrations/2026-11-28T0020-auth-announce.js';
import * as m0021 from './migrations/2026-11-28T0021-staff-logins-bound-credits.js';
import * as m0022 from './migrations/2026-11-28T0022-candles-1h-postback-event-id.js';
import * as m0023 from './migrations/2026-11-28T0023-audit-key-otp-attempts.js';
import * as m0024 from './migrations/2026-11-28T0024-void-requests.js';
import * as m0025 from './migrations/2026-11-28T0025-feed-lease-watermark.js';
import * as m0026 from './migrations/2026-11-28T0026-live-sequence.js';
import * as m0027 from './migrations/2026-11-28T0027-void-requests-withdrawn.js';
import * as m0028 from './migrations/2026-11-29T0028-price-log.js';
import * as m0029 from './migrations/2026-11-29T0029-mail.js';
import * as m0030 from './migrations/2026-11-29T0030-platform-id.js';

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
  /** The embedded database itself (issue 13: the backup command dumps its data directory). */
  pglite?: PGlite;
}

// Bigint columns (money in cents, ids) come back as strings; the services convert them explicitly.
pg.types.setTypeParser(20, (v) => v);

export interface OpenDbOptions {
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; `memory` keeps it in memory (tests). */
  dataDir: string | 'memory';
  poolSize?: number;
  /** PostgreSQL: opening a connection, or waiting for a free one of the pool, fails after this many ms (0/unset: never). */
  connectTimeoutMs?: number;
  /** PostgreSQL: every statement is cancelled by the server past this many ms (statement_timeout; 0/unset: never). */
  statementTimeoutMs?: number;
  /** Where a lost connection is reported; by default one line on stderr. */
  onConnectionError?: (err: Error) => void;
  /** Embedded, new database: start from this data directory dump (`dumpDataDir`) instead of an empty one (tests). */
  loadDataDir?: Blob;
}

/** pg_trgm (contrib, bundled with PGlite) backs the clients search indexes of migration 0005. */
export const PGLITE_EXTENSIONS = { pg_trgm };
const extensions = PGLITE_EXTENSIONS;

export async function openDb(options: OpenDbOptions): Promise<DbHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      application_name: 'brokerage',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      // A peer that vanished without a reset (a partition, a dead host) is found out by TCP keepalive.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    const report =
      options.onConnectionError ?? ((err: Error) => console.error(`database connection lost: ${err.message}`));
    // A connection the server closes (restart, failover, pg_terminate_backend) must not end the process (issue 21 §1).
    // pg-pool listens for errors only on idle clients and takes its listener off a client it hands out, so a
    // connection lost while checked out (inside a transaction, say) was an unhandled 'error' event. This listener
    // stays for the client's whole life; the statement in flight fails with the error itself (answered 503), and the
    // pool drops the broken client when it is released and opens a new one when needed.
    pool.on('connect', (client) => {
      client.on('error', report);
    });
    // The pool re-emits an idle client's error, already reported by the client's own listener above.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: withAuditChain(new PostgresDialect({ pool })) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  let pglite: PGlite;
  const load = options.loadDataDir ? { loadDataDir: options.loadDataDir } : {};
  if (options.dataDir === 'memory') {
    pglite = new PGlite({ extensions, ...load });
  } else {
    const dir = path.join(options.dataDir, 'pgdata');
    fs.mkdirSync(dir, { recursive: true });
    pglite = new PGlite(dir, { extensions, ...load });
  }
  await pglite.waitReady;
  const db = new Kysely<Database>({ dialect: withAuditChain(new PGliteDialect(pglite)) });
  return { db, kind: 'pglite', close: () => db.destroy(), pglite };
}

/**
 * Bounds the statements of the rest of the caller's transaction by `ms` instead of DB_STATEMENT_TIMEOUT_MS (0: no
 * bound): SET LOCAL statement_timeout, for the few known long statements (exports, imports, a rollup rebuild).
 */
export async function setLocalStatementTimeout(trx: Db, ms: number): Promise<void> {
  await sql`select set_config('statement_timeout', ${String(Math.max(0, Math.round(ms)))}, true)`.execute(trx);
}

/** Migrations are listed here in order; each file is forward-only and never imports application code. */
export const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T0001-foundation': m0001,
  '2026-11-22T0002-trading': m0002,
  '2026-11-22T0003-funds-messages': m0003,
  '2026-11-22T0004-client-base': m0004,
  '2026-11-22T0005-client-search': m0005,
  '2026-11-22T0006-notifications': m0006,
  '2026-11-25T0007-identity': m0007,
  '2026-11-25T0008-lead-supply': m0008,
  '2026-11-25T0010-external-api': m0010,
  '2026-11-25T0012-dashboard': m0012,
  '2026-11-25T0013-trade-audit': m0013,
  '2026-11-25T0015-dashboard-rollup': m0015,
  '2026-11-25T0016-two-factor': m0016,
  '2026-11-25T0017-four-eyes': m0017,
  '2026-11-25T0018-audit-chain': m0018,
  '2026-11-25T0019-deposit-intents': m0019,
  '2026-11-28T0020-auth-announce': m0020,
  '2026-11-28T0021-staff-logins-bound-credits': m0021,
  '2026-11-28T0022-candles-1h-postback-event-id': m0022,
  '2026-11-28T0023-audit-key-otp-attempts': m0023,
  '2026-11-28T0024-void-requests': m0024,
  '2026-11-28T0025-feed-lease-watermark': m0025,
  '2026-11-28T0026-live-sequence': m0026,
  '2026-11-28T0027-void-requests-withdrawn': m0027,
  '2026-11-29T0028-price-log': m0028,
  '2026-11-29T0029-mail': m0029,
  '2026-11-29T0030-platform-id': m0030,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** The newest migration this build knows (names sort by date). */
export const LATEST_MIGRATION = Object.keys(MIGRATIONS).sort().at(-1)!;

/**
 * Whether the database has every migration this build knows: false on a database another (older) process migrated
 * and this one has not, or that no one has migrated yet. Readiness (GET /api/health) reports it.
 */
export async function migrationsCurrent(db: Db): Promise<boolean> {
  const row = await sql<{ name: string | null }>`select max(name) as name from kysely_migration`.execute(db);
  return (row.rows[0]?.name ?? '') >= LATEST_MIGRATION;
}

export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
