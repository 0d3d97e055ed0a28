import { SETTLEMENT_GAP_SECONDS, type SettledTradeStatus } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { TradeRow } from '../../platform/db/types.js';
import { settlementAccountsLocked, settlementCreditsPosted } from '../ledger/statement-parts.js';
import { FEED_LEASE } from '../prices/feed-store.js';

/** Epoch milliseconds of a timestamp column (every trade time is a JavaScript Date's: whole milliseconds). */
const ms = (column: string) => sql`floor(extract(epoch from ${sql.ref(column)}) * 1000)::float8`;

/**
 * What a batch hands back for the trade.settled events, so the worker does not read the trades again after commit,
 * kept as small as the event allows (building and parsing it is a part of the batch's time): each (asset, expiry) of
 * the batch once, with its close price and time, and per settled trade a positional array of what is its own.
 * Bigints and numerics travel as text (JSON numbers would round them), times as epoch milliseconds.
 */
type BatchKey = [asset: string, expiresAt: number, closePrice: string | null, closeAt: number | null];
type BatchTrade = [
  id: number,
  accountId: number,
  status: SettledTradeStatus,
  creditCents: number,
  profitCents: number,
  ownerId: string | null,
  key: number,
  direction: 'call' | 'put',
  amountCents: string,
  durationSeconds: number,
  payoutPercentage: number,
  strikePrice: string,
  strikeAt: number,
  createdAt: number,
  backfilled: boolean,
  seq: number,
  openedLogSize: string | null,
];

/** Trades claimed and settled per transaction: one statement per batch whatever its size (see settleBatch). */
export const SETTLEMENT_BATCH_SIZE = 2500;

/**
 * Lanes settled side by side on PostgreSQL (issue 12, item 2): the due trades are split by account (account_id %
 * lanes), each lane runs its batches on its own connection, and no two lanes ever lock the same account, so the
 * database settles them on two cores at once. The embedded database has one connection, where lanes would only take
 * turns (and measured slower): one lane there.
 */
export function settlementLanes(kind: 'pglite' | 'postgres'): number {
  return kind === 'postgres' ? 2 : 1;
}

export interface SettleOptions {
  now: Date;
  batchSize?: number;
  /** Lanes settled side by side (default 1; the engine uses settlementLanes). */
  lanes?: number;
}

interface Lane {
  lane: number;
  of: number;
}

/** The lane's condition on a trade row `t` (every trade is in exactly one lane). */
function inLane(lane: Lane) {
  return lane.of > 1 ? sql`and t.account_id % ${lane.of} = ${lane.lane}` : sql``;
}

export interface SettledTrade {
  id: number;
  accountId: number;
  status: SettledTradeStatus;
  creditCents: number;
  profitCents: number;
  /** The trade's row as the settlement left it (rebuilt from the batch's compact answer; the sequences aside). */
  row: Omit<TradeRow, 'opened_seq' | 'live_seq'>;
  /** The user who owns the trade's account (null: an account without a user), who is told of it. */
  ownerId: string | null;
  /** The account's live-update sequence this batch raised it to, which the trade now carries (migration 0026). */
  seq: number;
}

export interface SettleReport {
  settled: SettledTrade[];
  /**
   * Due trades left for a later run: the feed's watermark has not passed their expiry yet (D22), or no published head
   * covers the first tick of their symbol after it (D27).
   */
  waiting: number;
  failed: number;
}

interface Cursor {
  expiresAt: string;
  id: number;
}

/**
 * The moment up to which trades may be settled (D22): now, but never past the feed's watermark — the time up to which
 * every tick is stored, so the close price of a trade that expired at or before it can no longer change.
 */
const ripeUntil = (now: Date) =>
  sql`least(${now.toISOString()}::timestamptz, coalesce((select w.watermark from leader_leases w
        where w.name = ${FEED_LEASE}), '-infinity'::timestamptz))`;

/**
 * D27 per symbol, a CTE `covered (symbol, at)`: the time of the symbol's newest tick that the newest head published at
 * or before `now` covers (leaf index below its tree size) — one index descent per symbol, skipping only the ticks
 * stored since that head. A symbol with no covered tick has no row.
 */
const coveredCte = (now: Date) => sql`covered as materialized (
      select s.symbol, c.at from price_log_symbols s
      cross join lateral (
        select p.at from price_ticks p
        where p.symbol = s.symbol and p.log_index < (
          select h.tree_size from price_log_heads h where h.time_ms <= ${now.getTime()}::bigint
          order by h.tree_size desc limit 1)
        order by p.at desc, p.id desc limit 1
      ) c
    )`;

