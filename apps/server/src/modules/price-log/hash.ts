import { createHash } from 'node:crypto';

/**
 * The price log's bytes and hashes (decisions.md D27, RFC 6962 §2.1): the one place the server spells them. The
 * verifier (packages/verifier) spells them again on its own, by design: it must not depend on the server's code, and
 * the tests prove both agree (and with the SQL of feed-store.ts, which hashes the leaves as it stores the ticks).
 */

export interface LogLeaf {
  symbol: string;
  /** The symbol's tick count from 1. */
  seq: number | string;
  timeMs: number | string;
  /** The decimal string as stored (price::text). */
  price: string;
}

/** `v1\n<symbol>\n<symbol_seq>\n<time_ms>\n<price>` in UTF-8. */
export function leafBytes(leaf: LogLeaf): Buffer {
  return Buffer.from(`v1\n${leaf.symbol}\n${leaf.seq}\n${leaf.timeMs}\n${leaf.price}`, 'utf8');
}

/** SHA-256(0x00 ‖ leaf bytes). */
export function leafHash(leaf: LogLeaf): Buffer {
  return createHash('sha256').update(Buffer.of(0)).update(leafBytes(leaf)).digest();
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
}

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = createHash('sha256').digest();

/**
 * The 50 bytes an Ed25519 head signature covers (RFC 6962 §3.5): version 0 (v1), signature type 1 (tree_hash),
 * uint64 time_ms, uint64 tree_size, the 32-byte root; integers big-endian.
 */
export function headSignatureInput(head: { timeMs: number; treeSize: number; root: Uint8Array }): Buffer {
  if (head.root.length !== 32) throw new RangeError('a root is 32 bytes');
  const out = Buffer.alloc(50);
  out[0] = 0;
  out[1] = 1;
  out.writeBigUInt64BE(BigInt(head.timeMs), 2);
  out.writeBigUInt64BE(BigInt(head.treeSize), 10);
  Buffer.from(head.root).copy(out, 18);
  return out;
}

/**
 * The SQL twin of leafHash over a row of price_ticks-like columns (`symbol`, `symbol_seq`, `at`, `price`), for the
 * statement that stores ticks and for verify-price-log (tests prove it equals leafHash).
 */
export const LEAF_HASH_SQL_TEXT = `sha256(decode('00', 'hex') || convert_to('v1' || chr(10) || symbol || chr(10) ||
  symbol_seq || chr(10) || floor(extract(epoch from at) * 1000)::bigint || chr(10) || price::text, 'UTF8'))`;
