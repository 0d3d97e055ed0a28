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

/**
 * Issue 27 item 5: an event's UTC date and time (the provider's) on the screen's own clock — the browser's zone, which
 * the trading screen names in its header. Without a time the date stays as it is (a whole-day event).
 */
export function localEventTime(
  date: string,
  time: string | null,
  timeZone: string,
): { date: string; time: string | null } {
  if (!time) return { date, time: null };
  const at = Date.parse(`${date}T${time}:00Z`);
  if (!Number.isFinite(at)) return { date, time };
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** Today's date (YYYY-MM-DD) in a zone. */
export function todayIn(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
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
