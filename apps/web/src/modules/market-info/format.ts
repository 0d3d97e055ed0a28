import type { CalendarEvent } from '@brokerage/shared';
import { formatSignedMoney } from '../../lib/format';

/** Dates and numbers per language; kk numbers follow ru's rules (see site/api.ts NUMBER_LOCALES). */
const LOCALES: Record<string, string> = { ru: 'ru-RU', en: 'en-US', kk: 'ru-RU' };
const locale = (lang: string) => LOCALES[lang] ?? 'ru-RU';

/** A YYYY-MM-DD date as the interface language writes it (the date itself, no time-zone shift). */
export function formatDate(isoDate: string, lang: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(locale(lang), { timeZone: 'UTC' });
}

export function formatRatio(n: number | null, lang: string, suffix = ''): string {
  if (n === null) return '—';
  return `${n.toLocaleString(locale(lang), { maximumFractionDigits: 2 })}${suffix}`;
}

/**
 * Dollar amounts in compact form, as §9 writes money in every language ('$' prefix, en-US): $3.52T, $385.6B.
 * (Issue 15 defect 13: no more '385,6 млрд $' next to '$1,234.50'.)
 */
export function formatMoneyCompact(n: number | null, _lang: string): string {
  if (n === null) return '—';
  const compact = Math.abs(n).toLocaleString('en-US', { notation: 'compact', maximumFractionDigits: 2 });
  return `${n < 0 ? '-' : ''}$${compact}`;
}

/** A dollar amount: the app's one money format (lib/format), with its sign. */
export function formatMoney(n: number | null, _lang: string): string {
  if (n === null) return '—';
  return formatSignedMoney(n);
}

/**
 * Issue 15 defect 13: an event's title or description in the interface language. The shipped snapshot's events are
 * translated in the site files under marketInfo.events.<id>; a live provider's events (other ids) keep the
 * provider's own text.
 */
export type EventT = (key: string, options?: { defaultValue: string }) => string;

export function eventText(e: CalendarEvent, field: 'title' | 'description', t: EventT): string {
  const fallback = (field === 'title' ? e.title : e.description) ?? '';
  return t(`marketInfo.events.${e.id}.${field}`, { defaultValue: fallback });
}
