import type { SettledTradeStatus } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { TradeRow } from '../../platform/db/types.js';
import type { Trx } from '../ledger/service.js';

/**
 * The trade columns the settlement hands back with each settled trade (the trade.settled event is built from them, so
 * the worker does not read the trades again after commit), as one JSON array per trade in this order: positional and
 * compact, since building and parsing them is a part of the batch's time. Bigints and numerics travel as text, as the
 * driver gives them (JSON numbers would round them); timestamps as epoch milliseconds (every trade time is a
 * JavaScript Date's, whole milliseconds), which cost less to write and to read back than ISO text.
 */
const TRADE_COLUMNS: [column: keyof TradeRow, as: 'text' | 'json' | 'ms'][] = [
  ['id', 'text'],
  ['account_id', 'text'],
  ['asset', 'json'],
  ['direction', 'json'],
  ['amount_cents', 'text'],
  ['duration_seconds', 'json'],
  ['status', 'json'],
  ['payout_percentage', 'json'],
  ['strike_price', 'text'],
  ['strike_at', 'ms'],
  ['close_price', 'text'],
  ['close_at', 'ms'],
  ['profit_cents', 'text'],
  ['created_at', 'ms'],
  ['expires_at', 'ms'],
  ['settled_at', 'ms'],
  ['backfilled', 'json'],
  ['void_reason', 'json'],
  ['voided_by', 'json'],
];
const TRADE_JSON = sql.join(
  TRADE_COLUMNS.map(([col, as]) =>
    as === 'text'
      ? sql`c.${sql.ref(col)}::text`
      : as === 'ms'
        ? sql`floor(extract(epoch from c.${sql.ref(col)}) * 1000)::float8`
        : sql`c.${sql.ref(col)}`,
  ),
);

/** A trade's row from its TRADE_COLUMNS array. */
function tradeFromJson(values: unknown[]): TradeRow {
  const row: Record<string, unknown> = {};
  TRADE_COLUMNS.forEach(([col, as], i) => {
    const value = values[i];
    row[col] = as === 'ms' && value !== null ? new Date(value as number) : value;
  });
  return row as TradeRow;
}

/** A feed that has not passed a trade's expiry for this long is not waited for any more. */
export const SETTLEMENT_GRACE_MS = 5000;

/** Trades claimed and settled per transaction: one statement per batch whatever its size (see settleBatch). */
export const SETTLEMENT_BATCH_SIZE = 1000;

export interface SettleOptions {
  now: Date;
  batchSize?: number;
  graceMs?: number;
}

export interface SettledTrade {
  id: number;
  accountId: number;
  status: SettledTradeStatus;
  creditCents: number;
  profitCents: number;
  /** The trade's row as the settlement left it (timestamps as ISO text), for the trade.settled event. */
  row: TradeRow;
  /** The user who owns the trade's account (null: an account without a user), who is told of it. */
  ownerId: string | null;
}

export interface SettleReport {
  settled: SettledTrade[];
  /** Due trades left for a later run: no price at or before expiry yet, or the feed has not passed expiry. */
  waiting: number;
  failed: number;
}

interface Cursor {
  expiresAt: string;
  id: number;
}

/** The ids of the due active trades of one batch, without claiming them (the fallback then claims each alone). */
async function dueIds(db: Db, now: Date, limit: number, after: Cursor | null): Promise<Cursor[]> {
  const result = await sql<{ id: string | number; expires_at: Date | string }>`
    select t.id, t.expires_at from trades t
    where t.status = 'active' and t.expires_at <= ${now.toISOString()}::timestamptz
      ${after ? sql`and (t.expires_at, t.id) > (${after.expiresAt}::timestamptz, ${after.id})` : sql``}
    order by t.expires_at, t.id
    limit ${limit}`.execute(db);
  return result.rows.map((r) => ({ id: Number(r.id), expiresAt: new Date(r.expires_at).toISOString() }));
}

