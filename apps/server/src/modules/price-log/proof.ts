import {
  SETTLEMENT_GAP_SECONDS,
  SETTLEMENT_RULE_VERSION,
  TRADE_PROOFS_MAX,
  type ProofStatus,
  type ProofTick,
  type TradeDirection,
  type TradeProof,
  type TradeProofsBundle,
  type TradeProofsQuery,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import type { ErrorCode } from '../../platform/http/messages.js';
import { ruleOf } from '../trading/audit.js';
import { priceLogKeyId } from './keys.js';
import { dbNodeSource, inclusionPath, type NodeKey, type NodeSource } from './tree.js';

/**
 * The proof document of a trade (issue 30 §2, decisions.md D27 version 1): the trade as stored, the published rule,
 * the four ticks that decide it — the strike and the symbol's next tick, the close (the last tick at or before the
 * expiry) and its next tick — each with its audit path, all against ONE signed head: the smallest published head that
 * covers every one of them and was published at or before the settlement. Read only; nothing here decides an outcome.
 *
 * Cost: one statement finds the trades' ticks, heads and credits (index descents per trade), one more loads every
 * audit path's stored subtree hashes at once (tree.ts plans them; `coalescingNodeSource` merges the plans of all the
 * paths built together), so a proof — or a period's thousand — takes two round trips after the trade lookup.
 */

/** The client's own trade, or staff's through the client scope (D5) on the account of the route. */
export type ProofScope = { userId: string } | { actor: Actor; accountId: number };

/** The SQL form of a time as the log stores it: Unix milliseconds, floored (hash.ts LEAF_HASH_SQL_TEXT). */
const ms = (column: string) => sql.raw(`floor(extract(epoch from ${column}) * 1000)::bigint`);

/** One tick's columns, as `<alias>_i`, `_q`, `_t`, `_p`. */
const tickColumns = (alias: string) =>
  sql.raw(
    `${alias}.log_index as ${alias}_i, ${alias}.symbol_seq as ${alias}_q, ` +
      `floor(extract(epoch from ${alias}.at) * 1000)::bigint as ${alias}_t, ${alias}.price::text as ${alias}_p`,
  );

type Num = string | number | null;
interface Row {
  id: Num;
  asset: string;
  direction: TradeDirection;
  amount_cents: Num;
  payout_percentage: number;
  opened_ms: Num;
  opened_log_size: Num;
  strike_price: string;
  strike_ms: Num;
  expires_ms: Num;
  close_price: string | null;
  close_ms: Num;
  status: 'active' | 'won' | 'lost' | 'tie' | 'no_price' | 'voided';
  profit_cents: Num;
  settled_ms: Num;
  credit_cents: Num;
  s_i: Num;
  s_q: Num;
  s_t: Num;
  s_p: string | null;
  sn_i: Num;
  sn_q: Num;
  sn_t: Num;
  sn_p: string | null;
  c_i: Num;
  c_q: Num;
  c_t: Num;
  c_p: string | null;
  cn_i: Num;
  cn_q: Num;
  cn_t: Num;
  cn_p: string | null;
  h_size: Num;
  h_time: Num;
  h_root: Buffer | Uint8Array | null;
  h_signature: Buffer | Uint8Array | null;
  /** The public key that signed the head (price_log_keys: every key that ever signed one is kept). */
  h_key: Buffer | Uint8Array | null;
}

/**
 * The trades' proof material in one statement. The strike is the tick at strike_at among the first opened_log_size
 * leaves (the newest such, as place-trade took it); the close is the last tick at or before the expiry in the order
 * settlement reads it (at desc, id desc); a next tick is the symbol's seq + 1, looked up forward from its predecessor's
 * time on the (symbol, at) index. A voided trade has no close: staff ended it before its expiry. The head: the
 * smallest published one covering the largest leaf index among the ticks and signed at or before the settlement.
 */
async function loadRows(db: Db, ids: readonly number[], userId?: string): Promise<Row[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<Row>`
    select t.id, t.asset, t.direction, t.amount_cents, t.payout_percentage, ${ms('t.created_at')} as opened_ms,
           t.opened_log_size, t.strike_price::text as strike_price, ${ms('t.strike_at')} as strike_ms,
           ${ms('t.expires_at')} as expires_ms, t.close_price::text as close_price, ${ms('t.close_at')} as close_ms,
           t.status, t.profit_cents, ${ms('t.settled_at')} as settled_ms, e.amount_cents as credit_cents,
           ${tickColumns('s')}, ${tickColumns('sn')}, ${tickColumns('c')}, ${tickColumns('cn')},
           h.tree_size as h_size, h.time_ms as h_time, h.root as h_root, h.signature as h_signature,
           k.public_key as h_key
    from trades t
    left join ledger_entries e on e.reference = 'trade:' || t.id || ':settle'
    left join lateral (
      select p.log_index, p.symbol_seq, p.at, p.price from price_ticks p
      where p.symbol = t.asset and p.at = t.strike_at and p.log_index < t.opened_log_size
      order by p.log_index desc limit 1
    ) s on true
    left join lateral (
      select p.log_index, p.symbol_seq, p.at, p.price from price_ticks p
      where p.symbol = t.asset and p.at >= s.at and p.symbol_seq = s.symbol_seq + 1
      order by p.at, p.id limit 1
    ) sn on true
    left join lateral (
      select p.log_index, p.symbol_seq, p.at, p.price from price_ticks p
      where t.status not in ('active', 'voided') and p.symbol = t.asset and p.at <= t.expires_at
      order by p.at desc, p.id desc limit 1
    ) c on true
    left join lateral (
      select p.log_index, p.symbol_seq, p.at, p.price from price_ticks p
      where t.status not in ('active', 'voided') and p.symbol = t.asset
        and p.at >= coalesce(c.at, '-infinity'::timestamptz) and p.symbol_seq = coalesce(c.symbol_seq, 0) + 1
      order by p.at, p.id limit 1
    ) cn on true
    left join lateral (
      select h.tree_size, h.time_ms, h.root, h.signature, h.key_id from price_log_heads h
      where h.tree_size > greatest(s.log_index, sn.log_index, c.log_index, cn.log_index)
        and h.time_ms <= ${ms('t.settled_at')}
      order by h.tree_size limit 1
    ) h on true
    left join price_log_keys k on k.key_id = h.key_id
    where t.id = any(${ids.map(String)}::bigint[])
      ${userId === undefined ? sql`` : sql`and t.account_id in (select a.id from trading_accounts a where a.user_id = ${userId})`}
    order by t.settled_at, t.id`.execute(db);
  return rows;
}

/**
 * A NodeSource that merges the loads of every path asked for in the same turn of the event loop into one query: the
 * tree functions plan their keys and call `get` at once, so building N paths side by side costs one round trip.
 */
export function coalescingNodeSource(inner: NodeSource): NodeSource {
  let waiting: { keys: readonly NodeKey[]; resolve(m: Map<string, Buffer>): void; reject(e: unknown): void }[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    const unique = new Map<string, NodeKey>();
    for (const { keys } of batch) for (const k of keys) unique.set(`${k.level}:${k.idx}`, k);
    inner.get([...unique.values()]).then(
      (nodes) => batch.forEach((w) => w.resolve(nodes)),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  };
  return {
    get(keys) {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ keys, resolve, reject });
      });
    },
  };
}

