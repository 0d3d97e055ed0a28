import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/**
 * An independent reference for the tests: RFC 6962 §2.1 written straight from its recursive definitions (MTH, PATH,
 * PROOF/SUBPROOF) with node:crypto, and a tiny price log that signs heads and makes proof documents. None of it uses
 * the verifier's code, so the verifier is checked against a second implementation, not against itself.
 */

export function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

export const refLeafHash = (text: string): Buffer => sha256(Buffer.of(0), Buffer.from(text, 'utf8'));
const node = (l: Buffer, r: Buffer): Buffer => sha256(Buffer.of(1), l, r);

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha256();
  if (d.length === 1) return d[0]!;
  const k = split(d.length);
  return node(mth(d.slice(0, k)), mth(d.slice(k)));
}

/** PATH(m, D[n]). */
export function auditPath(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k
    ? [...auditPath(m, d.slice(0, k)), mth(d.slice(k))]
    : [...auditPath(m - k, d.slice(k)), mth(d.slice(0, k))];
}

function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = split(d.length);
  return m <= k
    ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))]
    : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

/** PROOF(m, D[n]). */
export function consistencyProof(m: number, d: Buffer[]): Buffer[] {
  return subproof(m, d, true);
}

export interface RefTick {
  index: number;
  symbol: string;
  seq: number;
  time_ms: number;
  price: string;
}

export interface Signer {
  publicKey: string;
  keyId: string;
  privateKey: KeyObject;
}

export function newSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const hex = Buffer.from(x, 'base64url').toString('hex');
  return { publicKey: hex, keyId: sha256(Buffer.from(hex, 'hex')).toString('hex').slice(0, 16), privateKey };
}

export interface RefHead {
  tree_size: number;
  time_ms: number;
  root: string;
  signature: string;
}

export function signHead(signer: Signer, treeSize: number, timeMs: number, root: Buffer): RefHead {
  const input = Buffer.alloc(50);
  input[0] = 0;
  input[1] = 1;
  input.writeBigUInt64BE(BigInt(timeMs), 2);
  input.writeBigUInt64BE(BigInt(treeSize), 10);
  root.copy(input, 18);
  return {
    tree_size: treeSize,
    time_ms: timeMs,
    root: root.toString('hex'),
    signature: sign(null, input, signer.privateKey).toString('hex'),
  };
}

/** A price log of ticks in storage order, numbering each symbol's ticks from 1. */
export class RefLog {
  readonly ticks: RefTick[] = [];
  private readonly seqs = new Map<string, number>();

  add(symbol: string, time_ms: number, price: string): RefTick {
    const seq = (this.seqs.get(symbol) ?? 0) + 1;
    this.seqs.set(symbol, seq);
    const tick = { index: this.ticks.length, symbol, seq, time_ms, price };
    this.ticks.push(tick);
    return tick;
  }

  /** A tick with the number given, not the next one: only for forged logs in the tests. */
  addForged(symbol: string, seq: number, time_ms: number, price: string): RefTick {
    const tick = { index: this.ticks.length, symbol, seq, time_ms, price };
    this.ticks.push(tick);
    return tick;
  }

  leaves(size = this.ticks.length): Buffer[] {
    return this.ticks.slice(0, size).map((t) => refLeafHash(`v1\n${t.symbol}\n${t.seq}\n${t.time_ms}\n${t.price}`));
  }

  head(signer: Signer, size: number, timeMs: number): RefHead {
    return signHead(signer, size, timeMs, mth(this.leaves(size)));
  }

  proofTick(tick: RefTick, size: number) {
    return { ...tick, path: auditPath(tick.index, this.leaves(size)).map((b) => b.toString('hex')) };
  }

  consistency(first: RefHead, second: RefHead) {
    return {
      first,
      second,
      proof: consistencyProof(first.tree_size, this.leaves(second.tree_size)).map((b) => b.toString('hex')),
    };
  }
}
