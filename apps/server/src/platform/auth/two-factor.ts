import { createHash, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * Staff two-factor sign-in (issue 13 item 1): TOTP of RFC 6238 with SHA-1, 6 digits and 30-second steps, one step of
 * clock drift either way, through the `otpauth` library; and one-time recovery codes.
 */

export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;
export const TOTP_ISSUER = 'Brokerage CRM';
export const RECOVERY_CODE_COUNT = 10;
/** A challenge (the step between the password and the code) lives this long. */
export const CHALLENGE_SECONDS = 5 * 60;
/**
 * Codes one challenge lets be checked; then the password must be typed again. Counted before a code is checked, in one
 * statement (issue 20 §8), so parallel calls on one challenge check no more than this many.
 */
export const CHALLENGE_MAX_CODES = 5;
/** Wrong codes one account survives in a window, over all its challenges and addresses (issue 20 §8). */
export const ACCOUNT_MAX_WRONG_CODES = 20;
export const ACCOUNT_WRONG_CODES_WINDOW_SECONDS = 60 * 60;

function totpOf(secretBase32: string, label = 'user'): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new secret (160 bits, as RFC 4226 recommends) and the otpauth:// URL an authenticator app reads from the QR code. */
export function newTotpSecret(label: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totpOf(secret, label).toString() };
}

/**
 * The 30-second step a code is valid for (now ± one step), or null for a wrong code. The caller accepts it only if
 * the step is newer than the last one accepted for the user, so a code is never accepted twice.
 */
export function totpStep(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

/** Whether what was typed looks like a TOTP code (else it is tried as a recovery code). */
export function looksLikeTotp(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s/g, ''));
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i

/** Ten one-time codes like 'k7m2p-x9qrt' (about 49 bits each). */
export function newRecoveryCodes(): string[] {
  const one = () => Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const c = one();
    return `${c.slice(0, 5)}-${c.slice(5)}`;
  });
}

/** A recovery code as stored: SHA-256 of its letters and digits, in lower case (dashes and spaces do not matter). */
export function hashRecoveryCode(code: string): string {
  const normal = code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return createHash('sha256').update(`recovery:${normal}`).digest('hex');
}

export function newChallengeToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashChallenge(token: string): string {
  return createHash('sha256').update(`challenge:${token}`).digest('hex');
}
