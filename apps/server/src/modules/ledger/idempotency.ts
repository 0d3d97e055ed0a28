import { createHash } from 'node:crypto';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import type { ErrorCode } from '../../platform/http/messages.js';
import type { Trx } from './service.js';

/**
 * Idempotency-Key for calls that move money (decisions.md D3). The key row is inserted in the same transaction as
 * the effect, before it: a concurrent request with the same key waits on the unique key until the first commits,
 * then finds the stored answer; if the first rolled back, the second goes ahead. So a retry with the same key and
 * body returns the first answer with no second effect; the same key with a different body is refused (409).
 * Business refusals (4xx) are stored too, so a retry gets the same answer; 5xx and validation errors are not.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_SYNTAX = /^[\x21-\x7e]{1,200}$/;

export interface IdempotentCall {
  userId: string;
  /** The route key ('POST /api/trading/place-trade'): the same key may be used on different routes. */
  route: string;
  /** The Idempotency-Key header, if the caller sent one. */
  key: string | string[] | undefined;
  /** The validated request (body and path parameters) the key is bound to. */
  request: unknown;
}

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

/**
 * Runs `effect` in one transaction, at most once per (user, route, key). Without a key it simply runs it.
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
  const ident = { user_id: call.userId, route: call.route, key };

  try {
    return await db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto('idempotency_keys')
        .values({ ...ident, request_hash: hash, response_status: 0, response_body: 'null' })
        .onConflict((oc) => oc.columns(['user_id', 'route', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (!claimed) {
        const row = await trx
          .selectFrom('idempotency_keys')
          .select(['request_hash', 'response_status', 'response_body'])
          .where('user_id', '=', ident.user_id)
          .where('route', '=', ident.route)
          .where('key', '=', ident.key)
          .executeTakeFirstOrThrow();
        return replay<T>(row, hash);
      }
      const result = await effect(trx);
      await trx
        .updateTable('idempotency_keys')
        .set({ response_status: result.status, response_body: JSON.stringify(result.body) })
        .where('user_id', '=', ident.user_id)
        .where('route', '=', ident.route)
        .where('key', '=', ident.key)
        .execute();
      return { ...result, replayed: false };
    });
  } catch (err) {
    // A business refusal of a first call is the answer to remember; anything else leaves the key unused.
    if (!(err instanceof HttpError) || err.statusCode >= 500 || err.code === 'idempotency_key_reused') throw err;
    const stored: StoredError = { error: { code: err.code, params: err.params } };
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ ...ident, request_hash: hash, response_status: err.statusCode, response_body: JSON.stringify(stored) })
      .onConflict((oc) => oc.columns(['user_id', 'route', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) throw err;
    const row = await db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'response_status', 'response_body'])
      .where('user_id', '=', ident.user_id)
      .where('route', '=', ident.route)
      .where('key', '=', ident.key)
      .executeTakeFirstOrThrow();
    return replay<T>(row, hash);
  }
}

/** Keys are kept for a day: long enough for any retry, short enough to keep the table small. */
export async function pruneIdempotencyKeys(db: Db, olderThan: Date): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('created_at', '<', olderThan).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0n);
}