/**
 * THE condition for an active trade `t`, joined to its symbol's `covered` row as `cv`, to be settled by `now` (D22
 * with D27), used by every query that picks or counts due trades: the watermark has passed its expiry, and a head
 * published at or before `now` covers a tick of its symbol after the expiry. A symbol's ticks are appended in time
 * order, so that makes the first tick after the expiry covered too: the close and its next neighbour are both
 * provable from a head that existed when the trade settled. Per symbol, not per trade (a lookup per trade made
 * settling 100,000 trades twice as slow).
 */
const ripe = (now: Date) => sql`(t.expires_at <= ${ripeUntil(now)} and t.expires_at < cv.at)`;

/** The ids of the due active trades of one batch, without claiming them (the fallback then claims each alone). */
async function dueIds(db: Db, now: Date, limit: number, after: Cursor | null, lane: Lane): Promise<Cursor[]> {
  const result = await sql<{ id: string | number; expires_at: Date | string }>`
    with ${coveredCte(now)}
    select t.id, t.expires_at from trades t join covered cv on cv.symbol = t.asset
    where t.status = 'active' and ${ripe(now)}
      ${after ? sql`and (t.expires_at, t.id) > (${after.expiresAt}::timestamptz, ${after.id})` : sql``}
      ${inLane(lane)}
    order by t.expires_at, t.id
    limit ${limit}`.execute(db);
  return result.rows.map((r) => ({ id: Number(r.id), expiresAt: new Date(r.expires_at).toISOString() }));
}

/** D22's gap rule over `close_price`, `close_at`, `expires_at`: no stored price within the published bound. */
const GAP = sql`(close_price is null or close_at < expires_at - ${sql.lit(`${SETTLEMENT_GAP_SECONDS} seconds`)}::interval)`;

/**
 * THE payout formula (D1) as SQL, over `amount_cents` (bigint) and `payout_percentage`: floor(amount × payout / 100),
 * the twin of the shared `potentialProfitCents` (integer division of positive bigints truncates, which is the floor).
 */
const PROFIT_SQL = sql`amount_cents * payout_percentage / 100`;

/**
 * The settlement rule of D1 and D22 as SQL, over columns `direction`, `strike_price`, `close_price` (numeric: compared
 * exactly, as `compareDecimal` does; null when no tick at or before the expiry is stored), `close_at`, `expires_at`,
 * `amount_cents` (bigint) and `payout_percentage`. This is the second implementation of the one published rule
 * (decisions.md, D1 as amended by issue 12, and D22): `settleAtExpiry` in packages/shared stays the rule's reference
 * (its `settleTrade` is what demo mode and every screen use), and settlement-sql.test.ts proves on both databases, by
 * property, that these expressions give exactly what settleAtExpiry gives for every input (equal prices, decimals of any
 * length, both directions, every payout, close prices on both sides of the gap bound, none at all).
 */
export const OUTCOME_SQL = {
  result: sql<string>`case
      when ${GAP} then 'no_price'
      when close_price = strike_price then 'tie'
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then 'won'
      else 'lost' end`,
  profit: sql<string>`case
      when ${GAP} then 0
      when close_price = strike_price then 0
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then ${PROFIT_SQL}
      else -amount_cents end`,
  credit: sql<string>`case
      when ${GAP} then amount_cents
      when close_price = strike_price then amount_cents
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then amount_cents + ${PROFIT_SQL}
      else 0 end`,
};

interface BatchRow {
  claimed: number;
  unripe: number;
  last: [string, number] | null;
  keys: BatchKey[] | null;
  settled: BatchTrade[] | null;
}

/**
 * One batch in one statement (issue 12, item 2), atomic by itself (no BEGIN/COMMIT: a process stalled between
 * statements can hold no trade or account locked): claim up to `limit` due active trades whose expiry the feed's
 * watermark has passed and whose next tick a published head covers (`ripe`: D22, D27; FOR UPDATE SKIP LOCKED, so
 * other workers take other trades), find each (asset, expiry)'s
 * close price (the last stored tick at or before the expiry, by a lateral index lookup; it can no longer change),
 * decide each by OUTCOME_SQL (with D22's gap rule), close them (guarded by status = 'active': a trade is settled once
 * whatever happens), lock their accounts in id order (each one's live-update sequence raised by one and stamped on
 * its trades, issue 21 §7), insert the payout and refund entries with their running balance_after per account (trade
 * id order; reference trade:<id>:settle, unique), and move the balances by their sums (D3). The money parts (the
 * accounts locked, the entries, the balances) are the ledger's (statement-parts.ts), composed into this statement.
 * The rows travel back as JSON: one round trip per batch whatever its size.
 */
