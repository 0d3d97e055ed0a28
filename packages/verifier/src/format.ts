import { isHex } from './bytes.js';
import { isDecimal } from './decimal.js';
import type { Head } from './merkle.js';
import type { Direction, Status } from './rule.js';

/**
 * Reading a proof document (decisions.md D27, version 1) from untrusted JSON: every field is checked for its type
 * before any check uses it, and a bad field becomes a sentence naming the field, what it should be and what it is —
 * a malformed file is a failed 'format' step, never a crash.
 */

export interface Tick {
  /** The tick's leaf index in the log. */
  index: number;
  symbol: string;
  seq: number;
  time_ms: number;
  price: string;
  /** The audit path in the head's tree, leaf side first. */
  path: string[];
}

export interface ProofTrade {
  id: number;
  asset: string;
  direction: Direction;
  amount_cents: number;
  payout_percentage: number;
  opened_at: string;
  opened_log_size: number;
  strike_price: string;
  strike_at: string;
  expires_at: string;
  close_price: string | null;
  close_at: string | null;
  status: Status;
  profit_cents: number;
  credit_cents: number;
  settled_at: string;
}

export interface ProofDocument {
  format: 'brokerage-trade-proof';
  version: 1;
  trade: ProofTrade;
  rule: { version: number; gap_seconds: number; text: { ru: string; en: string } };
  ticks: { strike: Tick; strike_next: Tick | null; close: Tick | null; close_next: Tick | null };
  head: Head;
  public_key: string;
  key_id: string;
}

export interface ConsistencyProof {
  first: Head;
  second: Head;
  proof: string[];
}

/** What a field should be; the sentence for it is made in the reader's language. */
export type Expected =
  | 'object'
  | 'whole'
  | 'positive'
  | 'percent'
  | 'signed'
  | 'string'
  | 'symbol'
  | 'decimal'
  | 'instant'
  | 'hash'
  | 'signature'
  | 'key'
  | 'key_id'
  | 'path'
  | 'proofs'
  | 'direction'
  | 'status'
  | { literal: string | number };

export class FormatError extends Error {
  constructor(
    readonly field: string,
    readonly expected: Expected,
    readonly nullable: boolean,
    readonly got: unknown,
  ) {
    super(`${field}: unexpected value`);
  }
}

/** Another kind of document than the verifier reads, or another version of it. */
export class UnknownFormatError extends Error {
  constructor(
    readonly kind: 'format' | 'version' | 'rule_version',
    readonly got: unknown,
  ) {
    super(`unknown ${kind}`);
  }
}

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

/** Unix milliseconds of an ISO 8601 instant with a zone, sub-milliseconds dropped (as the log's time_ms); else NaN. */
export function instantMs(iso: string): number {
  const m = ISO.exec(iso);
  if (!m) return NaN;
  const ms = Date.parse(`${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}${m[3]}`);
  return ms;
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function object(v: unknown, field: string): Obj {
  if (!isObject(v)) throw new FormatError(field, 'object', false, v);
  return v;
}

function whole(v: unknown, field: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new FormatError(field, min >= 1 ? 'positive' : 'whole', false, v);
  }
  return v;
}

function signed(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new FormatError(field, 'signed', false, v);
  return v;
}

function string(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new FormatError(field, 'string', false, v);
  return v;
}

function symbol(v: unknown, field: string): string {
  // A newline would make the leaf bytes ambiguous; the log's symbols are short codes such as EURUSD.
  if (typeof v !== 'string' || v.length === 0 || /[\n\r]/.test(v)) throw new FormatError(field, 'symbol', false, v);
  return v;
}

function decimal(v: unknown, field: string, nullable = false): string {
  if (!isDecimal(v)) throw new FormatError(field, 'decimal', nullable, v);
  return v;
}

function instant(v: unknown, field: string, nullable = false): string {
  if (typeof v !== 'string' || Number.isNaN(instantMs(v))) throw new FormatError(field, 'instant', nullable, v);
  return v;
}

function hex(v: unknown, field: string, bytes: number, expected: Expected): string {
  if (!isHex(v, bytes)) throw new FormatError(field, expected, false, v);
  return v.toLowerCase();
}

function orNull<T>(v: unknown, read: (v: unknown) => T): T | null {
  return v === null ? null : read(v);
}

export function readTick(v: unknown, field: string): Tick {
  const o = object(v, field);
  const path = o['path'];
  if (!Array.isArray(path) || !path.every((p) => isHex(p, 32)))
    throw new FormatError(`${field}.path`, 'path', false, path);
  return {
    index: whole(o['index'], `${field}.index`),
    symbol: symbol(o['symbol'], `${field}.symbol`),
    seq: whole(o['seq'], `${field}.seq`, 1),
    time_ms: whole(o['time_ms'], `${field}.time_ms`),
    price: decimal(o['price'], `${field}.price`),
    path: (path as string[]).map((p) => p.toLowerCase()),
  };
}

