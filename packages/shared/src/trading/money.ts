/**
 * Money (decisions.md D3): integer cents inside, dollars with at most 2 decimals at the API edge. The conversion reads
 * the number's decimal text rather than multiplying floats, so 19.99 is 1999 cents and 1.005 is refused instead of
 * silently becoming 100 or 101.
 */

/** Largest amount handled exactly: every cent count is a safe integer. */
export const MAX_CENTS = Number.MAX_SAFE_INTEGER;

const DOLLARS = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Dollars (a number, or a decimal string such as '19.99') to integer cents; null when the value is not finite, has
 * more than 2 decimals, or is too large to count in cents exactly.
 */
export function dollarsToCents(value: number | string): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    // The shortest text that reads back as this number: what the sender wrote in JSON. Exponent forms are either
    // beyond 1e21 or below 1e-6, neither of which is a 2-decimal amount we accept (0 prints as '0').
    text = String(value);
  } else {
    text = value.trim();
  }
  const match = DOLLARS.exec(text);
  if (!match) return null;
  const [, minus, whole, fraction = ''] = match;
  const cents = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  if (cents > BigInt(MAX_CENTS)) return null;
  const n = Number(cents);
  return minus && n !== 0 ? -n : n;
}

/** Whether a number is a dollar amount with at most 2 decimals. */
export function isDollarAmount(value: number): boolean {
  return dollarsToCents(value) !== null;
}

/** Integer cents to dollars as a number (exact for the 2-decimal value: 1999 → 19.99). */
export function centsToDollars(cents: number | bigint | string): number {
  const n = typeof cents === 'number' ? cents : Number(cents);
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a whole number of cents: ${String(cents)}`);
  return n / 100;
}

/** Integer cents as a plain decimal string with 2 decimals: 1999 → '19.99', -5 → '-0.05'. */
export function formatCents(cents: number | bigint | string): string {
  const n = BigInt(cents);
  const abs = n < 0n ? -n : n;
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return n < 0n ? `-${text}` : text;
}

/**
 * Money as the screens show it (client-platform.md §9 'Formatting'): the absolute value with en-US grouping and a
 * '$' prefix, no minus sign ('$1,234.50'). `prefix: false` leaves out the '$'.
 */
export function formatUsd(cents: number | bigint | string, options: { prefix?: boolean } = {}): string {
  const [whole, fraction] = formatCents(cents).replace('-', '').split('.') as [string, string];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${options.prefix === false ? '' : '$'}${grouped}.${fraction}`;
}

/** A dollar limit as written in messages: '$1000' for whole dollars, '$1000.50' otherwise. */
export function formatDollarLimit(cents: number): string {
  return cents % 100 === 0 ? `$${cents / 100}` : `$${formatCents(cents)}`;
}