/**
 * The settlement rule of D1 as SQL, over columns `direction`, `strike_price`, `close_price` (numeric: compared exactly,
 * as `compareDecimal` does), `amount_cents` (bigint) and `payout_percentage`. This is the second implementation of the
 * one published rule (decisions.md, D1 as amended by issue 12): `settleTrade` in packages/shared stays the rule's
 * reference, demo mode and every screen use it, and settlement-sql.test.ts proves on both databases, by property, that
 * these expressions give exactly what settleTrade gives for every input (equal prices, decimals of any length, both
 * directions, every payout).
 */
export const OUTCOME_SQL = {
  result: sql<string>`case
      when close_price = strike_price then 'tie'
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then 'won'
      else 'lost' end`,
  /** floor(amount × payout / 100): integer division of positive bigints truncates, which is the floor. */
  profit: sql<string>`case
      when close_price = strike_price then 0
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then amount_cents * payout_percentage / 100
      else -amount_cents end`,
  credit: sql<string>`case
      when close_price = strike_price then amount_cents
      when (direction = 'call' and close_price > strike_price) or (direction = 'put' and close_price < strike_price)
        then amount_cents + amount_cents * payout_percentage / 100
      else 0 end`,
};

interface BatchRow {
  claimed: number;
  ready: number;
  last: [string, number] | null;
  settled: [number, number, SettledTradeStatus, number, number, unknown[], string | null][] | null;
}

/**
 * One batch in one statement (issue 12, item 2): claim up to `limit` due active trades (FOR UPDATE SKIP LOCKED, so
 * other workers take other trades), find each (asset, expiry)'s close price (the last stored tick at or before the
 * expiry, by a lateral index lookup) and whether the feed has passed the expiry, decide the ready ones by OUTCOME_SQL,
 * close them (guarded by status = 'active': a trade is settled once whatever happens), lock the credited accounts in id
 * order, insert the payout and refund entries with their running balance_after per account (trade id order;
 * reference trade:<id>:settle, unique), and move the balances by their sums (D3).
 * The rows travel back as JSON: one round trip per batch whatever its size.
 */
