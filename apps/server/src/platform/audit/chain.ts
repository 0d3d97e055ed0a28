import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';

/** Why a row does not match the chain (issue 13 item 5; the chain is built by migration 0018). */
export type ChainBreakReason =
  /** The row's content does not hash to its stored hash: it was edited. */
  | 'content'
  /** The row's prev_hash is not the hash of the row before it: that row was edited, removed or replaced. */
  | 'prev_hash'
  /** The row's seq skips one: the row before it was removed. */
  | 'seq_gap'
  /** The row is not on the chain at all (no seq/hash): inserted with the triggers disabled. */
  | 'unchained';

export interface ChainBreak {
  id: string;
  seq: string | null;
  reason: ChainBreakReason;
}

export interface ChainVerification {
  /** Rows verified in chain order before the first mismatch (all rows when `broken` is null). */
  verified: number;
  /** The chain position (seq) of the last verified row; 0 for an empty log. */
  verifiedUpTo: number;
  broken: ChainBreak | null;
}

export const CHAIN_BREAK_TEXT: Record<ChainBreakReason, string> = {
  content: 'its content does not match its hash (edited)',
  prev_hash: 'its prev_hash is not the hash of the row before it (that row was edited, removed or replaced)',
  seq_gap: 'its place in the chain skips one (the row before it was removed)',
  unchained: 'it is not on the chain (inserted outside the audit trigger)',
};

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Walks the audit chain in seq order, in keyset batches (a million rows read `batch` at a time), recomputing each
 * row's hash from its canonical content (`audit_log_canonical`, the same text the trigger hashed) and checking its link
 * to the row before. Stops at the first row that does not match. A row without seq (inserted by hand with the
 * triggers off) is reported after the chain itself checks out: committed rows are always stamped at commit.
 */
export async function verifyAuditChain(db: Db, batch = 5000): Promise<ChainVerification> {
  let lastSeq = 0;
  let prevHash = '';
  let verified = 0;
  for (;;) {
    const rows = await sql<{
      id: string;
      seq: string;
      prev_hash: string | null;
      hash: string | null;
      canonical: string;
    }>`
      select a.id::text as id, a.seq::text as seq, a.prev_hash, a.hash, audit_log_canonical(a) as canonical
      from audit_log a where a.seq > ${lastSeq} order by a.seq limit ${batch}`.execute(db);
    for (const r of rows.rows) {
      const seq = Number(r.seq);
      let reason: ChainBreakReason | null = null;
      if (seq !== lastSeq + 1) reason = 'seq_gap';
      else if ((r.prev_hash ?? '') !== prevHash) reason = 'prev_hash';
      else if (r.hash === null || sha256Hex(r.canonical) !== r.hash) reason = 'content';
      if (reason) return { verified, verifiedUpTo: lastSeq, broken: { id: r.id, seq: r.seq, reason } };
      lastSeq = seq;
      prevHash = r.hash!;
      verified++;
    }
    if (rows.rows.length < batch) break;
  }
  const stray = await db
    .selectFrom('audit_log')
    .select('id')
    .where((eb) => eb.or([eb('seq', 'is', null), eb('hash', 'is', null), eb('seq', '<', sql<string>`1`)]))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (stray)
    return { verified, verifiedUpTo: lastSeq, broken: { id: String(stray.id), seq: null, reason: 'unchained' } };
  return { verified, verifiedUpTo: lastSeq, broken: null };
}