const num = (v: Num): number => Number(v);
const iso = (v: Num): string => new Date(Number(v)).toISOString();
const isoOrNull = (v: Num): string | null => (v === null ? null : iso(v));
const hex = (b: Buffer | Uint8Array | null): string => Buffer.from(b!).toString('hex');

/** Why a trade has no proof, as the refusal a caller sees (null: it has one). */
function refusalOf(row: Row): { status: number; code: ErrorCode } | null {
  if (row.status === 'active') return { status: 409, code: 'trade_proof_active' };
  if (row.opened_log_size === null) return { status: 409, code: 'trade_proof_predates_log' };
  if (row.s_i === null) return { status: 409, code: 'trade_proof_ticks_missing' };
  if (row.h_size === null || row.h_key === null) return { status: 409, code: 'trade_proof_no_head' };
  return null;
}

const STATUS: Record<Exclude<Row['status'], 'active'>, ProofStatus> = {
  won: 'won',
  lost: 'lost',
  tie: 'tie',
  no_price: 'no_price',
  voided: 'void',
};

async function documentOf(row: Row, src: NodeSource): Promise<TradeProof> {
  const size = num(row.h_size);
  const tick = async (alias: 's' | 'sn' | 'c' | 'cn'): Promise<ProofTick | null> => {
    const r = row as unknown as Record<string, Num>;
    if (r[`${alias}_i`] === null) return null;
    const index = num(r[`${alias}_i`]!);
    return {
      index,
      symbol: row.asset,
      seq: num(r[`${alias}_q`]!),
      time_ms: num(r[`${alias}_t`]!),
      price: String(r[`${alias}_p`]),
      path: (await inclusionPath(src, index, size)).map((b) => b.toString('hex')),
    };
  };
  const [strike, strikeNext, close, closeNext] = await Promise.all([tick('s'), tick('sn'), tick('c'), tick('cn')]);
  const publicKey = Buffer.from(row.h_key!);
  const ru = ruleOf(row.direction, 'ru').sentence;
  const en = ruleOf(row.direction, 'en').sentence;
  return {
    format: 'brokerage-trade-proof',
    version: 1,
    trade: {
      id: num(row.id),
      asset: row.asset,
      direction: row.direction,
      amount_cents: num(row.amount_cents),
      payout_percentage: row.payout_percentage,
      opened_at: iso(row.opened_ms),
      opened_log_size: num(row.opened_log_size),
      strike_price: row.strike_price,
      strike_at: iso(row.strike_ms),
      expires_at: iso(row.expires_ms),
      close_price: row.close_price,
      close_at: isoOrNull(row.close_ms),
      status: STATUS[row.status as Exclude<Row['status'], 'active'>],
      profit_cents: num(row.profit_cents ?? 0),
      // What the ledger credited (trade:<id>:settle: the payout, the refund or the void's refund; a lost trade none),
      // not what the rule says it should be: the verifier compares the two.
      credit_cents: row.credit_cents === null ? 0 : num(row.credit_cents),
      settled_at: iso(row.settled_ms),
    },
    rule: { version: SETTLEMENT_RULE_VERSION, gap_seconds: SETTLEMENT_GAP_SECONDS, text: { ru, en } },
    ticks: { strike: strike!, strike_next: strikeNext, close, close_next: closeNext },
    head: { tree_size: size, time_ms: num(row.h_time), root: hex(row.h_root), signature: hex(row.h_signature) },
    public_key: publicKey.toString('hex'),
    // Computed from the key itself (D27's fingerprint), not read from the head's row.
    key_id: priceLogKeyId(publicKey),
  };
}

