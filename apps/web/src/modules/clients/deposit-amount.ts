import { centsToDollars, dollarsToCents, MAX_CENTS } from '@brokerage/shared';

/** Why a deposit amount typed in the form cannot be saved; null when it can (or nothing is typed yet). */
export type DepositAmountProblem = 'min' | 'max' | 'decimals' | null;

/** The largest deposit the server takes, in dollars: every cent count must stay an exact integer (D3). */
export const MAX_DEPOSIT_DOLLARS = centsToDollars(MAX_CENTS - (MAX_CENTS % 100));

/**
 * The reason a deposit amount is refused, the same rule as the server's `depositAmount` (at least $0.01, two decimals,
 * countable in cents). Mantine's NumberInput hands over a string for a number too large to hold exactly.
 */
export function depositAmountProblem(amount: number | string): DepositAmountProblem {
  if (amount === '' || amount === '-') return null;
  const value = typeof amount === 'number' ? amount : Number(amount);
  if (!Number.isFinite(value)) return 'max';
  if (value < 0.01) return 'min';
  if (value > MAX_DEPOSIT_DOLLARS) return 'max';
  if (dollarsToCents(typeof amount === 'number' ? amount : amount.trim()) === null) return 'decimals';
  return null;
}
