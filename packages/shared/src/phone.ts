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

/**
 * Issue 27 item 8: how a phone is shown in lists, cards and exports — one international format ('+7 701 765 4321')
 * from its E.164 form, whatever was typed ('8 916 555 12 34'); a phone that never parsed is shown as typed. What was
 * typed is kept for the record (and shown in the edit form).
 */
export function displayPhone(phone: string, e164: string | null | undefined): string {
  if (!e164) return phone;
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? phone;
}
