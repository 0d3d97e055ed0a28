import { describe, expect, it } from 'vitest';
import {
  compareDecimal,
  fromHex,
  headSignatureInput,
  keyIdOf,
  leafBytes,
  leafHash,
  nodeHash,
  toHex,
  verifyConsistency,
  verifyHeadSignature,
  verifyInclusion,
} from '../src/index.js';
import { auditPath, consistencyProof, mth, refLeafHash, sha256 } from './reference.js';
import vectors from './vectors.json' with { type: 'json' };

/** A copy of `hex` with one bit of byte `at` flipped. */
function flip(hex: string, at = 0): string {
  const b = fromHex(hex);
  b[at % b.length]! ^= 1;
  return toHex(b);
}

/** Sizes whose proofs are also tampered element by element (all of them would only repeat the same shapes). */
const DEEP = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 32, 33, 40]);

function leavesOf(n: number): Buffer[] {
  return Array.from({ length: n }, (_, i) => refLeafHash(`v1\nGBPUSD\n${i + 1}\n${1767225600000 + i}\n1.2${i}`));
}

describe('known answers (vectors.json, computed with node:crypto)', () => {
  it('the D27 leaf example: its bytes and leaf hash = sha256(0x00 ‖ bytes)', async () => {
    const { leaf_example } = vectors;
    const bytes = leafBytes({ symbol: 'EURUSD', seq: 1, time_ms: 1767225600000, price: '1.08520' });
    expect(toHex(bytes)).toBe(leaf_example.bytes);
    expect(new TextDecoder().decode(bytes)).toBe(leaf_example.text);
    // The bytes D27 spells out, byte by byte.
    expect(toHex(bytes)).toBe(
      '76 31 0a 45 55 52 55 53 44 0a 31 0a 31 37 36 37 32 32 35 36 30 30 30 30 30 0a 31 2e 30 38 35 32 30'.replace(
        / /g,
        '',
      ),
    );
    const hash = toHex(await leafHash({ symbol: 'EURUSD', seq: 1, time_ms: 1767225600000, price: '1.08520' }));
    expect(hash).toBe(leaf_example.leaf_hash);
    expect(hash).toBe(sha256(Buffer.of(0), Buffer.from(leaf_example.bytes, 'hex')).toString('hex'));
    // A trailing zero of the price is part of the leaf: 1.0852 is another leaf.
    expect(toHex(await leafHash({ symbol: 'EURUSD', seq: 1, time_ms: 1767225600000, price: '1.0852' }))).not.toBe(hash);
  });

  it('node hash and the roots of trees of 1..8 leaves', async () => {
    const { node_example, tree } = vectors;
    expect(toHex(await nodeHash(node_example.left, node_example.right))).toBe(node_example.node_hash);
    const leaves = await Promise.all(tree.leaves.map((l) => leafHash(l)));
    for (let n = 1; n <= leaves.length; n++) {
      // The root of n leaves proven by the inclusion of every leaf against the stored root.
      for (let i = 0; i < n; i++) {
        const path = auditPath(
          i,
          leaves.slice(0, n).map((b) => Buffer.from(b)),
        );
        expect(await verifyInclusion(leaves[i]!, i, n, path, tree.roots[n]!)).toBe(true);
      }
    }
    expect(tree.roots[0]).toBe(vectors.empty_root);
  });

  it('the head signature input (50 bytes) and an Ed25519 signature made by node:crypto', async () => {
    const { head_example } = vectors;
    const input = headSignatureInput(head_example.head);
    expect(input.length).toBe(50);
    expect(toHex(input)).toBe(head_example.signature_input);
    expect(await verifyHeadSignature(head_example.head, head_example.public_key)).toBe(true);
    expect(await keyIdOf(head_example.public_key)).toBe(head_example.key_id);
    const { head } = head_example;
    expect(await verifyHeadSignature({ ...head, time_ms: head.time_ms + 1 }, head_example.public_key)).toBe(false);
    expect(await verifyHeadSignature({ ...head, tree_size: head.tree_size + 1 }, head_example.public_key)).toBe(false);
    expect(await verifyHeadSignature({ ...head, root: flip(head.root, 31) }, head_example.public_key)).toBe(false);
    expect(await verifyHeadSignature({ ...head, signature: flip(head.signature, 5) }, head_example.public_key)).toBe(
      false,
    );
    expect(await verifyHeadSignature(head, flip(head_example.public_key, 3))).toBe(false);
    expect(await verifyHeadSignature(head, 'not hex')).toBe(false);
  });
});

