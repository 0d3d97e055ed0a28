import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, leafHash, nodeHash } from '../src/modules/price-log/hash.js';
import {
  consistencyPath,
  inclusionPath,
  rootAt,
  type NodeKey,
  type NodeSource,
} from '../src/modules/price-log/tree.js';

/**
 * tree.ts computes RFC 6962's MTH, audit paths and consistency proofs from stored perfect subtrees. Here they are
 * compared, for every tree size 1..70 and every index / every pair of sizes, with the RFC's definitions written out
 * literally over the leaf hashes (§2.1, §2.1.1, §2.1.2), and each answer is checked to cost one load.
 */

const LEAVES = Array.from({ length: 70 }, (_, i) =>
  leafHash({ symbol: i % 3 ? 'EURUSD' : 'BTCUSDT', seq: i + 1, timeMs: 1767225600000 + i * 1000, price: `1.${i}` }),
);

function k(n: number): number {
  let p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

/** RFC 6962 §2.1 MTH. */
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return createHash('sha256').digest();
  if (d.length === 1) return d[0]!;
  const s = k(d.length);
  return nodeHash(mth(d.slice(0, s)), mth(d.slice(s)));
}

/** RFC 6962 §2.1.1 PATH(m, D[n]). */
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}

/** RFC 6962 §2.1.2 SUBPROOF(m, D[n], b). */
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s
    ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))]
    : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

/** What price_log_nodes holds for `n` leaves once hashed: every complete perfect subtree; counts the loads. */
function memorySource(n: number): NodeSource & { loads: number; keys: number } {
  const nodes = new Map<string, Buffer>();
  for (let level = 0; 2 ** level <= n; level++) {
    const width = 2 ** level;
    for (let idx = 0; (idx + 1) * width <= n; idx++)
      nodes.set(`${level}:${idx}`, mth(LEAVES.slice(idx * width, (idx + 1) * width)));
  }
  const src = {
    loads: 0,
    keys: 0,
    async get(keys: readonly NodeKey[]) {
      src.loads += 1;
      src.keys += keys.length;
      const out = new Map<string, Buffer>();
      for (const key of keys) {
        const hash = nodes.get(`${key.level}:${key.idx}`);
        if (hash) out.set(`${key.level}:${key.idx}`, hash);
      }
      return out;
    },
  };
  return src;
}

const hex = (list: Buffer[]) => list.map((b) => b.toString('hex'));

describe('price log tree (RFC 6962 over stored subtrees)', () => {
  it('rootAt is MTH for every size 0..70, in one load', async () => {
    expect((await rootAt(memorySource(0), 0)).equals(EMPTY_ROOT)).toBe(true);
    for (let n = 1; n <= 70; n++) {
      const src = memorySource(n);
      expect((await rootAt(src, n)).toString('hex'), `size ${n}`).toBe(mth(LEAVES.slice(0, n)).toString('hex'));
      expect(src.loads).toBe(1);
      // An older size is computable from the same stored nodes (a published head's root).
      for (const m of [1, Math.ceil(n / 2), n - 1].filter((x) => x > 0)) {
        expect((await rootAt(src, m)).equals(mth(LEAVES.slice(0, m))), `size ${m} of ${n}`).toBe(true);
      }
    }
  });

  it('inclusionPath is PATH(m, D[n]) for every leaf of every size 1..70, in one load', async () => {
    for (let n = 1; n <= 70; n++) {
      const src = memorySource(n);
      for (let m = 0; m < n; m++) {
        src.loads = 0;
        const got = await inclusionPath(src, m, n);
        expect(hex(got), `leaf ${m} of ${n}`).toEqual(hex(path(m, LEAVES.slice(0, n))));
        expect(src.loads).toBe(1);
      }
    }
  });

  it('consistencyPath is PROOF(m, D[n]) for every 0 < m ≤ n ≤ 70, in one load', async () => {
    for (let n = 1; n <= 70; n++) {
      const src = memorySource(n);
      for (let m = 1; m <= n; m++) {
        src.loads = 0;
        const got = await consistencyPath(src, m, n);
        expect(hex(got), `${m} → ${n}`).toEqual(hex(subproof(m, LEAVES.slice(0, n), true)));
        expect(src.loads).toBeLessThanOrEqual(1);
      }
    }
  });

  it('refuses impossible arguments and a node that is not stored', async () => {
    const src = memorySource(10);
    await expect(inclusionPath(src, 10, 10)).rejects.toThrow(RangeError);
    await expect(consistencyPath(src, 0, 5)).rejects.toThrow(RangeError);
    await expect(consistencyPath(src, 6, 5)).rejects.toThrow(RangeError);
    // 16 leaves need the level-4 node, which 10 stored leaves do not have.
    await expect(rootAt(src, 16)).rejects.toThrow(/not stored/);
  });
});
