import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { AUDIT_CHAIN_LOCK } from '../db/migrations/2026-11-25T0018-audit-chain.js';
import { CONTENT_COLUMNS, keyedRowHash, type ContentRow } from './chain.js';
import { AuditChainKeyMissing, currentAuditChainKey } from './chain-key.js';

/**
 * Keyed stamping of audit rows (issue 20 §7). Until migration 0023 the chain was stamped by a deferred trigger with
 * sha-256 of the row's canonical text — which anyone editing the database could recompute for a rewritten chain. Now
 * the server stamps its own rows, with a key the database never sees, at the moment their transaction commits:
 *
 *   - this driver notes the ids of the rows each transaction inserts into audit_log (Kysely's insertInto; a lone
 *     insert outside a transaction is given one);
 *   - at commit, before the COMMIT itself, it takes the chain's advisory lock (the lock of migration 0018), reads the
 *     head, computes each row's place, prev_hash and HMAC (chain.ts, keyedRowHash) and writes them — the one update
 *     the append-only trigger lets through — then commits, which releases the lock.
 *
 * So, as before, the chain is extended one committer at a time in commit order and a long transaction holds the lock
 * only while it commits. The deferred trigger stays as the fallback for rows written past this driver (psql, a tool
 * without the key): it stamps them the old way, and verification, which expects the key after the switch-over,
 * names them.
 */

function isAuditInsert(q: CompiledQuery): boolean {
  const node = q.query as { kind: string; into?: { table: { identifier: { name: string } } } } | undefined;
  return node?.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'audit_log';
}

class ChainConnection implements DatabaseConnection {
  inTransaction = false;
  /** Ids of the audit rows this transaction inserted, in insertion order. */
  pending: string[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    if (!isAuditInsert(q)) return this.inner.executeQuery<R>(q);
    if (this.inTransaction) return this.insert<R>(q);
    // A lone insert commits at once: wrapped in a transaction of its own, so it is stamped before it commits.
    await this.inner.executeQuery(CompiledQuery.raw('begin'));
    try {
      const result = await this.insert<R>(q);
      await stampPending(this);
      await this.inner.executeQuery(CompiledQuery.raw('commit'));
      return result;
    } catch (err) {
      this.pending = [];
      await this.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw err;
    }
  }

  private async insert<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const node = q.query as { returning?: unknown };
    const addId = node.returning === undefined;
    const result = await this.inner.executeQuery<Record<string, unknown>>(
      addId ? { ...q, sql: `${q.sql} returning "id"` } : q,
    );
    for (const row of result.rows) if (row.id !== undefined && row.id !== null) this.pending.push(String(row.id));
    return (addId ? { ...result, rows: [] } : result) as QueryResult<R>;
  }

  streamQuery<R>(q: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(q, chunkSize);
  }
}

/** Stamps the connection's pending rows onto the chain, inside its open transaction. */
async function stampPending(conn: ChainConnection): Promise<void> {
  const ids = conn.pending;
  conn.pending = [];
  if (ids.length === 0) return;
  const chainKey = currentAuditChainKey();
  if (!chainKey) return; // no key in this process: the deferred trigger stamps them the old way
  const db = conn.inner;
  await db.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`));
  // Read after the lock: under READ COMMITTED this statement sees the previous committer's stamps.
  const { rows } = await db.executeQuery<
    ContentRow & { head_seq: string | null; head_hash: string | null; keyed_after: string | null }
  >(
    CompiledQuery.raw(
      `with head as (select seq, hash from audit_log where seq is not null order by seq desc limit 1)
       select ${CONTENT_COLUMNS}, (select seq::text from head) as head_seq, (select hash from head) as head_hash,
         (select keyed_after::text from audit_chain) as keyed_after
       from audit_log a
       where a.id in (select value::bigint from json_array_elements_text($1::json)) and a.hash is null
       order by a.id`,
      [JSON.stringify(ids)],
    ),
  );
  if (rows.length === 0) return;
  let key = chainKey.existing();
  if (!key) {
    // The key file is made on first use only. Once rows are keyed a new key would fork the chain (every later row
    // unverifiable with the old key, every earlier one with the new): the commit is refused, with its audit rows,
    // until the key is put back — the log stays whole and nothing is written that it does not record.
    const keyedAfter = rows[0]!.keyed_after ?? '0';
    if (BigInt(rows[0]!.head_seq ?? 0) > BigInt(keyedAfter)) throw new AuditChainKeyMissing(chainKey, keyedAfter);
    key = chainKey.get();
  }
  let seq = BigInt(rows[0]!.head_seq ?? 0);
  let prevHash = rows[0]!.head_hash ?? '';
  const stamps = rows.map((r) => {
    seq += 1n;
    const hash = keyedRowHash(key, String(seq), prevHash, r);
    const stamp = { id: r.id, seq: String(seq), prev_hash: prevHash, hash };
    prevHash = hash;
    return stamp;
  });
  await db.executeQuery(
    CompiledQuery.raw(
      `update audit_log a set seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
       from json_to_recordset($1::json) as v(id bigint, seq bigint, prev_hash text, hash text)
       where a.id = v.id`,
      [JSON.stringify(stamps)],
    ),
  );
}

class ChainDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, ChainConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    let conn = this.#wrapped.get(inner);
    if (!conn) {
      conn = new ChainConnection(inner);
      this.#wrapped.set(inner, conn);
    }
    conn.inTransaction = false;
    conn.pending = [];
    return conn;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const conn = connection as ChainConnection;
    await this.inner.beginTransaction(conn.inner, settings);
    conn.inTransaction = true;
    conn.pending = [];
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as ChainConnection;
    await stampPending(conn); // a failure here makes Kysely roll the transaction back
    await this.inner.commitTransaction(conn.inner);
    conn.inTransaction = false;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as ChainConnection;
    conn.pending = [];
    conn.inTransaction = false;
    await this.inner.rollbackTransaction(conn.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    if (!this.inner.savepoint) throw new Error('savepoints are not supported by this database driver');
    await this.inner.savepoint((connection as ChainConnection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    if (!this.inner.rollbackToSavepoint) throw new Error('savepoints are not supported by this database driver');
    await this.inner.rollbackToSavepoint((connection as ChainConnection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    if (!this.inner.releaseSavepoint) throw new Error('savepoints are not supported by this database driver');
    await this.inner.releaseSavepoint((connection as ChainConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as ChainConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The dialect with keyed audit stamping in its driver; openDb wraps both of its dialects in it. */
export function withAuditChain(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ChainDriver(dialect.createDriver()),
    createIntrospector: (db: Parameters<Dialect['createIntrospector']>[0]) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