/** The documents of the rows that have one (in the rows' order), all their paths loaded in one query. */
async function documentsOf(db: Db, rows: readonly Row[]): Promise<TradeProof[]> {
  const src = coalescingNodeSource(dbNodeSource(db));
  return Promise.all(rows.map((row) => documentOf(row, src)));
}

/** Staff's trade through the client scope of D5 (404 like a missing one outside it). */
async function staffTradeInScope(db: Db, tradeId: number, scope: { actor: Actor; accountId: number }): Promise<number> {
  const account = await scopeClients(
    db.selectFrom('trading_accounts as a').innerJoin('clients', 'clients.id', 'a.client_id'),
    scope.actor,
  )
    .select('a.id')
    .where('a.id', '=', scope.accountId)
    .executeTakeFirst();
  if (!account) throw new HttpError(404, 'trading_account_not_found');
  const row = await db
    .selectFrom('trades')
    .select('id')
    .where('id', '=', tradeId)
    .where('account_id', '=', scope.accountId)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'trade_not_found');
  return Number(row.id);
}

/**
 * GET /api/trading/trades/{id}/proof and its staff twin: the proof document of a settled or voided trade. 409 while
 * it is active, for a trade that predates the price log, and when no head published by its settlement covers its
 * ticks.
 */
export async function tradeProof(db: Db, tradeId: number, scope: ProofScope): Promise<TradeProof> {
  // The client's own trade is found by the proof's statement itself (one round trip less on the hot path).
  const [row] =
    'userId' in scope
      ? await loadRows(db, [tradeId], scope.userId)
      : await loadRows(db, [await staffTradeInScope(db, tradeId, scope)]);
  if (!row) throw new HttpError(404, 'trade_not_found');
  const refusal = refusalOf(row);
  if (refusal) throw new HttpError(refusal.status, refusal.code);
  const [doc] = await documentsOf(db, [row]);
  return doc!;
}

