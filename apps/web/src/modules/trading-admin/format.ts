import { centsToDollars, dollarsToCents, potentialProfitCents, priceDecimals } from '@brokerage/shared';
import { formatMoney } from '../../lib/format';

/**
 * Display rules of the trading administration screens (back-office.md §4, §9). Pure functions, so the screens and
 * the unit tests share them.
 */

/** A signed amount: '+$12.50', '−$3.00', '$0.00' (profit, ledger amounts; the sign is the point there). */
export function formatSignedMoney(amount: number): string {
  if (amount > 0) return `+${formatMoney(amount)}`;
  if (amount < 0) return `\u2212${formatMoney(amount)}`;
  return formatMoney(0);
}

/** Mantine colour of a profit or an amount: green above 0, red below, dimmed at 0. */
export function signColor(amount: number): string {
  if (amount > 0) return 'teal';
  if (amount < 0) return 'red';
  return 'dimmed';
}

/** §4 remaining time of an active trade: ≤0 'Истекла'; with days 'Xд Yч'; with hours 'Xч Yм'; otherwise m:ss. */
export type Remaining =
  | { kind: 'expired' }
  | { kind: 'days'; days: number; hours: number }
  | { kind: 'hours'; hours: number; minutes: number }
  | { kind: 'clock'; text: string };

export function remainingTime(ms: number): Remaining {
  if (!Number.isFinite(ms) || ms <= 0) return { kind: 'expired' };
  // A part of a second left still reads as a second (0:01), never as an expired-looking 0:00.
  const total = Math.ceil(ms / 1000);
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return { kind: 'days', days, hours };
  if (hours > 0) return { kind: 'hours', hours, minutes };
  return { kind: 'clock', text: `${minutes}:${String(seconds).padStart(2, '0')}` };
}

/** §9: a trade's duration in whole minutes; a missing duration counts as 60 s. */
export function durationMinutes(durationSeconds: number | null | undefined): number {
  const seconds = durationSeconds && durationSeconds > 0 ? durationSeconds : 60;
  return Math.floor(seconds / 60);
}

/**
 * §2.17: the potential profit of an active trade, amount × payout / 100 with the payout fixed when it opened, in
 * dollars: the shared settlement rule's own figure (whole cents, rounded down), so the screen shows what would be paid.
 */
export function potentialProfit(amount: number, payoutPercentage: number): number {
  const cents = dollarsToCents(amount);
  if (
    cents === null ||
    cents <= 0 ||
    !Number.isInteger(payoutPercentage) ||
    payoutPercentage < 1 ||
    payoutPercentage > 100
  ) {
    return 0;
  }
  return centsToDollars(potentialProfitCents(cents, payoutPercentage));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** §9 UTC format: DD.MM.YYYY HH:mm ' UTC', no seconds. */
export function formatUtc(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return (
    `${pad(date.getUTCDate())}.${pad(date.getUTCMonth() + 1)}.${date.getUTCFullYear()} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`
  );
}

/** A price with the asset's quote decimals (client-platform.md §9), e.g. EURUSD 1.11460, USDJPY 143.210, BTCUSD 67500.00. */
export function formatPrice(price: number | null | undefined, asset: string): string | null {
  if (price === null || price === undefined || !Number.isFinite(price)) return null;
  return price.toFixed(priceDecimals(asset));
}

/**
 * Whether an active trade is currently in the money: a call above its strike, a put below it. null when the price is
 * unknown or equal (a tie).
 */
export function inTheMoney(
  direction: 'call' | 'put',
  strike: number,
  current: number | null | undefined,
): boolean | null {
  if (current === null || current === undefined || current === strike) return null;
  return direction === 'call' ? current > strike : current < strike;
}
