import { settleTrade, type SettledTradeStatus } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { postEntries, type Trx } from '../ledger/service.js';

/** A feed that has not passed a trade's expiry for this long is not waited for any more. */
export const SETTLEMENT_GRACE_MS = 5000;

/** Trades claimed and settled per transaction (a constant number of statements per batch, see settleClaimed). */
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
}

export interface SettleReport {
  settled: SettledTrade[];
  /** Due trades left for a later run: no price at or before expiry yet, or the feed has not passed expiry. */
  waiting: number;
  failed: number;
}

interface DueRow {
  id: string | number;
  account_id: string | number;
  asset: string;
  direction: 'call' | 'put';
  amount_cents: string | number;
  payout_percentage: number;
  strike_price: string;
  expires_at: Date | string;
}

interface ClosePrice {
  price: string | null;
  at: Date | string | null;
  /** Whether the feed has already stored a tick after the expiry (then no later tick can change the close price). */
  feedPassed: boolean;
}

interface Cursor {
  expiresAt: string;
  id: number;
}

/**
 * Claims due active trades: locked FOR UPDATE SKIP LOCKED, so another worker (another process) takes other trades
 * instead of waiting.
 */
async function claimDue(trx: Trx, now: Date, limit: number, after: Cursor | null, onlyId?: number): Promise<DueRow[]> {
  const nowIso = now.toISOString();
  const result = await sql<DueRow>`
    select t.id, t.account_id, t.asset, t.direction, t.amount_cents, t.payout_percentage, t.strike_price, t.expires_at
    from trades t
    where t.status = 'active' and t.expires_at <= ${nowIso}::timestamptz
      ${after ? sql`and (t.expires_at, t.id) > (${after.expiresAt}::timestamptz, ${after.id})` : sql``}
      ${onlyId !== undefined ? sql`and t.id = ${onlyId}` : sql``}
    order by t.expires_at, t.id
    limit ${limit}
    for update of t skip locked`.execute(trx);
  return result.rows;
}

const priceKey = (asset: string, expiresAt: Date | string) => `${asset}|${new Date(expiresAt).toISOString()}`;

/**
 * The close price of every (asset, expiry) of the claimed trades, in one query — trades expiring together share it:
 * the last stored tick of the asset at or before the expiry, and whether the feed has stored a tick after it.
 */
async function closePrices(trx: Trx, rows: DueRow[]): Promise<Map<string, ClosePrice>> {
  const keys = new Map<string, { asset: string; expiresAt: string }>();
  for (const r of rows) {
    const key = priceKey(r.asset, r.expires_at);
    if (!keys.has(key)) keys.set(key, { asset: r.asset, expiresAt: new Date(r.expires_at).toISOString() });
  }
  const prices = new Map<string, ClosePrice>();
  if (keys.size === 0) return prices;
  const result = await sql<{
    asset: string;
    expires_at: Date | string;
    close_price: string | null;
    close_at: Date | string | null;
    feed_passed: boolean;
  }>`
    select k.asset, k.expires_at, c.price as close_price, c.at as close_at,
           exists (select 1 from price_ticks n where n.symbol = k.asset and n.at > k.expires_at) as feed_passed
    from (values ${sql.join([...keys.values()].map((k) => sql`(${k.asset}::text, ${k.expiresAt}::timestamptz)`))})
      as k(asset, expires_at)
    left join lateral (
      select p.price, p.at from price_ticks p
      where p.symbol = k.asset and p.at <= k.expires_at
      order by p.at desc, p.id desc limit 1
    ) c on true`.execute(trx);
  for (const r of result.rows) {
    prices.set(priceKey(r.asset, r.expires_at), { price: r.close_price, at: r.close_at, feedPassed: r.feed_passed });
  }
  return prices;
}

/**
 * Settles the claimed trades that are ready with a constant number of statements, whatever the batch size: one query
 * for the close prices, every outcome by the shared settleTrade rule (D1) here, one UPDATE of the trades from a list (guarded by status = 'active', so a trade is settled once whatever happens), and the payouts and refunds of
 * the trades it closed posted through the ledger's postEntries (D3: accounts locked in id order, balance_after chained
 * per account in trade id order, one INSERT of the entries, one UPDATE of the balances).
 */
