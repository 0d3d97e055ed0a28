/**
 * Prices are decimal strings ('1.11460', '67500.12'), stored as numeric in the database and compared exactly here:
 * a float comparison could call 1.1 + 0.2 and 1.3 different prices, and a trade's outcome must not depend on that.
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

interface Scaled {
  units: bigint;
  scale: number;
}

function scaled(value: string | number): Scaled {
  const text = typeof value === 'number' ? numberToDecimal(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new TypeError(`not a decimal number: ${String(value)}`);
  const [, minus, whole, fraction = ''] = match;
  const units = BigInt(whole! + fraction);
  return { units: minus ? -units : units, scale: fraction.length };
}

/** A finite number as a plain decimal string, without exponent notation (1e-7 → '0.0000001'). */
export function numberToDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  const text = String(value);
  if (!/e/i.test(text)) return text;
  const [mantissa, exp] = text.toLowerCase().split('e') as [string, string];
  const exponent = Number(exp);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.') as [string, string];
  const digits = whole + fraction;
  const point = whole.length + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}

/** Whether a string is a plain decimal number ('12', '-0.5', '1.11460'). */
export function isDecimal(value: string): boolean {
  return DECIMAL.test(value.trim());
}

/** Exact comparison of two decimal numbers: -1, 0 or 1. Trailing zeros do not matter ('1.10' equals '1.1'). */
export function compareDecimal(a: string | number, b: string | number): -1 | 0 | 1 {
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  const xu = x.units * 10n ** BigInt(scale - x.scale);
  const yu = y.units * 10n ** BigInt(scale - y.scale);
  return xu < yu ? -1 : xu > yu ? 1 : 0;
}

/** A decimal number rounded half away from zero to `decimals` places, as a string with exactly that many. */
export function roundDecimal(value: string | number, decimals: number): string {
  const { units, scale } = scaled(value);
  let result: bigint;
  if (scale <= decimals) {
    result = units * 10n ** BigInt(decimals - scale);
  } else {
    const divisor = 10n ** BigInt(scale - decimals);
    const negative = units < 0n;
    const abs = negative ? -units : units;
    let q = abs / divisor;
    if ((abs % divisor) * 2n >= divisor) q += 1n;
    result = negative ? -q : q;
  }
  const negative = result < 0n;
  const digits = (negative ? -result : result).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative && result !== 0n ? `-${text}` : text;
}
