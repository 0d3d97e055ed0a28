import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../../platform/db/types.js';
import { guardFlush } from '../prices/feed-store.js';
import { headSignatureInput, nodeHash } from './hash.js';
import type { PriceLogSigner } from './keys.js';
import { dbNodeSource, nodeKeyString, rangeKeys, rootAt } from './tree.js';

/**
 * The price log's signed tree heads (decisions.md D27). The feed's statement appends leaves (level 0 of
 * price_log_nodes, feed-store.ts); publishing a head hashes the subtrees above the new leaves, signs the root of the
 * whole log and records the head. Heads are what settlement waits for (settlement.ts) and what every proof is checked
 * against, so a head is never changed or removed once written.
 */

/** The feed publishes a head at most this often (after a write that stored ticks)… */
export const HEAD_INTERVAL_MS = 1000;
/** …and at least this often while ticks flow. */
export const HEAD_MAX_AGE_MS = 10_000;
/**
 * Leaves hashed by one head at most: the first head after the migration (which made every tick already stored a leaf)
 * may face millions, and the tick writes wait on the state row meanwhile. A head may cover fewer leaves than are
 * stored; the next ones catch up.
 */
export const MAX_LEAVES_PER_HEAD = 200_000;
/** Leaf hashes read per query while hashing. */
const READ_CHUNK = 20_000;
/** Node rows per INSERT. */
const WRITE_CHUNK = 5_000;

export interface Head {
  treeSize: number;
  timeMs: number;
  root: Buffer;
  signature: Buffer;
  keyId: string;
}

/** The public form of a head (D27; the HTTP answers and the live stream). */
export interface HeadJson {
  tree_size: number;
  time_ms: number;
  root: string;
  signature: string;
  key_id: string;
}

export function headJson(head: Head): HeadJson {
  return {
    tree_size: head.treeSize,
    time_ms: head.timeMs,
    root: head.root.toString('hex'),
    signature: head.signature.toString('hex'),
    key_id: head.keyId,
  };
}

export interface HeadRow {
  tree_size: string | number;
  time_ms: string | number;
  root: Buffer | Uint8Array;
  signature: Buffer | Uint8Array;
  key_id: string;
}

export function headFromRow(row: HeadRow): Head {
  return {
    treeSize: Number(row.tree_size),
    timeMs: Number(row.time_ms),
    root: Buffer.from(row.root),
    signature: Buffer.from(row.signature),
    keyId: row.key_id,
  };
}

interface StackNode {
  level: number;
  idx: number;
  hash: Buffer;
}

/**
 * Hashes the internal nodes (levels ≥ 1) completed by the leaves [from, to), given the frontier of `from` (the perfect
 * subtrees of [0, from), largest first): the compact-range walk — push each leaf, merge the top two while they are the
 * same level. Writes them and returns nothing; the caller holds the state row.
 */
async function hashNewNodes(trx: Trx, from: number, to: number): Promise<void> {
  const frontierKeys = rangeKeys(0, from);
  const loaded = await dbNodeSource(trx).get(frontierKeys);
  const stack: StackNode[] = frontierKeys.map((key) => {
    const hash = loaded.get(nodeKeyString(key));
    if (!hash) throw new Error(`price log: frontier node ${nodeKeyString(key)} is not stored`);
    return { ...key, hash };
  });
  let pending: StackNode[] = [];
  const write = async () => {
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    await sql`
      insert into price_log_nodes (level, idx, hash)
      select l, i, decode(h, 'hex')
      from unnest(${rows.map((n) => n.level)}::smallint[], ${rows.map((n) => n.idx)}::bigint[],
                  ${rows.map((n) => n.hash.toString('hex'))}::text[]) as v(l, i, h)`.execute(trx);
  };
  for (let start = from; start < to; start += READ_CHUNK) {
    const end = Math.min(to, start + READ_CHUNK);
    const { rows } = await sql<{ idx: string; hash: Buffer }>`
      select idx, hash from price_log_nodes
      where level = 0 and idx >= ${start}::bigint and idx < ${end}::bigint
      order by idx`.execute(trx);
    if (rows.length !== end - start) throw new Error(`price log: leaves [${start}, ${end}) are not all stored`);
    for (const row of rows) {
      stack.push({ level: 0, idx: Number(row.idx), hash: Buffer.from(row.hash) });
      while (stack.length >= 2 && stack[stack.length - 1]!.level === stack[stack.length - 2]!.level) {
        const right = stack.pop()!;
        const left = stack.pop()!;
        const merged = { level: left.level + 1, idx: left.idx / 2, hash: nodeHash(left.hash, right.hash) };
        stack.push(merged);
        pending.push(merged);
      }
      if (pending.length >= WRITE_CHUNK) await write();
    }
  }
  await write();
}

/**
 * Publishes a signed tree head of the log as it stands, in one transaction: the state row locked (tick writes raise
 * its size under the same lock, so every leaf below the size read here is committed), the internal nodes above the
 * leaves not hashed yet written, `hashed_size` moved on, the root computed from the stored nodes and signed (Ed25519
 * over RFC 6962's tree head input), the head inserted. Returns null when the log did not grow since the last head
 * (a head is keyed by its size: the same size again would be the same tree). `nowMs` is the head's time, never
 * earlier than the last head's.
 */
export async function publishHead(db: Db, signer: PriceLogSigner, nowMs: number): Promise<Head | null> {
  return db.transaction().execute(async (trx) => {
    // The state row is what every tick write locks too: a publisher stopped inside this transaction (SIGSTOP, a stalled
    // machine) must not hold it past a moment, or the next leader could store no tick (the flush's guard, D22).
    await guardFlush(trx);
    const state = await trx
      .selectFrom('price_log_state')
      .select(['size', 'hashed_size'])
      .where('id', '=', 1)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const last = await trx
      .selectFrom('price_log_heads')
      .select(['tree_size', 'time_ms'])
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirst();
    const hashed = Number(state.hashed_size);
    const size = Math.min(Number(state.size), hashed + MAX_LEAVES_PER_HEAD);
    if (size === 0 || (last && Number(last.tree_size) >= size)) return null;
    if (size > hashed) {
      await hashNewNodes(trx, hashed, size);
      await trx.updateTable('price_log_state').set({ hashed_size: size }).where('id', '=', 1).execute();
    }
    const root = await rootAt(dbNodeSource(trx), size);
    const timeMs = Math.max(Math.floor(nowMs), last ? Number(last.time_ms) : 0);
    const signature = signer.sign(headSignatureInput({ timeMs, treeSize: size, root }));
    const head: Head = { treeSize: size, timeMs, root, signature, keyId: signer.keyId };
    // The key that signed, kept for good: a proof of an old head still names it after the key is replaced.
    await trx
      .insertInto('price_log_keys')
      .values({ key_id: head.keyId, public_key: signer.publicKey().raw })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
    await trx
      .insertInto('price_log_heads')
      .values({ tree_size: size, time_ms: timeMs, root, signature, key_id: head.keyId })
      .execute();
    return head;
  });
}
