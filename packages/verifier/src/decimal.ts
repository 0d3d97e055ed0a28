/**
 * Exact comparison of decimal strings: prices are compared as decimals, never as floating-point numbers, so that
 * '1.10' equals '1.1' and no rounding can turn a tie into a win (D1).
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Whether `value` is a plain decimal string: '12', '-0.5', '1.08520' (no exponent, no spaces, no '+'). */
export function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

function scaled(value: string): { units: bigint; scale: number } {
  const match = DECIMAL.exec(value);
  if (!match) throw new TypeError(`not a decimal number: ${value}`);
  const [, minus, whole, fraction = ''] = match;
  const units = BigInt(whole! + fraction);
  return { units: minus ? -units : units, scale: fraction.length };
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`; trailing zeros do not matter. Throws on a non-decimal. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  const xu = x.units * 10n ** BigInt(scale - x.scale);
  const yu = y.units * 10n ** BigInt(scale - y.scale);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}
