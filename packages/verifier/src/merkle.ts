import { buffer, concat, equalBytes, fromHex, isHex, sha256, subtle, toHex, utf8 } from './bytes.js';

/**
 * The price log's bytes, hashes and proofs (decisions.md D27; RFC 6962 §2.1 hashing, RFC 9162 §2.1.3.2 and §2.1.4.2
 * verification), written from the text alone: the verifier never imports the server's code, so a bug there cannot
 * hide itself here. Sizes and indexes are JavaScript numbers (exact below 2^53) and halved with arithmetic, never with
 * 32-bit bitwise operators.
 */

/** The fields of a tick that its leaf is made of (the proof document's Tick). */
export interface LeafInput {
  symbol: string;
  /** The symbol's tick count from 1. */
  seq: number;
  /** Unix milliseconds. */
  time_ms: number;
  /** The decimal string as stored: '1.08520', trailing zeros kept. */
  price: string;
}

type Bytes = Uint8Array | string;

function bytesOf(value: Bytes): Uint8Array {
  return typeof value === 'string' ? fromHex(value) : value;
}

/** `v1\n<symbol>\n<symbol_seq>\n<time_ms>\n<price>` in UTF-8, no trailing newline. */
export function leafBytes(leaf: LeafInput): Uint8Array {
  return utf8(`v1\n${leaf.symbol}\n${leaf.seq}\n${leaf.time_ms}\n${leaf.price}`);
}

/** SHA-256(0x00 ‖ leaf bytes); takes a tick or its leaf bytes. */
export async function leafHash(leaf: LeafInput | Uint8Array): Promise<Uint8Array> {
  const bytes = leaf instanceof Uint8Array ? leaf : leafBytes(leaf);
  return sha256(concat(Uint8Array.of(0), bytes));
}

/** SHA-256(0x01 ‖ left ‖ right). */
export async function nodeHash(left: Bytes, right: Bytes): Promise<Uint8Array> {
  return sha256(concat(Uint8Array.of(1), bytesOf(left), bytesOf(right)));
}

function isIndex(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

const odd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}

/**
 * RFC 9162 §2.1.3.2: whether the leaf with hash `leaf` is at `index` in the tree of `treeSize` leaves whose root is
 * `root`, given its audit path (leaf side first).
 */
export async function verifyInclusion(
  leaf: Bytes,
  index: number,
  treeSize: number,
  path: readonly Bytes[],
  root: Bytes,
): Promise<boolean> {
  if (!isIndex(index) || !isIndex(treeSize) || index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = bytesOf(leaf);
  for (const p of path) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, bytesOf(root));
}

/**
 * RFC 9162 §2.1.4.2: whether the tree of `second` leaves with root `secondRoot` extends the tree of `first` leaves
 * with root `firstRoot` (the log only grew), given the consistency proof. Equal sizes need equal roots and an empty
 * proof (RFC 9162 §2.1.4.1 makes no proof for them).
 */
export async function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Bytes,
  secondRoot: Bytes,
  proof: readonly Bytes[],
): Promise<boolean> {
  if (!isIndex(first) || !isIndex(second) || first < 1 || first > second) return false;
  const firstHash = bytesOf(firstRoot);
  const secondHash = bytesOf(secondRoot);
  if (first === second) return proof.length === 0 && equalBytes(firstHash, secondHash);
  const path = proof.map(bytesOf);
  if (path.length === 0) return false;
  // The first tree is a complete subtree of the second when its size is a power of two: its root starts the path.
  if (isPowerOfTwo(first)) path.unshift(firstHash);
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return equalBytes(fr, firstHash) && equalBytes(sr, secondHash) && sn === 0;
}

/** A signed tree head as the log publishes it (hex is lowercase; key_id is the signing key's fingerprint). */
export interface Head {
  tree_size: number;
  time_ms: number;
  root: string;
  signature: string;
  key_id?: string;
}

/**
 * The 50 bytes a head's Ed25519 signature covers (RFC 6962 §3.5): 0x00 (v1) ‖ 0x01 (tree_hash) ‖ uint64 time_ms ‖
 * uint64 tree_size ‖ the 32-byte root, integers big-endian.
 */
export function headSignatureInput(head: { tree_size: number; time_ms: number; root: Bytes }): Uint8Array {
  const root = bytesOf(head.root);
  if (root.length !== 32) throw new RangeError('a root is 32 bytes');
  if (!isIndex(head.time_ms) || !isIndex(head.tree_size)) throw new RangeError('time_ms and tree_size are whole');
  const out = new Uint8Array(50);
  const view = new DataView(out.buffer);
  out[0] = 0;
  out[1] = 1;
  view.setBigUint64(2, BigInt(head.time_ms));
  view.setBigUint64(10, BigInt(head.tree_size));
  out.set(root, 18);
  return out;
}

/** Whether `head.signature` is a valid Ed25519 signature of the head under the 32-byte public key (hex). */
export async function verifyHeadSignature(head: Head, publicKey: string): Promise<boolean> {
  if (!isHex(publicKey, 32) || !isHex(head.signature, 64) || !isHex(head.root, 32)) return false;
  try {
    const key = await subtle().importKey('raw', buffer(fromHex(publicKey)), { name: 'Ed25519' }, false, ['verify']);
    return await subtle().verify(
      { name: 'Ed25519' },
      key,
      buffer(fromHex(head.signature)),
      buffer(headSignatureInput(head)),
    );
  } catch {
    // A key that is not a curve point, or a runtime without Ed25519: not a valid signature either way.
    return false;
  }
}

/** The key's fingerprint as /api/price-log/key publishes it: the first 16 hex digits of SHA-256 of the raw key. */
export async function keyIdOf(publicKey: string): Promise<string> {
  return toHex(await sha256(fromHex(publicKey))).slice(0, 16);
}
