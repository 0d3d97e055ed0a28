import { z } from 'zod';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { Trx } from '../db/types.js';
import { HttpError } from './errors.js';
import type { ErrorCode } from './messages.js';

/**
 * Idempotency-Key for calls that move money (decisions.md D3) and for the external API's lead posts (D13). The key
 * row is inserted in the same transaction as the effect, before it: a concurrent request with the same key waits on the unique key until the first commits,
 * then finds the stored answer; if the first rolled back, the second goes ahead. So a retry with the same key and
 * body returns the first answer with no second effect; the same key with a different body is refused (409).
 * Business refusals (4xx) are stored too, so a retry gets the same answer; 5xx and validation errors are not.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_SYNTAX = /^[\x21-\x7e]{1,200}$/;

/**
 * Whose key it is: a signed-in user (the table idempotency_keys) or an affiliate token of the external API
 * (external_idempotency_keys, D13). The same key of two owners never meets.
 */
export type IdempotencyOwner = { userId: string } | { tokenId: number };

export type IdempotentCall = IdempotencyOwner & {
  /** The route key ('POST /api/trading/place-trade'): the same key may be used on different routes. */
  route: string;
  /** The Idempotency-Key header, if the caller sent one. */
  key: string | string[] | undefined;
  /** The validated request (body and path parameters) the key is bound to. */
  request: unknown;
};

export interface IdempotentResult<T> {
  status: number;
  body: T;
  /** true when this is the stored answer of an earlier call with the same key. */
  replayed: boolean;
}

interface StoredError {
  error: { code: ErrorCode; params: Record<string, string | number> };
}

/** JSON with object keys sorted, so the same request always hashes the same. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

export function requestHash(request: unknown): string {
  return createHash('sha256').update(canonical(request)).digest('hex');
}

function parseKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || !KEY_SYNTAX.test(key)) throw new HttpError(400, 'idempotency_key_invalid');
  return key;
}

function replay<T>(
  row: { request_hash: string; response_status: number; response_body: unknown },
  hash: string,
): IdempotentResult<T> {
  if (row.request_hash !== hash) throw new HttpError(409, 'idempotency_key_reused');
  if (row.response_status >= 400) {
    const { error } = row.response_body as StoredError;
    throw new HttpError(row.response_status, error.code, error.params);
  }
  return { status: row.response_status, body: row.response_body as T, replayed: true };
}

interface StoredRow {
  request_hash: string;
  response_status: number;
  response_body: unknown;
}

/** The key rows of one (owner, route, key): the one table and owner column the call's owner names. */
function keyStore(call: IdempotentCall, key: string) {
  const [table, column, owner] =
    'userId' in call
      ? (['idempotency_keys', 'user_id', call.userId] as const)
      : (['external_idempotency_keys', 'token_id', call.tokenId] as const);
  const where = sql`${sql.ref(column)} = ${owner} and route = ${call.route} and key = ${key}`;
  return {
    /** Inserts the row (a placeholder, or a final answer); false when the key was already there. */
    async insert(db: Db | Trx, hash: string, status: number, body: unknown): Promise<boolean> {
      const res = await sql`
        insert into ${sql.table(table)} (${sql.ref(column)}, route, key, request_hash, response_status, response_body)
        values (${owner}, ${call.route}, ${key}, ${hash}, ${status}, ${JSON.stringify(body)}::jsonb)
        on conflict do nothing returning key`.execute(db);
      return res.rows.length > 0;
    },
    async read(db: Db | Trx): Promise<StoredRow> {
      const res = await sql<StoredRow>`
        select request_hash, response_status, response_body from ${sql.table(table)} where ${where}`.execute(db);
      return res.rows[0]!;
    },
    async answer(db: Db | Trx, status: number, body: unknown): Promise<void> {
      await sql`update ${sql.table(table)} set response_status = ${status}, response_body = ${JSON.stringify(body)}::jsonb
        where ${where}`.execute(db);
    },
  };
}

/**
 * Runs `effect` in one transaction, at most once per (owner, route, key). Without a key it simply runs it.
 * `effect` returns the status and body to answer with; the body must be JSON.
 */
export async function runIdempotent<T>(
  db: Db,
  call: IdempotentCall,
  effect: (trx: Trx) => Promise<{ status: number; body: T }>,
): Promise<IdempotentResult<T>> {
  const key = parseKey(call.key);
  if (key === undefined) {
    const result = await db.transaction().execute(effect);
    return { ...result, replayed: false };
  }
  const hash = requestHash(call.request);
  const store = keyStore(call, key);

  try {
    return await db.transaction().execute(async (trx) => {
      if (!(await store.insert(trx, hash, 0, null))) return replay<T>(await store.read(trx), hash);
      const result = await effect(trx);
      await store.answer(trx, result.status, result.body);
      return { ...result, replayed: false };
    });
  } catch (err) {
    // A business refusal of a first call is the answer to remember; anything else leaves the key unused.
    if (!(err instanceof HttpError) || err.statusCode >= 500 || err.code === 'idempotency_key_reused') throw err;
    const stored: StoredError = { error: { code: err.code, params: err.params } };
    if (await store.insert(db, hash, err.statusCode, stored)) throw err;
    return replay<T>(await store.read(db), hash);
  }
}

/**
 * runIdempotent for an effect that sends one statement, atomic by itself (place-trade's tradeStakeStatement): without
 * a key it runs straight on the pool, sparing the BEGIN and COMMIT round trips; with a key it runs inside the key's
 * transaction exactly as runIdempotent does.
 */
export async function runIdempotentStatement<T>(
  db: Db,
  call: IdempotentCall,
  effect: (db: Db) => Promise<{ status: number; body: T }>,
): Promise<IdempotentResult<T>> {
  if (parseKey(call.key) === undefined) return { ...(await effect(db)), replayed: false };
  return runIdempotent(db, call, effect);
}

/** Keys are kept for a day: long enough for any retry, short enough to keep the tables small. */
export async function pruneIdempotencyKeys(db: Db, olderThan: Date): Promise<number> {
  const users = await db.deleteFrom('idempotency_keys').where('created_at', '<', olderThan).executeTakeFirst();
  const tokens = await db
    .deleteFrom('external_idempotency_keys')
    .where('created_at', '<', olderThan)
    .executeTakeFirst();
  return Number(users.numDeletedRows ?? 0n) + Number(tokens.numDeletedRows ?? 0n);
}

/** Documents the header; other headers pass through untouched. */
export const idempotencyHeaders = z.looseObject({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .optional()
    .describe(
      'Retry-safe key (1–200 printable ASCII characters): a retry with the same key and body returns the first answer',
    ),
});
