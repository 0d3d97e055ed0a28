import { compareDecimal } from './decimal.js';

export const TRADE_DIRECTIONS = ['call', 'put'] as const;
export type TradeDirection = (typeof TRADE_DIRECTIONS)[number];

/**
 * active until settled at expiry (won / lost / tie, or no_price by the gap rule of D22: stake returned) or voided by
 * staff (stake returned).
 */
export const TRADE_STATUSES = ['active', 'won', 'lost', 'tie', 'no_price', 'voided'] as const;
export type TradeStatus = (typeof TRADE_STATUSES)[number];
/** The result of comparing a close price with the strike. */
export type PricedTradeStatus = 'won' | 'lost' | 'tie';
/** What settlement at expiry can give: a priced result, or no_price when the feed had a gap at expiry (D22). */
export type SettledTradeStatus = PricedTradeStatus | 'no_price';

/**
 * The gap rule's published bound (D22): a trade is settled at the last stored price at or before its expiry only if
 * that price is at most this many seconds older than the expiry; otherwise the feed had a gap at expiry and the trade
 * is settled as 'no_price' — the stake returned — never at an older price.
 */
export const SETTLEMENT_GAP_SECONDS = 10;

export interface SettleTradeInput {
  direction: TradeDirection;
  /** The server's price when the trade opened, as a decimal string (or a number with at most ~15 digits). */
  strikePrice: string | number;
  /** The last price at or before expiry. */
  closePrice: string | number;
  /** The stake, in whole cents. */
  amountCents: number;
  /** The payout in force when the trade opened, a whole percentage 1–100. */
  payoutPercentage: number;
}

export interface SettleTradeResult {
  status: PricedTradeStatus;
  /** What goes back to the balance: stake + profit when won, the stake on a tie, nothing when lost. */
  creditCents: number;
  /** The client's result: +profit when won, 0 on a tie, −stake when lost. */
  profitCents: number;
}

/** The profit a winning trade pays on top of its stake: floor(amount × payout / 100), in cents. */
export function potentialProfitCents(amountCents: number, payoutPercentage: number): number {
  assertStake(amountCents, payoutPercentage);
  return Number((BigInt(amountCents) * BigInt(payoutPercentage)) / 100n);
}

function assertStake(amountCents: number, payoutPercentage: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`bad stake: ${amountCents} cents`);
  if (!Number.isInteger(payoutPercentage) || payoutPercentage < 1 || payoutPercentage > 100) {
    throw new RangeError(`bad payout percentage: ${payoutPercentage}`);
  }
}

/**
 * THE settlement rule (decisions.md D1), used by the server and by demo mode: a call wins when the close price is
 * above the strike, a put when it is below, and an equal price is a tie that returns the stake. Prices are compared
 * exactly as decimals. Nothing else takes part: no account setting, no probability, no one's choice.
 */
export function settleTrade(input: SettleTradeInput): SettleTradeResult {
  const { direction, amountCents, payoutPercentage } = input;
  assertStake(amountCents, payoutPercentage);
  if (direction !== 'call' && direction !== 'put') throw new RangeError(`bad direction: ${String(direction)}`);
  const move = compareDecimal(input.closePrice, input.strikePrice);
  if (move === 0) return { status: 'tie', creditCents: amountCents, profitCents: 0 };
  const won = direction === 'call' ? move > 0 : move < 0;
  if (!won) return { status: 'lost', creditCents: 0, profitCents: -amountCents };
  const profit = potentialProfitCents(amountCents, payoutPercentage);
  return { status: 'won', creditCents: amountCents + profit, profitCents: profit };
}

export interface SettleAtExpiryInput extends Omit<SettleTradeInput, 'closePrice'> {
  /** When the trade expired. */
  expiresAt: Date | string | number;
  /** The last stored price at or before the expiry and its time, or null when there is none. */
  close: { price: string | number; at: Date | string | number } | null;
}

export interface SettleAtExpiryResult {
  status: SettledTradeStatus;
  creditCents: number;
  profitCents: number;
}

/** Whether a close price stored at `closeAt` is too old to decide a trade that expired at `expiresAt` (D22). */
export function isPriceGap(closeAt: Date | string | number | null, expiresAt: Date | string | number): boolean {
  if (closeAt === null) return true;
  const close = new Date(closeAt).getTime();
  const expiry = new Date(expiresAt).getTime();
  if (Number.isNaN(close) || Number.isNaN(expiry)) throw new TypeError('bad close or expiry time');
  return expiry - close > SETTLEMENT_GAP_SECONDS * 1000;
}

/**
 * THE settlement at expiry (D1, D22): with a close price (the last stored price at or before the expiry) no more than
 * SETTLEMENT_GAP_SECONDS before the expiry, settleTrade decides; without one the feed had a gap at expiry, and the
 * trade is 'no_price': the stake is returned, nothing won or lost. The server's SQL (OUTCOME_SQL) is its twin.
 */
export function settleAtExpiry(input: SettleAtExpiryInput): SettleAtExpiryResult {
  const { close, expiresAt, ...trade } = input;
  if (close === null || isPriceGap(close.at, expiresAt)) {
    assertStake(trade.amountCents, trade.payoutPercentage);
    return { status: 'no_price', creditCents: trade.amountCents, profitCents: 0 };
  }
  return settleTrade({ ...trade, closePrice: close.price });
}
