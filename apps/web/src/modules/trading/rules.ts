import {
  settleTrade,
  DEPOSIT_INTENT_MAX_DOLLARS,
  DEPOSIT_INTENT_MIN_DOLLARS,
  checkWithdrawal,
  centsToDollars,
  dollarsToCents,
  formatDollarLimit,
  potentialProfitCents,
  tradeCheck,
  WITHDRAW_MIN_DOLLARS,
  type TradeCheckCode,
  type WithdrawCheckFailure,
} from '@brokerage/shared';
import { formatMoney } from '../../lib/format';

/**
 * The client screen's input rules (client-platform.md §5) as pure functions: input shaping, and the checks in their
 * order. Each check answers a problem code with its parameters; the screen translates it (platform namespace,
 * `problems.<code>`), so the texts are the same wherever they show and tests can read them in ru and en.
 */

export interface Problem {
  code: string;
  params?: Record<string, string>;
}

/** The translation key of a problem code: `problems.<camelCase code>` in the platform namespace. */
export function problemKey(code: string): `problems.${string}` {
  return `problems.${code.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}`;
}

/** §5: amount inputs take only digits with at most one decimal point (a comma counts as the point), or nothing. */
export function shapeAmount(raw: string): string | null {
  const text = raw.replace(',', '.').replace(/\s+/g, '');
  return /^\d*(\.\d{0,2})?$/.test(text) ? text : null;
}

/** §5: the card number keeps digits only, grouped by 4, at most 19 characters with the spaces. */
export function shapeCardNumber(raw: string): string {
  const digits = raw.replace(/\D/g, '').slice(0, 16);
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** §5: the holder is upper case. */
export function shapeCardHolder(raw: string): string {
  return raw.toUpperCase();
}

/** §5: the expiry keeps digits, with '/' after the first two, at most 5 characters ('MM/YY'). */
export function shapeCardExpiry(raw: string): string {
  const digits = raw.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

/** A typed amount as a number of dollars; null when empty or not a 2-decimal amount. */
export function parseAmount(text: string): number | null {
  if (text.trim() === '') return null;
  const cents = dollarsToCents(text.trim());
  return cents === null ? null : cents / 100;
}

export interface TradeCheckInput {
  amount: string;
  balance: number | null;
  minTrade: number;
  maxTrade: number;
  tradingEnabled: boolean;
  /** The server's current price of the asset; null while there is none. */
  price: number | null;
  /** Whether the balance failed to load (a null balance is otherwise still loading: never read as $0, D10). */
  balanceError?: boolean;
}

/** The screen's problem code for each failed check of the shared tradeCheck (`problems.<code>` in the platform texts). */
export const TRADE_CHECK_PROBLEMS: Record<Exclude<TradeCheckCode, 'balance_unknown'>, string> = {
  trading_disabled: 'trading_disabled',
  trade_amount_too_small: 'trade_min',
  trade_amount_too_large: 'trade_max',
  insufficient_trade_balance: 'trade_insufficient',
};

/**
 * The trade panel's checks, in order (§3 changed, §5 Readings A and B, §9): those of the account — the shared
 * tradeCheck, the one the server and demo mode run: trading suspended; amount missing or under the $1 minimum; above
 * the account's limit; the balance not loaded yet (or not at all); above the balance — then no current price. The buy
 * and sell buttons are disabled while there is a problem, and its text is shown. The server checks the same again.
 */
export function tradeProblem(input: TradeCheckInput): Problem | null {
  const text = input.amount.trim();
  const failed = tradeCheck({
    // The server folds the account's status into trading_enabled (client-settings).
    accountActive: true,
    tradingEnabled: input.tradingEnabled,
    amountCents: text === '' ? null : dollarsToCents(text),
    minCents: Math.round(input.minTrade * 100),
    maxCents: Math.round(input.maxTrade * 100),
    // Issue 15 defect 6: a balance not known yet is not a zero balance.
    balanceCents: input.balance === null ? null : Math.round(input.balance * 100),
  });
  if (failed === 'balance_unknown') return { code: input.balanceError ? 'balance_unavailable' : 'balance_loading' };
  if (failed === 'trade_amount_too_small')
    return { code: TRADE_CHECK_PROBLEMS[failed], params: { min: `$${input.minTrade}` } };
  if (failed === 'trade_amount_too_large')
    return { code: TRADE_CHECK_PROBLEMS[failed], params: { max: formatDollarLimit(Math.round(input.maxTrade * 100)) } };
  if (failed) return { code: TRADE_CHECK_PROBLEMS[failed] };
  if (input.price === null || !(input.price > 0)) return { code: 'no_price' };
  return null;
}

/**
 * §5 deposit, in order: amount over the maximum (the server's DEPOSIT_INTENT_MAX_DOLLARS: $99,999,999,999,999 is too
 * much, not too little — issue 27 item 6); missing or under $10; no method chosen.
 */
export function depositProblem(amount: string, methodId: string | null): Problem | null {
  if (Number(amount.trim()) > DEPOSIT_INTENT_MAX_DOLLARS)
    return { code: 'deposit_max', params: { max: usd(DEPOSIT_INTENT_MAX_DOLLARS) } };
  const value = parseAmount(amount);
  if (value === null || value < DEPOSIT_INTENT_MIN_DOLLARS)
    return { code: 'deposit_min', params: { min: `$${DEPOSIT_INTENT_MIN_DOLLARS}` } };
  if (!methodId) return { code: 'deposit_method' };
  return null;
}

export interface WithdrawForm {
  amount: string;
  cardNumber: string;
  cardHolder: string;
  cardExpiry: string;
}

/**
 * §5 withdrawal, in order, with the changed rules — the shared check the server runs too (checkWithdrawal): amount ≤ 0;
 * not whole cents; under $10; above the balance; card number (16+ digits, Luhn); holder; expiry not past.
 */
export function withdrawProblem(
  form: WithdrawForm,
  balance: number,
  today: { month: number; year: number },
): Problem | null {
  const amount = form.amount.trim() === '' ? 0 : Number(form.amount);
  const failure: WithdrawCheckFailure | null = checkWithdrawal(
    {
      amount: Number.isFinite(amount) ? amount : 0,
      card_number: form.cardNumber,
      card_holder: form.cardHolder,
      card_expiry: form.cardExpiry,
    },
    Math.round(balance * 100),
    today,
  );
  return failure ? { code: failure.code, params: failure.params } : null;
}

export { WITHDRAW_MIN_DOLLARS };

/** Money as every screen shows it: '$1,234.50' (§9), no sign; the one formatter of lib/format. */
export function usd(dollars: number): string {
  return formatMoney(dollars);
}

/**
 * The countdown of an open trade (D10): 'Xд Yч' from a day, 'Xч Yм' from an hour, m:ss from a minute, then 'Nс'.
 * `units` are the localised d/h/m/s suffixes.
 */
export function formatCountdown(
  seconds: number,
  units: { d: string; h: string; m: string; s: string } = { d: 'д', h: 'ч', m: 'м', s: 'с' },
): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 86400) return `${Math.floor(s / 86400)}${units.d} ${Math.floor((s % 86400) / 3600)}${units.h}`;
  if (s >= 3600) return `${Math.floor(s / 3600)}${units.h} ${Math.floor((s % 3600) / 60)}${units.m}`;
  if (s >= 60) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  return `${s}${units.s}`;
}

