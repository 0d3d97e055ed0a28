import { generatePassword } from '@brokerage/shared';

/** A uniform random integer in [0, n) from the browser's CSPRNG (rejection sampling, no modulo bias). */
export function randomInt(n: number): number {
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 32) throw new RangeError('randomInt: n out of range');
  const limit = 2 ** 32 - (2 ** 32 % n);
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    const value = buffer[0] ?? 0;
    if (value < limit) return value % n;
  }
}

/** §5: 12 characters from the shared 70-character alphabet. */
export function randomPassword(): string {
  return generatePassword(randomInt);
}