describe('trees of 1..40 leaves against an independent RFC 6962 implementation', () => {
  it('every inclusion proof verifies; a changed leaf, path, root or index fails', async () => {
    for (let n = 1; n <= 40; n++) {
      const d = leavesOf(n);
      const root = mth(d);
      for (let i = 0; i < n; i++) {
        const path = auditPath(i, d);
        expect(await verifyInclusion(d[i]!, i, n, path, root), `n=${n} i=${i}`).toBe(true);
        expect(await verifyInclusion(flip(d[i]!.toString('hex')), i, n, path, root)).toBe(false);
        expect(await verifyInclusion(d[i]!, i, n, path, flip(root.toString('hex'), 7))).toBe(false);
        if (n > 1) expect(await verifyInclusion(d[i]!, (i + 1) % n, n, path, root), `index n=${n} i=${i}`).toBe(false);
        expect(await verifyInclusion(d[i]!, i + n, n, path, root)).toBe(false);
        for (let j = 0; DEEP.has(n) && j < path.length; j++) {
          const tampered = path.map((p, k) => (k === j ? flip(p.toString('hex'), j) : p));
          expect(await verifyInclusion(d[i]!, i, n, tampered, root)).toBe(false);
        }
        if (path.length) expect(await verifyInclusion(d[i]!, i, n, path.slice(1), root)).toBe(false);
        expect(await verifyInclusion(d[i]!, i, n, [...path, root], root)).toBe(false);
      }
    }
  }, 120_000);

  it('every consistency proof between sizes 1 ≤ m ≤ n ≤ 40 verifies; a changed proof, root or history fails', async () => {
    const all = leavesOf(40);
    for (let n = 1; n <= 40; n++) {
      const d = all.slice(0, n);
      const root = mth(d);
      for (let m = 1; m <= n; m++) {
        const first = mth(d.slice(0, m));
        const proof = consistencyProof(m, d);
        expect(await verifyConsistency(m, n, first, root, proof), `m=${m} n=${n}`).toBe(true);
        expect(await verifyConsistency(m, n, flip(first.toString('hex')), root, proof)).toBe(false);
        expect(await verifyConsistency(m, n, first, flip(root.toString('hex')), proof)).toBe(false);
        for (let j = 0; DEEP.has(n) && j < proof.length; j++) {
          const tampered = proof.map((p, k) => (k === j ? flip(p.toString('hex'), 3) : p));
          expect(await verifyConsistency(m, n, first, root, tampered), `m=${m} n=${n} j=${j}`).toBe(false);
        }
        if (proof.length) expect(await verifyConsistency(m, n, first, root, proof.slice(0, -1))).toBe(false);
        // Rewritten history: leaf 0 of the first tree changed, then the log re-grown to n.
        const rewritten = [refLeafHash('v1\nGBPUSD\n1\n1767225600000\n1.99'), ...d.slice(1)];
        const newProof = consistencyProof(m, rewritten);
        expect(await verifyConsistency(m, n, first, mth(rewritten), newProof)).toBe(false);
      }
      expect(await verifyConsistency(n + 1, n, root, root, [])).toBe(false);
    }
  }, 120_000);
});

describe('compareDecimal', () => {
  it('compares exactly, trailing zeros aside', () => {
    expect(compareDecimal('1.10', '1.1')).toBe(0);
    expect(compareDecimal('1.08531', '1.08530')).toBe(1);
    expect(compareDecimal('0.3', '0.30000000000000004')).toBe(-1);
    expect(compareDecimal('67500.12', '67500.120')).toBe(0);
    expect(compareDecimal('-1', '0')).toBe(-1);
    expect(() => compareDecimal('1e3', '1')).toThrow(TypeError);
  });
});