async function settleBatch(
  db: Db,
  options: { now: Date; limit: number; after: Cursor | null; onlyId?: number; lane: Lane },
): Promise<{ claimed: number; settled: SettledTrade[]; waiting: number; last: Cursor | null }> {
  const now = options.now.toISOString();
  const { after, onlyId } = options;
  const result = await sql<BatchRow>`
    with ${coveredCte(options.now)}, due as (
      select t.id, t.account_id, t.asset, t.direction, t.amount_cents, t.payout_percentage, t.strike_price, t.expires_at,
             t.duration_seconds, t.strike_at, t.created_at, t.backfilled, t.opened_log_size
      from trades t join covered cv on cv.symbol = t.asset
      where t.status = 'active' and ${ripe(options.now)}
        ${after ? sql`and (t.expires_at, t.id) > (${after.expiresAt}::timestamptz, ${after.id})` : sql``}
        ${onlyId !== undefined ? sql`and t.id = ${onlyId}` : sql``}
        ${inLane(options.lane)}
      order by t.expires_at, t.id
      limit ${options.limit}
      for update of t skip locked
    ), keys as (
      select distinct asset, expires_at from due
    ), closing as (
      select k.asset, k.expires_at, c.price, c.at, (row_number() over () - 1)::int as k
      from keys k
      left join lateral (
        select p.price, p.at from price_ticks p
        where p.symbol = k.asset and p.at <= k.expires_at
        order by p.at desc, p.id desc limit 1
      ) c on true
    ), ready as (
      select d.id, d.account_id, d.direction, d.amount_cents, d.payout_percentage, d.strike_price,
             d.duration_seconds, d.strike_at, d.created_at, d.backfilled, d.opened_log_size, d.expires_at, c.k,
             c.price as close_price, c.at as close_at
      from due d join closing c on c.asset = d.asset and c.expires_at = d.expires_at
    ), outcome as (
      select r.*, ${OUTCOME_SQL.result} as result, ${OUTCOME_SQL.profit} as profit, ${OUTCOME_SQL.credit} as credit
      from ready r
    ), ${settlementAccountsLocked()}, seqs as materialized (
      -- Looked up by key rather than joined: the planner, blind to a CTE's size, nests a join of two of them (measured:
      -- 2,500 trades × 1,000 accounts compared one by one doubled the batch's time). Materialized: computed once.
      select jsonb_object_agg(id::text, seq) as m from locked
    ), closed as (
      -- A trade the gap rule settles (no_price) keeps no close price: none decided it (D22).
      update trades t
      set status = o.result,
          close_price = case when o.result = 'no_price' then null else o.close_price end,
          close_at = case when o.result = 'no_price' then null else o.close_at end,
          profit_cents = o.profit, settled_at = ${now}::timestamptz, live_seq = (q.m ->> t.account_id::text)::bigint
      from outcome o cross join seqs q
      where t.id = o.id and t.status = 'active'
      returning o.*, (q.m ->> o.account_id::text)::bigint as seq
    ), credits as (
      -- No trade:<id>:settle entry can exist for a trade still active (a void closes the trade as it posts it), so a
      -- clash of the unique reference would abort the batch (then settled one by one) rather than pay twice.
      select c.* from closed c where c.credit > 0
    ), ${settlementCreditsPosted()}
    select (select count(*) from due)::int as claimed,
           (select count(*) from trades t left join covered cv on cv.symbol = t.asset
              where t.status = 'active' and t.expires_at <= ${now}::timestamptz
              and not coalesce(${ripe(options.now)}, false) ${inLane(options.lane)}
              ${after || onlyId !== undefined ? sql`and false` : sql``})::int as unripe,
           (select json_build_array(expires_at, id) from due order by expires_at desc, id desc limit 1) as last,
           (select json_agg(json_build_array(asset, ${ms('expires_at')}, price::text, ${ms('at')}) order by k)
              from closing) as keys,
           (select json_agg(json_build_array(c.id, c.account_id, c.result, c.credit, c.profit, a.user_id, c.k,
                                             c.direction, c.amount_cents::text, c.duration_seconds,
                                             c.payout_percentage, c.strike_price::text, ${ms('c.strike_at')},
                                             ${ms('c.created_at')}, c.backfilled, c.seq, c.opened_log_size::text)
                            order by c.account_id, c.id)
              from closed c join trading_accounts a on a.id = c.account_id) as settled`.execute(db);
  const row = result.rows[0]!;
  const settledAt = options.now;
  const keys = (row.keys ?? []).map(([asset, expiresAt, closePrice, closeAt]) => ({
    asset,
    expiresAt: new Date(expiresAt),
    closePrice,
    closeAt: closeAt === null ? null : new Date(closeAt),
  }));
  const settled = (row.settled ?? []).map((t): SettledTrade => {
    const [id, accountId, status, creditCents, profitCents, ownerId, k] = t;
    const key = keys[k]!;
    return {
      id: Number(id),
      accountId: Number(accountId),
      status,
      creditCents: Number(creditCents),
      profitCents: Number(profitCents),
      row: {
        id: String(id),
        account_id: String(accountId),
        asset: key.asset,
        direction: t[7],
        amount_cents: t[8],
        duration_seconds: t[9],
        payout_percentage: t[10],
        strike_price: t[11],
        strike_at: new Date(t[12]),
        expires_at: key.expiresAt,
        status,
        close_price: status === 'no_price' ? null : key.closePrice,
        close_at: status === 'no_price' ? null : key.closeAt,
        profit_cents: String(profitCents),
        settled_at: settledAt,
        backfilled: t[14],
        opened_log_size: t[16],
        void_reason: null,
        voided_by: null,
        created_at: new Date(t[13]),
      },
      ownerId,
      seq: Number(t[15]),
    };
  });
  return {
    claimed: row.claimed,
    settled,
    waiting: row.unripe,
    last: row.last ? { expiresAt: new Date(row.last[0]).toISOString(), id: Number(row.last[1]) } : null,
  };
}

