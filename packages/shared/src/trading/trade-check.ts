import { MIN_TRADE_DOLLARS } from './durations.js';

/**
 * THE place-trade checks on the account (decisions.md D1, client-platform.md §5), the one definition the server's
 * answer, the client's trade panel and demo mode all run. The server's place-trade statement repeats them in SQL on the
 * locked row, so that checking and taking the stake are one atomic step (`tradeCheckSql` in modules/trading/stake.ts);
 * trade-check-sql.test.ts proves the two agree.
 */

/** What can be wrong, in the order checked; each side names it in its own words (HTTP error, screen text). */
export type TradeCheckCode =
  | 'trading_disabled'
  | 'trade_amount_too_small'
  | 'trade_amount_too_large'
  /** The balance is not known yet (a screen still loading it): never read as $0 (D10). The server always knows it. */
  | 'balance_unknown'
  | 'insufficient_trade_balance';

export interface TradeCheckInput {
  /** The account is open (status 'active'). */
  accountActive: boolean;
  /** Trading is enabled on the account. */
  tradingEnabled: boolean;
  /** The stake in whole cents; null when the amount is not a sum of money (empty, more than 2 decimals). */
  amountCents: number | null;
  /** The smallest stake, in cents; the published minimum (MIN_TRADE_DOLLARS) unless given. */
  minCents?: number;
  /** The account's largest stake, in cents. */
  maxCents: number;
  /** The balance, in cents; null while it is not known. */
  balanceCents: number | null;
}

/** Whether an amount is no stake at all or under the minimum (the one check that needs no account). */
export function tradeAmountTooSmall(amountCents: number | null, minCents: number = MIN_TRADE_DOLLARS * 100): boolean {
  return amountCents === null || amountCents < minCents;
}

/**
 * The first failed check, in order: the account active with trading enabled; the stake at least the minimum; at most
 * the account's limit; the balance known; at most the balance. null when every check passes. (The asset, its price
 * and the duration are checked after these by the server, and the price by the screens.)
 */
export function tradeCheck(
  input: TradeCheckInput & { balanceCents: number },
): Exclude<TradeCheckCode, 'balance_unknown'> | null;
export function tradeCheck(input: TradeCheckInput): TradeCheckCode | null;
export function tradeCheck(input: TradeCheckInput): TradeCheckCode | null {
  if (!input.accountActive || !input.tradingEnabled) return 'trading_disabled';
  const amount = input.amountCents;
  if (amount === null || tradeAmountTooSmall(amount, input.minCents)) return 'trade_amount_too_small';
  if (amount > input.maxCents) return 'trade_amount_too_large';
  if (input.balanceCents === null) return 'balance_unknown';
  if (amount > input.balanceCents) return 'insufficient_trade_balance';
  return null;
}