/** §9: red at ≤ 10 s, yellow at ≤ 30 s, green otherwise; the card pulses at ≤ 10 s. */
export function countdownColour(seconds: number): 'red' | 'yellow' | 'green' {
  if (seconds <= 10) return 'red';
  if (seconds <= 30) return 'yellow';
  return 'green';
}

/** A price with the asset's decimals. */
export function formatPrice(price: number | null | undefined, decimals: number): string {
  if (price === null || price === undefined || !Number.isFinite(price)) return '—';
  return price.toFixed(decimals);
}

/**
 * The shown potential profit (§9): the shared potentialProfitCents — stake × payout / 100 in whole cents rounded down,
 * as the server pays — in dollars; 0 while the amount or the payout is not one.
 */
export function potentialProfit(amount: string, payoutPercentage: number): number {
  const cents = dollarsToCents(amount.trim() === '' ? '0' : amount.trim());
  const payoutValid = Number.isInteger(payoutPercentage) && payoutPercentage >= 1 && payoutPercentage <= 100;
  if (cents === null || cents <= 0 || !payoutValid) return 0;
  return centsToDollars(potentialProfitCents(cents, payoutPercentage));
}

/**
 * Issue 15 defect 15: the status a client reads for a withdrawal request. Every status has one; the trust issue's
 * 'awaiting_second_approval' (a second staff member still has to approve, D20) reads as pending, 'На рассмотрении',
 * as any status this screen does not know yet would: the money is held and nobody has said no.
 */
export function withdrawStatusKey(status: string): 'pending' | 'approved' | 'rejected' {
  if (status === 'approved' || status === 'rejected') return status;
  return 'pending';
}

/** §9: the unread badge caps at '99+'. */
export function unreadBadgeText(unread: number): string {
  return unread > 99 ? '99+' : String(unread);
}

/** A problem that only says the screen is still loading (shown in grey, not as an error). */
export function isLoadingProblem(problem: Problem | null): boolean {
  return problem?.code === 'balance_loading';
}

/**
 * The most one trade may stake (issue 15 defect 5): the smaller of the balance and the account's limit, and which of
 * the two binds (the limit when they are equal). null while the balance is not known (never a false $0, D10).
 */
export function tradeMaximum(
  balance: number | null,
  maxTrade: number,
): { amount: number; binds: 'balance' | 'limit' } | null {
  if (balance === null) return null;
  return balance < maxTrade ? { amount: balance, binds: 'balance' } : { amount: maxTrade, binds: 'limit' };
}

/** What an open trade needs to be valued now. */
export interface OpenTradeFigures {
  direction: 'call' | 'put';
  amount: number;
  strike_price: number;
  payout_percentage: number;
}

/**
 * Where an open trade stands now (issue 15 defect 1): the result it would have if it expired at `price`, by THE
 * settlement rule of D1 (the shared settleTrade, as the server settles), in dollars: +profit when in the money, −stake
 * when out of it, 0 on a tie. null while there is no current price.
 */
export function tradeStanding(
  trade: OpenTradeFigures,
  price: number | null | undefined,
): { status: 'won' | 'lost' | 'tie'; result: number; payout: number } | null {
  if (price === null || price === undefined || !Number.isFinite(price)) return null;
  try {
    const settled = settleTrade({
      direction: trade.direction,
      strikePrice: trade.strike_price,
      closePrice: price,
      amountCents: Math.round(trade.amount * 100),
      payoutPercentage: trade.payout_percentage,
    });
    return { status: settled.status, result: settled.profitCents / 100, payout: settled.creditCents / 100 };
  } catch {
    return null;
  }
}

/** A signed money figure: '+$21.25', '-$25.00', '$0.00'. */
export function signedUsd(dollars: number): string {
  if (dollars > 0) return `+${usd(dollars)}`;
  if (dollars < 0) return `-${usd(dollars)}`;
  return usd(0);
}
