import { compareDecimal } from './decimal.js';

export const TRADE_DIRECTIONS = ['call', 'put'] as const;
export type TradeDirection = (typeof TRADE_DIRECTIONS)[number];

/** active until settled at expiry (won / lost / tie) or voided by staff (stake returned). */
export const TRADE_STATUSES = ['active', 'won', 'lost', 'tie', 'voided'] as const;
export type TradeStatus = (typeof TRADE_STATUSES)[number];
export type SettledTradeStatus = 'won' | 'lost' | 'tie';

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
  status: SettledTradeStatus;
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