/**
 * Settles every trade due by `now` (decisions.md D1, D3, D22): close price = the last stored tick at or before
 * expires_at, outcome by the shared rule (settleAtExpiry, as OUTCOME_SQL), payout or refund posted to the ledger with
 * reference trade:<id>:settle, all of one batch in one statement. Safe to run in several processes at once and after a
 * crash: trades are claimed with SKIP LOCKED, the update is guarded by status = 'active', and the ledger reference is
 * unique. A trade waits until the feed's watermark has passed its expiry, so no tick at or before it can still come
 * (however long the feed stalls); with no stored price within SETTLEMENT_GAP_SECONDS before the expiry the gap rule
 * returns the stake (no_price). With `lanes` the trades are settled in that many lanes side by side, split by account
 * (each account's trades in one lane, in order).
 */
export async function settleDueTrades(
  deps: { db: Db; log?: { error(obj: object, msg: string): void } },
  options: SettleOptions,
): Promise<SettleReport> {
  const of = Math.max(1, Math.floor(options.lanes ?? 1));
  const reports = await Promise.all(Array.from({ length: of }, (_, lane) => settleLane(deps, options, { lane, of })));
  return {
    settled: reports.flatMap((r) => r.settled),
    waiting: reports.reduce((n, r) => n + r.waiting, 0),
    failed: reports.reduce((n, r) => n + r.failed, 0),
  };
}

/** One lane's due trades, batch after batch (see settleDueTrades). */
async function settleLane(
  deps: { db: Db; log?: { error(obj: object, msg: string): void } },
  options: SettleOptions,
  lane: Lane,
): Promise<SettleReport> {
  const batchSize = options.batchSize ?? SETTLEMENT_BATCH_SIZE;
  const report: SettleReport = { settled: [], waiting: 0, failed: 0 };
  let cursor: Cursor | null = null;

  for (;;) {
    let batch: Awaited<ReturnType<typeof settleBatch>>;
    try {
      batch = await settleBatch(deps.db, { now: options.now, limit: batchSize, after: cursor, lane });
    } catch (err) {
      // One bad trade must not hold up the others: settle this batch's trades one per statement.
      deps.log?.error({ err }, 'settlement batch failed; settling its trades one by one');
      const ids = await dueIds(deps.db, options.now, batchSize, cursor, lane);
      batch = { claimed: ids.length, settled: [], waiting: 0, last: null };
      for (const id of ids) {
        try {
          const single = await settleBatch(deps.db, { now: options.now, limit: 1, after: null, onlyId: id.id, lane });
          batch.settled.push(...single.settled);
          batch.waiting += single.waiting;
        } catch (singleErr) {
          report.failed += 1;
          deps.log?.error({ err: singleErr, tradeId: id.id }, 'could not settle trade');
        }
      }
      batch.last = ids.at(-1) ? { expiresAt: ids.at(-1)!.expiresAt, id: ids.at(-1)!.id } : null;
    }
    report.settled.push(...batch.settled);
    report.waiting += batch.waiting;
    if (batch.claimed < batchSize || !batch.last) break;
    cursor = batch.last;
  }
  return report;
}
