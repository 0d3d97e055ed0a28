import { createHash, createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { Checkpoint } from './checkpoints.js';
import { keyFingerprint } from './chain-key.js';

/**
 * Why a row does not match the chain (issue 13 item 5; the chain is built by migration 0018, keyed since migration
 * 0023 — issue 20 §7).
 */
export type ChainBreakReason =
  /** The row's content does not hash to its stored hash: it was edited (or its hash recomputed without the key). */
  | 'content'
  /** The row's prev_hash is not the hash of the row before it: that row was edited, removed or replaced. */
  | 'prev_hash'
  /** The row's seq skips one: the row before it was removed. */
  | 'seq_gap'
  /** The row is not on the chain at all (no seq/hash): inserted with the triggers disabled. */
  | 'unchained'
  /** The row's hash differs from the one a checkpoint outside the database recorded for its place: rewritten. */
  | 'checkpoint'
  /** The chain ends before the newest checkpoint's place: its newest rows were removed. */
  | 'missing_tail';

export interface ChainBreak {
  /** The row at fault; null for a missing tail (the rows are gone). */
  id: string | null;
  seq: string | null;
  reason: ChainBreakReason;
  /** For a missing tail: when the checkpoint that saw the removed rows was written. */
  checkpointAt?: string;
}

/**
 * What a verification found (issue 20 §7, as reviewed). Only `broken` says the log was tampered with; the key states
 * say the check could not be made with the key at hand, and `not_anchored` that the chain is consistent in itself but
 * has no checkpoint outside the database to be held against (so a cut-off tail could not be seen).
 */
export type ChainStatus = 'intact' | 'not_anchored' | 'broken' | 'key_missing' | 'key_mismatch';

export interface ChainVerification {
  status: ChainStatus;
  /** Rows verified in chain order before the first mismatch (all rows when `broken` is null). */
  verified: number;
  /** The chain position (seq) of the last verified row; 0 for an empty log. */
  verifiedUpTo: number;
  /**
   * The first row that does not verify. With a key state it is the first keyed row, which could not be checked: a
   * caller that knows only `broken` (the audit page) must not read a check it could not make as "intact".
   */
  broken: ChainBreak | null;
  /** Rows up to this place are hashed the old way (sha-256, before the key existed); later ones with the key. */
  keyedAfter: number;
  /** The newest checkpoint the chain was checked against, if any. */
  newestCheckpoint: Checkpoint | null;
  /** For `key_mismatch`: the fingerprint the checkpoints name, when they name one (else the rows told). */
  expectedKey?: string;
}

export const CHAIN_BREAK_TEXT: Record<ChainBreakReason, string> = {
  content: 'its content does not match its hash (edited, or its hash made without the chain key)',
  prev_hash: 'its prev_hash is not the hash of the row before it (that row was edited, removed or replaced)',
  seq_gap: 'its place in the chain skips one (the row before it was removed)',
  unchained: 'it is not on the chain (inserted outside the audit trigger)',
  checkpoint:
    'its hash is not the one a checkpoint outside the database recorded for its place (the chain was rewritten)',
  missing_tail:
    'the chain ends before the place a checkpoint outside the database recorded (its newest rows were removed)',
};

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A row's content as the keyed hash covers it, selected with PostgreSQL's own casts (no function the database
 * defines, which whoever edits the database could also redefine; to_char is named with its schema so that no
 * function of that name put earlier on the search path is taken instead): fixed column order, `at` in UTC with
 * microseconds, jsonb in its normalised text form.
 */
export const CONTENT_COLUMNS = `a.id::text as id,
  pg_catalog.to_char(a.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at_utc,
  a.actor_id::text as actor_id, a.actor_name, a.actor_role, a.action, a.entity_type, a.entity_id,
  a.before::text as before_text, a.after::text as after_text, a.ip`;

export interface ContentRow {
  id: string;
  at_utc: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_role: string | null;
  action: string;
  entity_type: string | null;
  entity_id: string | null;
  before_text: string | null;
  after_text: string | null;
  ip: string | null;
}

/** A row's content in the fixed order both hashes cover it (the keyed one and migration 0018's). */
function contentItems(r: ContentRow): (string | null)[] {
  return [
    r.id,
    r.at_utc,
    r.actor_id,
    r.actor_name,
    r.actor_role,
    r.action,
    r.entity_type,
    r.entity_id,
    r.before_text,
    r.after_text,
    r.ip,
  ];
}

/**
 * The hash of a row since the chain is keyed: HMAC-SHA256 under the chain key of the row's place, the hash of the row
 * before it and its content. The database holds no key, so it cannot make one (its audit_log_canonical hashes only
 * the rows of before the switch).
 */
export function keyedRowHash(key: Buffer, seq: string, prevHash: string, r: ContentRow): string {
  const content = JSON.stringify(contentItems(r));
  return createHmac('sha256', key)
    .update(`brokerage-audit-chain-v2\n${seq}\n${prevHash}\n${content}`, 'utf8')
    .digest('hex');
}

/** The place after which rows are keyed (migration 0023 recorded the chain's head then). */
export async function keyedAfter(db: Db): Promise<number> {
  const row = await sql<{ keyed_after: string }>`select keyed_after::text as keyed_after from audit_chain`.execute(db);
  return Number(row.rows[0]?.keyed_after ?? 0);
}

/**
 * Whether rows past the switch-over exist (stamped with a chain key): then a process without the key must not start,
 * since every audited write it made would be refused (stamping.ts) — better said once at start than as failed calls.
 * Answers the switch-over's place when it does.
 */
export async function keyedRowsAfter(db: Db): Promise<number | null> {
  const after = await keyedAfter(db);
  const row = await sql<{ n: number }>`select 1 as n from audit_log where seq > ${after} limit 1`.execute(db);
  return row.rows.length > 0 ? after : null;
}

/**
 * A row's canonical text as migration 0018's `audit_log_canonical` makes it, built here from the row's columns: the
 * rows up to the switch-over are checked with it. Verification must not call that function — whoever can edit the
 * database can `create or replace` it to hide an edit (issue 20 §7, review). The function's text is
 * `json_build_array(seq, coalesce(prev_hash, ''), id, at, actor_id, actor_name, actor_role, action, entity_type,
 * entity_id, before, after, ip)::text` over text values only: PostgreSQL writes that as `[` … `]` with `, ` between
 * the items, `null` for SQL NULL and each string escaped as JSON.stringify escapes it (`"` and `\`, \b \f \n \r \t,
 * other control characters as lower-case \u00xx, everything else as is). The columns come as CONTENT_COLUMNS reads
 * them (built-in casts and pg_catalog.to_char, as the function has them).
 */
export function legacyCanonical(seq: string, prevHash: string | null, r: ContentRow): string {
  const items = [seq, prevHash ?? '', ...contentItems(r)];
  return `[${items.map((v) => (v === null ? 'null' : JSON.stringify(v))).join(', ')}]`;
}

export interface VerifyOptions {
  /** The chain key; null when this process has none (then keyed rows cannot be checked: `key_missing`). */
  key: Buffer | null;
  /**
   * The checkpoints written outside the database (platform/audit/checkpoints.ts), oldest first; none (or no file)
   * leaves an otherwise whole chain `not_anchored`.
   */
  checkpoints?: readonly Checkpoint[] | null;
  batch?: number;
}

type ChainRow = ContentRow & { seq: string; prev_hash: string | null; hash: string | null };

const SAMPLE = 16;

/**
 * Whether the key at hand is the one the keyed rows were made with, decided before the walk so that a missing or
 * different key is said as such instead of as tampering. The key is the right one when a checkpoint names its
 * fingerprint, or when any of the first and last SAMPLE keyed rows hashes right under it (each row is checked on its
 * own, with its stored prev_hash: an edit by someone without the key spoils only the rows it touches). Only when
 * neither holds, and a sampled row carries a hash that is not the old sha-256 either, is it `key_mismatch` — or every
 * one of those rows was given a made-up hash, which a checkpoint naming the server's key would show as tampering.
 */
async function keyState(
  db: Db,
  key: Buffer | null,
  switchOver: number,
  checkpoints: readonly Checkpoint[],
): Promise<{ state: 'ok' | 'missing' | 'mismatch'; expected?: string }> {
  const sample = await sql<ChainRow>`
    (select ${sql.raw(CONTENT_COLUMNS)}, a.seq::text as seq, a.prev_hash, a.hash
     from audit_log a where a.seq > ${switchOver} order by a.seq limit ${SAMPLE})
    union all
    (select ${sql.raw(CONTENT_COLUMNS)}, a.seq::text as seq, a.prev_hash, a.hash
     from audit_log a where a.seq > ${switchOver} order by a.seq desc limit ${SAMPLE})`.execute(db);
  if (sample.rows.length === 0) return { state: 'ok' }; // no keyed rows: nothing needs the key
  if (!key) return { state: 'missing' };
  const fingerprint = keyFingerprint(key);
  let named: string | undefined;
  for (const c of checkpoints) {
    if (c.key === fingerprint) return { state: 'ok' };
    if (c.key) named = c.key; // the newest named fingerprint (the file is oldest first)
  }
  // A row hashed the old way (the trigger's fallback, or a rewrite with the database's own function) says nothing
  // about the key: it is a finding for the walk. Only a hash that is neither ours nor the old way hints at another key.
  let foreign = false;
  for (const r of sample.rows) {
    if (r.hash === null) continue;
    if (keyedRowHash(key, r.seq, r.prev_hash ?? '', r) === r.hash) return { state: 'ok' };
    if (sha256Hex(legacyCanonical(r.seq, r.prev_hash, r)) !== r.hash) foreign = true;
  }
  if (!foreign) return { state: 'ok' };
  return named ? { state: 'mismatch', expected: named } : { state: 'mismatch' };
}

/**
 * Walks the audit chain in seq order, in keyset batches (a million rows read `batch` at a time), recomputing each
 * row's hash in Node — with the chain key past the switch-over, the old way (sha-256 of the canonical text, rebuilt
 * by `legacyCanonical`) before it — and checking its link to the row before and any checkpoint recorded for its place.
 * Stops at the first row that does not match. Then the chain must reach the newest checkpoint (a cut tail is found
 * there), and a row without seq (inserted by hand with the triggers off) is reported: committed rows are always
 * stamped at commit. No function the database defines takes part.
 */
export async function verifyAuditChain(db: Db, options: VerifyOptions): Promise<ChainVerification> {
  const batch = options.batch ?? 5000;
  const checkpoints = options.checkpoints ?? [];
  // A checkpoint keeps the switch-over it saw: a switch-over moved later in the database would let rewritten rows
  // pass the old way. Loops, not Math.min(...spread): a year of checkpoints is more arguments than a call takes.
  let switchOver = await keyedAfter(db);
  let newestCheckpoint: Checkpoint | null = null;
  const anchored = new Map<number, string>();
  for (const c of checkpoints) {
    if (c.keyed_after < switchOver) switchOver = c.keyed_after;
    anchored.set(c.seq, c.hash);
    if (newestCheckpoint === null || c.seq > newestCheckpoint.seq) newestCheckpoint = c;
  }
  const key = await keyState(db, options.key, switchOver, checkpoints);
  const result = (
    status: ChainStatus,
    verified: number,
    verifiedUpTo: number,
    broken: ChainBreak | null,
  ): ChainVerification => ({
    status,
    verified,
    verifiedUpTo,
    broken,
    keyedAfter: switchOver,
    newestCheckpoint,
    ...(status === 'key_mismatch' && key.expected ? { expectedKey: key.expected } : {}),
  });

  let lastSeq = 0;
  let prevHash = '';
  let verified = 0;
  for (;;) {
    const rows = await sql<ChainRow>`
      select ${sql.raw(CONTENT_COLUMNS)}, a.seq::text as seq, a.prev_hash, a.hash
      from audit_log a where a.seq > ${lastSeq} order by a.seq limit ${batch}`.execute(db);
    for (const r of rows.rows) {
      const seq = Number(r.seq);
      let reason: ChainBreakReason | null = null;
      if (seq !== lastSeq + 1) reason = 'seq_gap';
      else if ((r.prev_hash ?? '') !== prevHash) reason = 'prev_hash';
      else if (r.hash === null) reason = 'content';
      else if (seq > switchOver && (key.state !== 'ok' || !options.key)) {
        // The rows from here on cannot be checked with the key at hand: said as such, not as tampering. (No key and
        // state 'ok': the first keyed rows were stamped while this walk ran.)
        const status = key.state === 'mismatch' ? 'key_mismatch' : 'key_missing';
        return result(status, verified, lastSeq, { id: r.id, seq: r.seq, reason: 'content' });
      } else if (
        seq <= switchOver
          ? sha256Hex(legacyCanonical(r.seq, r.prev_hash, r)) !== r.hash
          : keyedRowHash(options.key!, r.seq, prevHash, r) !== r.hash
      )
        reason = 'content';
      else if (anchored.has(seq) && anchored.get(seq) !== r.hash) reason = 'checkpoint';
      if (reason) return result('broken', verified, lastSeq, { id: r.id, seq: r.seq, reason });
      lastSeq = seq;
      prevHash = r.hash!;
      verified++;
    }
    if (rows.rows.length < batch) break;
  }
  if (newestCheckpoint && newestCheckpoint.seq > lastSeq)
    return result('broken', verified, lastSeq, {
      id: null,
      seq: String(newestCheckpoint.seq),
      reason: 'missing_tail',
      checkpointAt: newestCheckpoint.at,
    });
  const stray = await db
    .selectFrom('audit_log')
    .select('id')
    .where((eb) => eb.or([eb('seq', 'is', null), eb('hash', 'is', null), eb('seq', '<', sql<string>`1`)]))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (stray) return result('broken', verified, lastSeq, { id: String(stray.id), seq: null, reason: 'unchained' });
  return result(checkpoints.length === 0 ? 'not_anchored' : 'intact', verified, lastSeq, null);
}