/**
 * GET /api/trading/proofs: the client's trades settled (or voided) in [from, to) as one file, oldest settlement first.
 * More than TRADE_PROOFS_MAX is refused with 422. A trade without a proof — opened before the price log existed, or
 * (never after the settlement gate) without a covering head — is left out: the file holds only what verifies.
 */
export async function periodProofs(db: Db, userId: string, query: TradeProofsQuery): Promise<TradeProofsBundle> {
  const from = new Date(query.from);
  const to = new Date(query.to);
  if (!(from < to)) throw new HttpError(400, 'bad_date_range');
  const trades = await db
    .selectFrom('trades')
    .innerJoin('trading_accounts as a', 'a.id', 'trades.account_id')
    .select('trades.id')
    .where('a.user_id', '=', userId)
    .where('trades.status', '<>', 'active')
    .where('trades.settled_at', '>=', from)
    .where('trades.settled_at', '<', to)
    .orderBy('trades.settled_at')
    .orderBy('trades.id')
    .limit(TRADE_PROOFS_MAX + 1)
    .execute();
  if (trades.length > TRADE_PROOFS_MAX) {
    const counted = await db
      .selectFrom('trades')
      .innerJoin('trading_accounts as a', 'a.id', 'trades.account_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('a.user_id', '=', userId)
      .where('trades.status', '<>', 'active')
      .where('trades.settled_at', '>=', from)
      .where('trades.settled_at', '<', to)
      .executeTakeFirstOrThrow();
    throw new HttpError(422, 'trade_proofs_too_many', { total: Number(counted.n), max: TRADE_PROOFS_MAX });
  }
  const rows = (
    await loadRows(
      db,
      trades.map((t) => Number(t.id)),
    )
  ).filter((row) => refusalOf(row) === null);
  return {
    format: 'brokerage-trade-proofs',
    version: 1,
    from: query.from,
    to: query.to,
    proofs: await documentsOf(db, rows),
  };
}

/** The file name of a period's proofs: the dates as the client gave them (ASCII, no path characters). */
export function periodProofsFileName(query: TradeProofsQuery): string {
  return `proofs-${query.from.slice(0, 10)}-${query.to.slice(0, 10)}.json`;
}

/** The proof material of any trades, without scope (verify-price-log: which trades used a tick). */
export async function proofTickIndexes(
  db: Db,
  ids: readonly number[],
): Promise<{ id: number; indexes: (number | null)[] }[]> {
  return (await loadRows(db, ids)).map((r) => ({
    id: num(r.id),
    indexes: [r.s_i, r.sn_i, r.c_i, r.cn_i].map((v) => (v === null ? null : num(v))),
  }));
}
