import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../../platform/db/types.js';
import { EMPTY_ROOT, nodeHash } from './hash.js';

/**
 * The price log's tree (decisions.md D27): RFC 6962 §2.1's MTH, audit paths (§2.1.1) and consistency proofs (§2.1.2)
 * computed from the stored hashes of perfect subtrees (`price_log_nodes`: level L, idx i = the leaves
 * [i·2^L, (i+1)·2^L)) instead of from the leaves.
 *
 * Every subtree RFC 6962's recursion visits starts at a multiple of a power of two at least as large as itself (the
 * left part is a power of two, the right part is no larger), so its MTH is the fold of the perfect aligned subtrees of
 * its binary decomposition, largest first. Each function first plans those keys, loads them in one call and only then
 * hashes: a proof costs one query, whatever its size.
 */

export interface NodeKey {
  level: number;
  idx: number;
}

/** Loads stored node hashes (price_log_nodes) in one query; key of the map: `${level}:${idx}`. */
export interface NodeSource {
  get(keys: readonly NodeKey[]): Promise<Map<string, Buffer>>;
}

export function nodeKeyString(key: NodeKey): string {
  return `${key.level}:${key.idx}`;
}

export function dbNodeSource(db: Db | Trx): NodeSource {
  return {
    async get(keys) {
      const out = new Map<string, Buffer>();
      if (keys.length === 0) return out;
      const { rows } = await sql<{ level: number; idx: string; hash: Buffer }>`
        select n.level, n.idx, n.hash
        from unnest(${keys.map((k) => k.level)}::smallint[], ${keys.map((k) => k.idx)}::bigint[]) as w(level, idx)
        join price_log_nodes n on n.level = w.level and n.idx = w.idx`.execute(db);
      for (const row of rows) out.set(`${row.level}:${row.idx}`, Buffer.from(row.hash));
      return out;
    },
  };
}

/** The largest power of two strictly below n (n ≥ 2). Arithmetic, not bit operations: sizes may pass 2^31. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The perfect aligned subtrees whose fold is MTH(D[start:end]), largest (leftmost) first. */
export function rangeKeys(start: number, end: number): NodeKey[] {
  const keys: NodeKey[] = [];
  let at = start;
  while (at < end) {
    let width = 1;
    let level = 0;
    while (width * 2 <= end - at) {
      width *= 2;
      level += 1;
    }
    if (at % width !== 0) throw new Error(`price log: range [${start}, ${end}) is not a subtree of RFC 6962's shape`);
    keys.push({ level, idx: at / width });
    at += width;
  }
  return keys;
}

/** A planned MTH: the range, hashed once its keys are loaded. */
type Range = readonly [start: number, end: number];

async function hashRanges(src: NodeSource, ranges: readonly Range[]): Promise<Buffer[]> {
  const planned = ranges.map(([start, end]) => rangeKeys(start, end));
  const unique = new Map<string, NodeKey>();
  for (const keys of planned) for (const key of keys) unique.set(nodeKeyString(key), key);
  const nodes = await src.get([...unique.values()]);
  return planned.map((keys) => {
    const hashes = keys.map((key) => {
      const hash = nodes.get(nodeKeyString(key));
      if (!hash) throw new Error(`price log: node ${nodeKeyString(key)} is not stored`);
      return hash;
    });
    let acc = hashes[hashes.length - 1]!;
    for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i]!, acc);
    return acc;
  });
}

function checkSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`price log: ${name} must be a whole number ≥ 0`);
}

/** MTH of the first `size` leaves (size ≤ price_log_state.hashed_size, or a size whose subtrees are all stored). */
export async function rootAt(src: NodeSource, size: number): Promise<Buffer> {
  checkSize('size', size);
  if (size === 0) return Buffer.from(EMPTY_ROOT);
  const [root] = await hashRanges(src, [[0, size]]);
  return root!;
}

/** The ranges of PATH(m, D[start:end]) (RFC 6962 §2.1.1), leaf-side first. */
export function inclusionRanges(index: number, size: number): Range[] {
  const out: Range[] = [];
  let start = 0;
  let end = size;
  // Walk down from the root; each level's sibling is appended after the deeper ones, so collect then reverse.
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      out.push([start + k, end]);
      end = start + k;
    } else {
      out.push([start, start + k]);
      start += k;
    }
  }
  return out.reverse();
}

/** RFC 6962 §2.1.1 audit path of leaf `index` in the tree of `size` leaves, leaf-side first. */
export async function inclusionPath(src: NodeSource, index: number, size: number): Promise<Buffer[]> {
  checkSize('index', index);
  checkSize('size', size);
  if (index >= size) throw new RangeError('price log: the leaf index must be below the tree size');
  return hashRanges(src, inclusionRanges(index, size));
}

/** The ranges of PROOF(m, D[n]) = SUBPROOF(m, D[n], true) (RFC 6962 §2.1.2), in the RFC's order. */
export function consistencyRanges(first: number, second: number): Range[] {
  const out: Range[] = [];
  let start = 0;
  let end = second;
  let m = first;
  let complete = true;
  // SUBPROOF appends the sibling after the deeper subproof: collect top-down, then reverse.
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      out.push([start + k, end]);
      end = start + k;
    } else {
      out.push([start, start + k]);
      start += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) out.push([start, end]);
  return out.reverse();
}

/** RFC 6962 §2.1.2 consistency proof from `first` to `second` (0 < first ≤ second). */
export async function consistencyPath(src: NodeSource, first: number, second: number): Promise<Buffer[]> {
  checkSize('first', first);
  checkSize('second', second);
  if (first === 0 || first > second) throw new RangeError('price log: a consistency proof needs 0 < first ≤ second');
  return hashRanges(src, consistencyRanges(first, second));
}
