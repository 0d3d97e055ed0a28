import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * decisions.md D13, D17: phones are compared as E.164. Parses what a person or a partner typed ('+7 (701) 123-45-67',
 * '87011234567', '7011234567') with `defaultRegion` for numbers without a country code, and answers the E.164 form
 * ('+77011234567'), or null when libphonenumber-js cannot make a valid number of it (such a lead never matches by phone).
 */
export function normalisePhone(raw: string | null | undefined, defaultRegion: string = 'KZ'): string | null {
  const text = (raw ?? '').trim();
  if (!text || text.length > 40) return null;
  const parsed = parsePhoneNumberFromString(text, {
    defaultCountry: defaultRegion.toUpperCase() as CountryCode,
    extract: false,
  });
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}
