import { sql } from 'kysely';
import { LEASES } from '../../platform/bus/leader.js';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../../platform/db/types.js';
import { LEAF_HASH_SQL_TEXT } from '../price-log/hash.js';
import type { PriceTick } from './source.js';

/**
 * The price feed's durable writes (issue 21 §2–§4, decisions.md D22): ticks and the watermark together, fenced by the
 * feed's lease. The watermark (leader_leases.watermark of the 'price-feed' row) is the time up to which every tick is
 * stored: it moves only in the statement that stores the ticks up to it, and a tick at or before it is refused, so a
 * price at or before the watermark can no longer change — what settlement and place-trade rely on.
 */
export const FEED_LEASE = LEASES.priceFeed;

/** A stale leader's transaction cannot sit on the lease row: its session ends after this long idle in it. */
const IDLE_IN_FLUSH_MS = 1000;

export interface StoreTicksResult {
  /** false: the fence is not the lease's any more (or it ran out); nothing was written. */
  leased: boolean;
  /** The ticks inserted (those after the watermark as it was). */
  stored: number;
  /** The watermark before this write (ticks at or before it were left out). */
  previous: Date | null;
}

/**
 * Stores ticks (in order) and moves the watermark to `watermark`, in one statement. With a `fence` (several processes
 * over PostgreSQL) the statement takes the lease row only while that fence holds it and the lease has not run out —
 * an UPDATE re-checked against the newest row, so a take-over that commits first makes it write nothing — and the
 * ticks go in only if it did. Without one (the embedded database: one process) it just writes. Ticks at or before the
 * previous watermark are refused (left out). Run it last in the flush's transaction: it locks the lease row until
 * commit, and the leader renews the lease on that row from another connection; begin the transaction with guardFlush.
 *
 * The same statement appends the inserted ticks to the price log (D27): each gets its leaf index from
 * `price_log_state.size`, raised by their count in an UPDATE that locks the row to the commit (so writers serialize
 * on it and leaf indexes follow commit order without gaps), and its symbol's next `symbol_seq` from the upserted
 * `price_log_symbols` rows (taken only after the state row, so two writers lock in one order); their leaf hashes
 * (level 0) go into `price_log_nodes`, hashed by LEAF_HASH_SQL_TEXT (hash.ts) from the values as stored. A tick is
 * never stored without its leaf.
 */
export async function storeTicks(
  trx: Trx | Db,
  input: { ticks: readonly PriceTick[]; watermark: Date; fence: string | null },
): Promise<StoreTicksResult> {
  const { ticks, watermark, fence } = input;
  const result = await sql<{ leased: number; stored: number; previous: Date | string | null }>`
    with lease as (
      update leader_leases l set watermark = greatest(l.watermark, ${watermark.toISOString()}::timestamptz)
      where l.name = ${FEED_LEASE}
        ${fence !== null ? sql`and l.fence = ${fence}::bigint and l.expires_at > clock_timestamp()` : sql``}
      returning 1
    ), prev as (
      select watermark from leader_leases where name = ${FEED_LEASE}
    ), v as materialized (
      select v.symbol, v.price, v.at, v.n,
             row_number() over (order by v.n) as r,
             row_number() over (partition by v.symbol order by v.n) as sr,
             count(*) over (partition by v.symbol) as sc
      from unnest(${ticks.map((t) => t.symbol)}::text[], ${ticks.map((t) => t.price)}::numeric[],
                  ${ticks.map((t) => t.at.toISOString())}::timestamptz[]) with ordinality as v(symbol, price, at, n)
      where exists (select 1 from lease) and v.at > coalesce((select watermark from prev), '-infinity'::timestamptz)
    ), st as (
      update price_log_state s set size = s.size + c.n
      from (select count(*) as n from v) c
      where s.id = 1 and c.n > 0
      returning s.size - c.n as base
    ), sym as (
      insert into price_log_symbols (symbol, last_seq)
      select v.symbol, max(v.sc) from v cross join st group by v.symbol
      on conflict (symbol) do update set last_seq = price_log_symbols.last_seq + excluded.last_seq
      returning symbol, last_seq
    ), ins as (
      insert into price_ticks (symbol, price, at, log_index, symbol_seq)
      select v.symbol, v.price, v.at, st.base + v.r - 1, sym.last_seq - v.sc + v.sr
      from v cross join st join sym on sym.symbol = v.symbol
      order by v.n
      returning symbol, price, at, log_index, symbol_seq
    ), leaves as (
      insert into price_log_nodes (level, idx, hash)
      select 0, log_index, ${sql.raw(LEAF_HASH_SQL_TEXT)} from ins
      returning 1
    )
    select (select count(*) from lease)::int as leased, (select count(*) from leaves)::int as stored,
           (select watermark from prev) as previous`.execute(trx);
  const row = result.rows[0]!;
  return { leased: row.leased > 0, stored: row.stored, previous: row.previous ? new Date(row.previous) : null };
}

/**
 * The first statement of a fenced flush (PostgreSQL): a leader stopped in the middle of its transaction (SIGSTOP, a
 * stalled machine) would hold its row locks on candles and the lease row for as long as it sleeps, and the next
 * leader's writes would wait behind them; PostgreSQL ends such a session after IDLE_IN_FLUSH_MS idle in it.
 */
export async function guardFlush(trx: Trx): Promise<void> {
  await sql`select set_config('idle_in_transaction_session_timeout', ${String(IDLE_IN_FLUSH_MS)}, true)`.execute(trx);
}

/** The watermark: every tick at or before it is stored (null before the feed ever wrote). */
export async function feedWatermark(db: Db): Promise<Date | null> {
  const row = await db
    .selectFrom('leader_leases')
    .select('watermark')
    .where('name', '=', FEED_LEASE)
    .executeTakeFirst();
  return row?.watermark ? new Date(row.watermark) : null;
}
