import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { TradeRow, TradingAccountRow } from '../../platform/db/types.js';
import { stakeBalanceMoved, stakeEntryPosted } from '../ledger/statement-parts.js';

export interface TradeStakeInput {
  userId: string;
  /**
   * false when a check that needs no account row already failed (amount below the minimum, unknown asset, no fresh
   * price, duration not offered): the account is still read, locked, so the caller can answer with the first failed
   * check in its documented order; nothing is written.
   */
  allowed: boolean;
  /** The stake, positive whole cents (0 when the amount is not a sum of money: then `allowed` is false). */
  amountCents: number;
  asset: string;
  direction: 'call' | 'put';
  durationSeconds: number;
  /**
   * The strike is the newest stored tick of the asset at or before `now`, read by the statement itself (issue 21 §3:
   * a trade opens only at a stored price); one older than this is no price (D1's 5 s).
   */
  priceNotBefore: Date;
  expiresAt: Date;
  now: Date;
}

/**
 * The account as locked by the statement (before the stake), whether a fresh stored price was there, and the trade with
 * the balance after its stake.
 */
export interface TradeStakeResult {
  account: Pick<TradingAccountRow, 'id' | 'status' | 'trading_enabled' | 'max_trade_amount_cents' | 'balance_cents'>;
  priced: boolean;
  placed: { trade: TradeRow; balanceAfterCents: number } | null;
}

type TradeStakeRow = TradeRow & {
  acct_id: string;
  acct_status: TradingAccountRow['status'];
  acct_trading_enabled: boolean;
  acct_max_cents: string;
  acct_balance_cents: string;
  acct_priced: boolean;
  balance_after_cents: string | null;
};

/**
 * THE trade checks on the account (the shared `tradeCheck`, packages/shared) as SQL over the locked account row `acc`,
 * for a stake that is already at least the minimum (the caller decides that before the statement): true when
 * `tradeCheck` passes. Checked in the statement, on the locked row, so that the check and the stake are one atomic
 * step; trade-check-sql.test.ts proves on both databases, by property, that it agrees with `tradeCheck`.
 */
export function tradeCheckSql(amountCents: number) {
  return sql<boolean>`acc.status = 'active' and acc.trading_enabled
              and ${amountCents}::bigint <= acc.max_trade_amount_cents
              and ${amountCents}::bigint <= acc.balance_cents`;
}

/**
 * The statement that opens a trade and posts its stake (D1, D3), atomic by itself, so it needs no explicit
 * transaction: lock the user's account row (SELECT … FOR UPDATE — concurrent stakes on one account queue here and
 * each sees the balance the previous one left), read the strike — the newest stored tick of the asset at or before
 * now, if not older than `priceNotBefore` (one descent of price_ticks_symbol_at; a stored tick is one the feed wrote
 * with its watermark, so it can no longer change: D22, issue 21 §3) — check on the locked row that the account is
 * active with trading enabled and that the stake is within its limit and its balance (tradeCheckSql); only then move
 * the balance (the ledger's part: guarded ≥ 0, noting the activity), insert the trade at that strike with the
 * account's payout, and insert the stake's ledger entry (the ledger's part: `trade:<id>:stake`, balance_after = the
 * moved balance). The trade also records the price log's size as this statement sees it (`opened_log_size`, D27): the
 * statement's one snapshot holds the strike tick and every leaf below that size, so the strike is provably the newest
 * tick at or before the opening among them. One row back: the locked account (and whether a price was found) and,
 * when placed, the trade and the balance after; no row when the user has no account. Exported so the bench can run
 * the very same SQL.
 */
export function tradeStakeStatement(input: TradeStakeInput) {
  const amount = input.amountCents;
  return sql<TradeStakeRow>`
    with acc as (
      select * from trading_accounts where user_id = ${input.userId} for update
    ), quote as (
      select p.price, p.at from price_ticks p
      where p.symbol = ${input.asset} and p.at <= ${input.now}::timestamptz
        and p.at >= ${input.priceNotBefore}::timestamptz
      order by p.at desc, p.id desc limit 1
    ), chk as (
      select acc.*, exists (select 1 from quote) as priced,
             (${input.allowed} and ${tradeCheckSql(amount)} and exists (select 1 from quote)) as placed
      from acc
    ), ${stakeBalanceMoved({ amountCents: amount, now: input.now })}, trade as (
      insert into trades (account_id, asset, direction, amount_cents, duration_seconds, payout_percentage,
                          strike_price, strike_at, expires_at, created_at, opened_seq, live_seq, opened_log_size)
      select moved.id, ${input.asset}, ${input.direction}, ${amount}::bigint, ${input.durationSeconds}::int,
             chk.payout_percentage, quote.price, quote.at,
             ${input.expiresAt}::timestamptz, ${input.now}::timestamptz, moved.live_seq, moved.live_seq,
             (select s.size from price_log_state s where s.id = 1)
      from moved join chk on chk.id = moved.id cross join quote
      returning *
    ), ${stakeEntryPosted({ amountCents: amount, userId: input.userId })}
    select trade.*, chk.id as acct_id, chk.status as acct_status, chk.trading_enabled as acct_trading_enabled,
           chk.max_trade_amount_cents as acct_max_cents, chk.balance_cents as acct_balance_cents,
           chk.priced as acct_priced, entry.balance_after_cents
    from chk left join trade on trade.account_id = chk.id left join entry on entry.account_id = chk.id`;
}

/** Runs tradeStakeStatement (see there); null when the user has no trading account. */
export async function postTradeStake(db: Db, input: TradeStakeInput): Promise<TradeStakeResult | null> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 0)
    throw new RangeError(`stake is not whole cents: ${input.amountCents}`);
  const { rows } = await tradeStakeStatement(input).execute(db);
  const row = rows[0];
  if (!row) return null;
  const {
    acct_id,
    acct_status,
    acct_trading_enabled,
    acct_max_cents,
    acct_balance_cents,
    acct_priced,
    balance_after_cents,
    ...trade
  } = row;
  return {
    account: {
      id: acct_id,
      status: acct_status,
      trading_enabled: acct_trading_enabled,
      max_trade_amount_cents: acct_max_cents,
      balance_cents: acct_balance_cents,
    },
    priced: acct_priced,
    placed:
      trade.id === null || balance_after_cents === null
        ? null
        : { trade: trade as TradeRow, balanceAfterCents: Number(balance_after_cents) },
  };
}