async function settleClaimed(
  trx: Trx,
  rows: DueRow[],
  now: Date,
  graceMs: number,
): Promise<{ settled: SettledTrade[]; waiting: number }> {
  let waiting = 0;
  const prices = await closePrices(trx, rows);
  const outcomes: (SettledTrade & { closePrice: string; closeAt: string })[] = [];
  for (const r of rows) {
    const close = prices.get(priceKey(r.asset, r.expires_at));
    const expired = new Date(r.expires_at).getTime();
    if (!close || close.price === null || !(close.feedPassed || now.getTime() - expired >= graceMs)) {
      waiting += 1;
      continue;
    }
    const result = settleTrade({
      direction: r.direction,
      strikePrice: r.strike_price,
      closePrice: close.price,
      amountCents: Number(r.amount_cents),
      payoutPercentage: r.payout_percentage,
    });
    outcomes.push({
      id: Number(r.id),
      accountId: Number(r.account_id),
      ...result,
      closePrice: close.price,
      closeAt: new Date(close.at!).toISOString(),
    });
  }
  if (outcomes.length === 0) return { settled: [], waiting };
  outcomes.sort((a, b) => a.accountId - b.accountId || a.id - b.id);

  // Arrays unnested into rows: five parameters whatever the batch size. The id = any(…) makes the planner fetch the
  // trades by primary key instead of hashing a scan of every active trade.
  const updated = await sql<{ id: string | number }>`
    update trades t
    set status = v.status, close_price = v.close_price, close_at = v.close_at, profit_cents = v.profit_cents,
        settled_at = ${now.toISOString()}::timestamptz
    from unnest(${outcomes.map((o) => o.id)}::bigint[], ${outcomes.map((o) => o.status)}::text[],
                ${outcomes.map((o) => o.closePrice)}::numeric[], ${outcomes.map((o) => o.closeAt)}::timestamptz[],
                ${outcomes.map((o) => o.profitCents)}::bigint[]) as v(id, status, close_price, close_at, profit_cents)
    where t.id = v.id and t.id = any(${outcomes.map((o) => o.id)}::bigint[]) and t.status = 'active'
    returning t.id`.execute(trx);
  const closed = new Set(updated.rows.map((r) => Number(r.id)));
  const settled = outcomes
    .filter((o) => closed.has(o.id))
    .map(({ id, accountId, status, creditCents, profitCents }) => ({
      id,
      accountId,
      status,
      creditCents,
      profitCents,
    }));

  await postEntries(
    trx,
    settled
      .filter((s) => s.creditCents > 0)
      .map((s) => ({
        accountId: s.accountId,
        kind: s.status === 'won' ? ('trade_payout' as const) : ('trade_refund' as const),
        amountCents: s.creditCents,
        // The same reference a void would use: a trade's stake comes back at most once, by settlement or by void.
        reference: `trade:${s.id}:settle`,
        actor: null,
        reason: null,
      })),
  );
  return { settled, waiting };
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
    let claimed: DueRow[] = [];
    try {
      const batch = await deps.db.transaction().execute(async (trx) => {
        const rows = await claimDue(trx, options.now, batchSize, cursor);
        claimed = rows;
        return settleClaimed(trx, rows, options.now, graceMs);
      });
      report.settled.push(...batch.settled);
      report.waiting += batch.waiting;
    } catch (err) {
      // One bad trade must not hold up the others: settle this batch one trade per transaction.
      deps.log?.error({ err }, 'settlement batch failed; settling its trades one by one');
      for (const row of claimed) {
        try {
          const single = await deps.db.transaction().execute(async (trx) => {
            const rows = await claimDue(trx, options.now, 1, null, Number(row.id));
            return settleClaimed(trx, rows, options.now, graceMs);
          });
          report.settled.push(...single.settled);
          report.waiting += single.waiting;
        } catch (singleErr) {
          report.failed += 1;
          deps.log?.error({ err: singleErr, tradeId: Number(row.id) }, 'could not settle trade');
        }
      }
    }
    if (claimed.length < batchSize) break;
    const last = claimed.at(-1)!;
    cursor = { expiresAt: new Date(last.expires_at).toISOString(), id: Number(last.id) };
  }
  return report;
}
