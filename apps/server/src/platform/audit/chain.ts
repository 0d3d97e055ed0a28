import { createHash, createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { Checkpoint } from './checkpoints.js';

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

export interface ChainVerification {
  /** Rows verified in chain order before the first mismatch (all rows when `broken` is null). */
  verified: number;
  /** The chain position (seq) of the last verified row; 0 for an empty log. */
  verifiedUpTo: number;
  broken: ChainBreak | null;
  /** Rows up to this place are hashed the old way (sha-256, before the key existed); later ones with the key. */
  keyedAfter: number;
  /** The newest checkpoint the chain was checked against, if any. */
  newestCheckpoint: Checkpoint | null;
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
 * defines, which whoever edits the database could also redefine): fixed column order, `at` in UTC with microseconds,
 * jsonb in its normalised text form.
 */
export const CONTENT_COLUMNS = `a.id::text as id,
  to_char(a.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at_utc,
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

/**
 * The hash of a row since the chain is keyed: HMAC-SHA256 under the chain key of the row's place, the hash of the row
 * before it and its content. The database holds no key, so it cannot make one (its audit_log_canonical hashes only
 * the rows of before the switch).
 */
export function keyedRowHash(key: Buffer, seq: string, prevHash: string, r: ContentRow): string {
  const content = JSON.stringify([
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
  ]);
  return createHmac('sha256', key)
    .update(`brokerage-audit-chain-v2\n${seq}\n${prevHash}\n${content}`, 'utf8')
    .digest('hex');
}

/** The place after which rows are keyed (migration 0023 recorded the chain's head then). */
export async function keyedAfter(db: Db): Promise<number> {
  const row = await sql<{ keyed_after: string }>`select keyed_after::text as keyed_after from audit_chain`.execute(db);
  return Number(row.rows[0]?.keyed_after ?? 0);
}

export interface VerifyOptions {
  /** The chain key; null when this process has none (then a keyed row cannot be checked and counts as a mismatch). */
  key: Buffer | null;
  /** The checkpoints written outside the database (platform/audit/checkpoints.ts), oldest first. */
  checkpoints?: readonly Checkpoint[];
  batch?: number;
}

/**
 * Walks the audit chain in seq order, in keyset batches (a million rows read `batch` at a time), recomputing each
 * row's hash — with the chain key past the switch-over, the old way (sha-256 of `audit_log_canonical`) before it —
 * and checking its link to the row before and any checkpoint recorded for its place. Stops at the first row that does
 * not match. Then the chain must reach the newest checkpoint (a cut tail is found there), and a row without seq
 * (inserted by hand with the triggers off) is reported: committed rows are always stamped at commit.
 */
export async function verifyAuditChain(db: Db, options: VerifyOptions): Promise<ChainVerification> {
  const batch = options.batch ?? 5000;
  const checkpoints = options.checkpoints ?? [];
  // A checkpoint keeps the switch-over it saw: a switch-over moved later in the database would let rewritten rows
  // pass the old way.
  const switchOver = Math.min(await keyedAfter(db), ...checkpoints.map((c) => c.keyed_after));
  const anchored = new Map<number, string>();
  for (const c of checkpoints) anchored.set(c.seq, c.hash);
  const newestCheckpoint = checkpoints.reduce<Checkpoint | null>((m, c) => (m === null || c.seq > m.seq ? c : m), null);
  const result = (verified: number, verifiedUpTo: number, broken: ChainBreak | null): ChainVerification => ({
    verified,
    verifiedUpTo,
    broken,
    keyedAfter: switchOver,
    newestCheckpoint,
  });

  let lastSeq = 0;
  let prevHash = '';
  let verified = 0;
  for (;;) {
    const rows = await sql<
      ContentRow & { seq: string; prev_hash: string | null; hash: string | null; legacy: string | null }
    >`
      select ${sql.raw(CONTENT_COLUMNS)}, a.seq::text as seq, a.prev_hash, a.hash,
        case when a.seq <= ${switchOver} then audit_log_canonical(a) end as legacy
      from audit_log a where a.seq > ${lastSeq} order by a.seq limit ${batch}`.execute(db);
    for (const r of rows.rows) {
      const seq = Number(r.seq);
      let reason: ChainBreakReason | null = null;
      if (seq !== lastSeq + 1) reason = 'seq_gap';
      else if ((r.prev_hash ?? '') !== prevHash) reason = 'prev_hash';
      else if (r.hash === null) reason = 'content';
      else if (
        seq <= switchOver
          ? sha256Hex(r.legacy ?? '') !== r.hash
          : !options.key || keyedRowHash(options.key, r.seq, prevHash, r) !== r.hash
      )
        reason = 'content';
      else if (anchored.has(seq) && anchored.get(seq) !== r.hash) reason = 'checkpoint';
      if (reason) return result(verified, lastSeq, { id: r.id, seq: r.seq, reason });
      lastSeq = seq;
      prevHash = r.hash!;
      verified++;
    }
    if (rows.rows.length < batch) break;
  }
  if (newestCheckpoint && newestCheckpoint.seq > lastSeq)
    return result(verified, lastSeq, {
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
  if (stray) return result(verified, lastSeq, { id: String(stray.id), seq: null, reason: 'unchained' });
  return result(verified, lastSeq, null);
}
