import { MAX_TRADE_LIMIT_DOLLARS, MIN_TRADE_DOLLARS, centsToDollars, dollarsToCents } from '@brokerage/shared';

/**
 * The input rules of back-office.md §5 for the balance modal and the trading settings, as pure functions (the forms
 * call them; the unit tests pin them).
 */

// ---------------------------------------------------------------- balance modal

export const BALANCE_ACTIONS = ['set', 'add', 'subtract'] as const;
export type BalanceAction = (typeof BALANCE_ACTIONS)[number];

export function isBalanceAction(value: unknown): value is BalanceAction {
  return typeof value === 'string' && (BALANCE_ACTIONS as readonly string[]).includes(value);
}

/** §5: the amount may carry a leading minus and a decimal point; any other keystroke is ignored. */
export function acceptsBalanceInput(text: string): boolean {
  return /^-?\d*[.,]?\d*$/.test(text);
}

function readNumber(text: string): number {
  const normalised = text.trim().replace(',', '.');
  return normalised === '' || normalised === '-' || normalised === '.' ? Number.NaN : Number(normalised);
}

/** §5: apply is disabled while the amount is empty or not above 0. */
export function balanceApplyEnabled(text: string): boolean {
  const value = readNumber(text);
  return Number.isFinite(value) && value > 0;
}

/**
 * The amount to send, in cents, or null when it is not a number, below 0, or has more than 2 decimals (§5 answers
 * 'Введите корректную сумму').
 */
export function balanceAmountCents(text: string): number | null {
  const value = readNumber(text);
  if (!Number.isFinite(value) || value < 0) return null;
  return dollarsToCents(text.trim().replace(',', '.'));
}

/** The balance the change would leave, in cents (negative when it would go below 0, which the server refuses). */
export function resultingBalanceCents(balance: number, action: BalanceAction, amountCents: number): number {
  const current = dollarsToCents(balance) ?? 0;
  if (action === 'set') return amountCents;
  return action === 'add' ? current + amountCents : current - amountCents;
}

// ---------------------------------------------------------------- trading settings

/** §5: max_trade_amount takes digits and one decimal point only. */
export function acceptsMaxAmountInput(text: string): boolean {
  return /^\d*\.?\d*$/.test(text);
}

/** §5: payout_percentage takes digits and a decimal point, between 1 and 100 inclusive, or empty; else ignored. */
export function acceptsPayoutInput(text: string): boolean {
  if (!/^\d*\.?\d*$/.test(text)) return false;
  if (text === '') return true;
  const value = Number(text.endsWith('.') ? text.slice(0, -1) : text);
  return Number.isFinite(value) && value >= 1 && value <= 100;
}

export interface SettingsDraft {
  trading_enabled: boolean;
  max_trade_amount: string;
  payout_percentage: string;
}

export type SettingsError = 'payout' | 'maxAmount';

/**
 * The body of PUT …/settings from the edited texts, or the fields in error: the payout a whole 1–100 (the server
 * stores whole percentages), the maximum at least $1 (the smallest stake), at most 2 decimals and the server's cap.
 * An empty maximum reads as 0 (§5), which is then refused.
 */
export function settingsBody(
  draft: SettingsDraft,
):
  | { ok: true; body: { trading_enabled: boolean; max_trade_amount: number; payout_percentage: number } }
  | { ok: false; errors: SettingsError[] } {
  const errors: SettingsError[] = [];
  const payout = Number(draft.payout_percentage);
  if (draft.payout_percentage.trim() === '' || !Number.isInteger(payout) || payout < 1 || payout > 100) {
    errors.push('payout');
  }
  const maxText = draft.max_trade_amount.trim() === '' ? '0' : draft.max_trade_amount.trim().replace(/\.$/, '');
  const maxCents = dollarsToCents(maxText);
  const minCents = MIN_TRADE_DOLLARS * 100;
  if (maxCents === null || maxCents < minCents || maxCents > MAX_TRADE_LIMIT_DOLLARS * 100) errors.push('maxAmount');
  if (errors.length > 0 || maxCents === null) return { ok: false, errors };
  return {
    ok: true,
    body: {
      trading_enabled: draft.trading_enabled,
      max_trade_amount: centsToDollars(maxCents),
      payout_percentage: payout,
    },
  };
}