export function readHead(v: unknown, field: string): Head {
  const o = object(v, field);
  const head: Head = {
    tree_size: whole(o['tree_size'], `${field}.tree_size`, 1),
    time_ms: whole(o['time_ms'], `${field}.time_ms`),
    root: hex(o['root'], `${field}.root`, 32, 'hash'),
    signature: hex(o['signature'], `${field}.signature`, 64, 'signature'),
  };
  if (o['key_id'] !== undefined) head.key_id = hex(o['key_id'], `${field}.key_id`, 8, 'key_id');
  return head;
}

function literal<T extends string | number>(v: unknown, field: string, value: T): T {
  if (v !== value) throw new FormatError(field, { literal: value }, false, v);
  return value;
}

export function readProof(doc: unknown): ProofDocument {
  const o = object(doc, '(document)');
  if (o['format'] !== 'brokerage-trade-proof') throw new UnknownFormatError('format', o['format']);
  if (o['version'] !== 1) throw new UnknownFormatError('version', o['version']);
  const t = object(o['trade'], 'trade');
  const direction = t['direction'];
  if (direction !== 'call' && direction !== 'put')
    throw new FormatError('trade.direction', 'direction', false, direction);
  const status = t['status'];
  if (status !== 'won' && status !== 'lost' && status !== 'tie' && status !== 'no_price' && status !== 'void') {
    throw new FormatError('trade.status', 'status', false, status);
  }
  const payout = t['payout_percentage'];
  if (typeof payout !== 'number' || !Number.isSafeInteger(payout) || payout < 0) {
    throw new FormatError('trade.payout_percentage', 'percent', false, payout);
  }
  const trade: ProofTrade = {
    id: whole(t['id'], 'trade.id', 1),
    asset: symbol(t['asset'], 'trade.asset'),
    direction,
    amount_cents: whole(t['amount_cents'], 'trade.amount_cents', 1),
    payout_percentage: payout,
    opened_at: instant(t['opened_at'], 'trade.opened_at'),
    opened_log_size: whole(t['opened_log_size'], 'trade.opened_log_size'),
    strike_price: decimal(t['strike_price'], 'trade.strike_price'),
    strike_at: instant(t['strike_at'], 'trade.strike_at'),
    expires_at: instant(t['expires_at'], 'trade.expires_at'),
    close_price: orNull(t['close_price'], (v) => decimal(v, 'trade.close_price', true)),
    close_at: orNull(t['close_at'], (v) => instant(v, 'trade.close_at', true)),
    status,
    profit_cents: signed(t['profit_cents'], 'trade.profit_cents'),
    credit_cents: whole(t['credit_cents'], 'trade.credit_cents'),
    settled_at: instant(t['settled_at'], 'trade.settled_at'),
  };
  const r = object(o['rule'], 'rule');
  if (r['version'] !== 1) throw new UnknownFormatError('rule_version', r['version']);
  const text = object(r['text'], 'rule.text');
  const rule = {
    version: literal(r['version'], 'rule.version', 1),
    gap_seconds: whole(r['gap_seconds'], 'rule.gap_seconds'),
    text: { ru: string(text['ru'], 'rule.text.ru'), en: string(text['en'], 'rule.text.en') },
  };
  const k = object(o['ticks'], 'ticks');
  const ticks = {
    strike: readTick(k['strike'], 'ticks.strike'),
    strike_next: orNull(k['strike_next'], (v) => readTick(v, 'ticks.strike_next')),
    close: orNull(k['close'], (v) => readTick(v, 'ticks.close')),
    close_next: orNull(k['close_next'], (v) => readTick(v, 'ticks.close_next')),
  };
  return {
    format: 'brokerage-trade-proof',
    version: 1,
    trade,
    rule,
    ticks,
    head: readHead(o['head'], 'head'),
    public_key: hex(o['public_key'], 'public_key', 32, 'key'),
    key_id: hex(o['key_id'], 'key_id', 8, 'key_id'),
  };
}

/** The /api/price-log/consistency answer: `{ first: Head, second: Head, proof: [hex32, …] }`. */
export function readConsistency(v: unknown): ConsistencyProof {
  const o = object(v, '(consistency)');
  const proof = o['proof'];
  if (!Array.isArray(proof) || !proof.every((p) => isHex(p, 32))) throw new FormatError('proof', 'path', false, proof);
  return {
    first: readHead(o['first'], 'first'),
    second: readHead(o['second'], 'second'),
    proof: (proof as string[]).map((p) => p.toLowerCase()),
  };
}

/**
 * A head the user saved: the head itself (as /api/price-log/heads/latest answers), or anything that carries one under
 * `head` — the live stream's `price_log_head` message or an older proof document.
 */
export function parseHead(json: unknown): Head {
  const v = isObject(json) && isObject(json['head']) && json['tree_size'] === undefined ? json['head'] : json;
  return readHead(v, isObject(json) && v !== json ? 'head' : '(head)');
}