async function settleBatch(
  trx: Trx,
  options: { now: Date; limit: number; after: Cursor | null; onlyId?: number; graceMs: number },
): Promise<{ claimed: number; settled: SettledTrade[]; waiting: number; last: Cursor | null }> {
  const now = options.now.toISOString();
  const ripe = new Date(options.now.getTime() - options.graceMs).toISOString();
  const { after, onlyId } = options;
  const result = await sql<BatchRow>`
    with due as (
      select t.id, t.account_id, t.asset, t.direction, t.amount_cents, t.payout_percentage, t.strike_price, t.expires_at
      from trades t
      where t.status = 'active' and t.expires_at <= ${now}::timestamptz
        ${after ? sql`and (t.expires_at, t.id) > (${after.expiresAt}::timestamptz, ${after.id})` : sql``}
        ${onlyId !== undefined ? sql`and t.id = ${onlyId}` : sql``}
      order by t.expires_at, t.id
      limit ${options.limit}
      for update of t skip locked
    ), keys as (
      select distinct asset, expires_at from due
    ), closing as (
      select k.asset, k.expires_at, c.price, c.at,
             exists (select 1 from price_ticks n where n.symbol = k.asset and n.at > k.expires_at) as feed_passed
      from keys k
      left join lateral (
        select p.price, p.at from price_ticks p
        where p.symbol = k.asset and p.at <= k.expires_at
        order by p.at desc, p.id desc limit 1
      ) c on true
    ), ready as (
      select d.id, d.account_id, d.direction, d.amount_cents, d.payout_percentage, d.strike_price,
             c.price as close_price, c.at as close_at
      from due d join closing c on c.asset = d.asset and c.expires_at = d.expires_at
      where c.price is not null and (c.feed_passed or d.expires_at <= ${ripe}::timestamptz)
    ), outcome as (
      select r.*, ${OUTCOME_SQL.result} as result, ${OUTCOME_SQL.profit} as profit, ${OUTCOME_SQL.credit} as credit
      from ready r
    ), closed as (
      update trades t
      set status = o.result, close_price = o.close_price, close_at = o.close_at, profit_cents = o.profit,
          settled_at = ${now}::timestamptz
      from outcome o
      where t.id = o.id and t.status = 'active'
      returning t.*, o.result, o.profit, o.credit
    ), credits as (
      -- No trade:<id>:settle entry can exist for a trade still active (a void closes the trade as it posts it), so a
      -- clash of the unique reference would abort the batch (then settled one by one) rather than pay twice.
      select c.* from closed c where c.credit > 0
    ), locked as (
      select a.id, a.balance_cents from trading_accounts a
      where a.id in (select account_id from credits)
      order by a.id
      for update
    ), entries as (
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference)
      select c.account_id, case c.result when 'won' then 'trade_payout' else 'trade_refund' end, c.credit,
             l.balance_cents + sum(c.credit) over (partition by c.account_id order by c.id),
             'trade:' || c.id || ':settle'
      from credits c join locked l on l.id = c.account_id
      order by c.account_id, c.id
    ), moved as (
      update trading_accounts a set balance_cents = l.balance_cents + s.total, updated_at = now()
      from locked l join (select account_id, sum(credit) as total from credits group by account_id) s
        on s.account_id = l.id
      where a.id = l.id
    )
    select (select count(*) from due)::int as claimed,
           (select count(*) from ready)::int as ready,
           (select json_build_array(expires_at, id) from due order by expires_at desc, id desc limit 1) as last,
           (select json_agg(json_build_array(c.id, c.account_id, c.result, c.credit, c.profit,
                                             json_build_array(${TRADE_JSON}),
                                             a.user_id)
                            order by c.account_id, c.id)
              from closed c join trading_accounts a on a.id = c.account_id) as settled`.execute(trx);
  const row = result.rows[0]!;
  const settled = (row.settled ?? []).map(([id, accountId, status, creditCents, profitCents, trade, ownerId]) => ({
    id: Number(id),
    accountId: Number(accountId),
    status,
    creditCents: Number(creditCents),
    profitCents: Number(profitCents),
    row: tradeFromJson(trade),
    ownerId,
  }));
  return {
    claimed: row.claimed,
    settled,
    waiting: row.claimed - row.ready,
    last: row.last ? { expiresAt: new Date(row.last[0]).toISOString(), id: Number(row.last[1]) } : null,
  };
}

/**
 * Settles every trade due by `now` (decisions.md D1, D3): close price = the last stored tick at or before expires_at,
 * outcome by the shared settleTrade rule, payout or refund posted to the ledger with reference trade:<id>:settle,
 * all of one batch in one transaction. Safe to run in several processes at once and after a crash: trades are
 * claimed with SKIP LOCKED, the update is guarded by status = 'active', and the ledger reference is unique.
 * A trade waits while there is no price at or before its expiry, or while the feed has not yet stored a tick after
 * its expiry (for at most `graceMs`), so a tick still on its way to the database cannot be missed.
 */
export async function settleDueTrades(
  deps: { db: Db; log?: { error(obj: object, msg: string): void } },
  options: SettleOptions,
): Promise<SettleReport> {
  const batchSize = options.batchSize ?? SETTLEMENT_BATCH_SIZE;
  const graceMs = options.graceMs ?? SETTLEMENT_GRACE_MS;
  const report: SettleReport = { settled: [], waiting: 0, failed: 0 };
  let cursor: Cursor | null = null;

  for (;;) {
    let batch: Awaited<ReturnType<typeof settleBatch>>;
    try {
      batch = await deps.db
        .transaction()
        .execute((trx) => settleBatch(trx, { now: options.now, limit: batchSize, after: cursor, graceMs }));
    } catch (err) {
      // One bad trade must not hold up the others: settle this batch's trades one per transaction.
      deps.log?.error({ err }, 'settlement batch failed; settling its trades one by one');
      const ids = await dueIds(deps.db, options.now, batchSize, cursor);
      batch = { claimed: ids.length, settled: [], waiting: 0, last: null };
      for (const id of ids) {
        try {
          const single = await deps.db
            .transaction()
            .execute((trx) => settleBatch(trx, { now: options.now, limit: 1, after: null, onlyId: id.id, graceMs }));
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
