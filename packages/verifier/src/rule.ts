import { compareDecimal } from './decimal.js';

/**
 * The settlement rule, version 1, as decisions.md D27 check 6 publishes it (D1 and D22), written from that text and
 * nothing else:
 * - no close price, or a close older than `gap_seconds` before the expiry → `no_price`;
 * - else a call wins when close > strike, a put when close < strike; an equal price is a tie;
 * - won → profit = ⌊amount × payout / 100⌋, credit = amount + profit; lost → profit = −amount, credit 0;
 *   tie, no_price (and void, a staff decision) → profit 0, credit = amount.
 */

export const RULE_VERSION = 1;
/** Rule version 1's gap bound (D22): a close may be at most this many seconds older than the expiry. */
export const RULE_GAP_SECONDS = 10;

export type Direction = 'call' | 'put';
export type RuleStatus = 'won' | 'lost' | 'tie' | 'no_price';
export type Status = RuleStatus | 'void';

export interface RuleInput {
  direction: Direction;
  strike_price: string;
  expires_ms: number;
  /** The last tick at or before the expiry, or null when the symbol had none. */
  close: { price: string; time_ms: number } | null;
  gap_seconds: number;
}

export interface RuleDecision {
  status: RuleStatus;
  /** Why: 'no_close', 'gap' (the close is too old), or the comparison of close with strike. */
  reason: 'no_close' | 'gap' | 'above' | 'below' | 'equal';
}

export function decide(input: RuleInput): RuleDecision {
  const { close } = input;
  if (close === null) return { status: 'no_price', reason: 'no_close' };
  if (input.expires_ms - close.time_ms > input.gap_seconds * 1000) return { status: 'no_price', reason: 'gap' };
  const move = compareDecimal(close.price, input.strike_price);
  if (move === 0) return { status: 'tie', reason: 'equal' };
  const won = input.direction === 'call' ? move > 0 : move < 0;
  return { status: won ? 'won' : 'lost', reason: move > 0 ? 'above' : 'below' };
}

export interface Amounts {
  profit_cents: number;
  credit_cents: number;
}

/** The amounts a status pays on a stake of `amount_cents` at `payout_percentage` (whole percent). */
export function amountsFor(status: Status, amount_cents: number, payout_percentage: number): Amounts {
  switch (status) {
    case 'won': {
      // BigInt: amount × payout can pass 2^53 even when both fit; the floor of the quotient is exact.
      const profit = Number((BigInt(amount_cents) * BigInt(payout_percentage)) / 100n);
      return { profit_cents: profit, credit_cents: amount_cents + profit };
    }
    case 'lost':
      return { profit_cents: -amount_cents, credit_cents: 0 };
    default:
      return { profit_cents: 0, credit_cents: amount_cents };
  }
}
