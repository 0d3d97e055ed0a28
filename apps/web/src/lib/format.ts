import { formatUsd } from '@brokerage/shared';
import type { TFunction } from 'i18next';

/**
 * Formatting of back-office.md §9. Times are shown in the business time zone; formatters never throw (an invalid
 * locale or zone falls back to a fixed pattern).
 */

/** decisions.md D10: the business time zone, default Europe/Kyiv. The dashboard call reports the server's setting. */
export const DEFAULT_BUSINESS_TIME_ZONE = 'Europe/Kyiv';
/** §9: dates are formatted in Russian locale. */
export const DATE_LOCALE = 'ru-RU';

const pad = (n: number) => String(n).padStart(2, '0');

function fallbackDate(date: Date, withTime: boolean, withSeconds = false): string {
  const day = `${pad(date.getDate())}.${pad(date.getMonth() + 1)}.${date.getFullYear()}`;
  if (!withTime) return day;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return `${day} ${time}${withSeconds ? `:${pad(date.getSeconds())}` : ''}`;
}

function toDate(value: string | Date): Date | null {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatDate(value: string | Date, timeZone = DEFAULT_BUSINESS_TIME_ZONE): string {
  const date = toDate(value);
  if (!date) return String(value);
  try {
    return new Intl.DateTimeFormat(DATE_LOCALE, { timeZone, day: '2-digit', month: '2-digit', year: 'numeric' }).format(
      date,
    );
  } catch {
    return fallbackDate(date, false);
  }
}

export function formatDateTime(
  value: string | Date,
  timeZone = DEFAULT_BUSINESS_TIME_ZONE,
  { seconds = false }: { seconds?: boolean } = {},
): string {
  const date = toDate(value);
  if (!date) return String(value);
  try {
    return new Intl.DateTimeFormat(DATE_LOCALE, {
      timeZone,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
    }).format(date);
  } catch {
    return fallbackDate(date, true, seconds);
  }
}

export function formatTime(value: Date, timeZone = DEFAULT_BUSINESS_TIME_ZONE): string {
  try {
    return new Intl.DateTimeFormat(DATE_LOCALE, {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(value);
  } catch {
    return `${pad(value.getHours())}:${pad(value.getMinutes())}`;
  }
}

/** The zone's own name in the interface language, e.g. 'Eastern European Standard Time', for labels (D10). */
export function timeZoneName(timeZone: string, locale: string, at: Date): string {
  try {
    const parts = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'long' }).formatToParts(at);
    return parts.find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
  } catch {
    return timeZone;
  }
}

/** The zone's offset at a moment, '+02:00' style. */
export function timeZoneOffset(timeZone: string, at: Date): string {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at);
    const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
    const offset = name.replace('GMT', '');
    return offset === '' ? '+00:00' : offset;
  } catch {
    return '';
  }
}

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * §9: money is '$' with 2 decimals, en-US grouping, absolute value ('$1,234.50'), in every language. The one money
 * formatter of the web app (issue 15 defect 13): it is the shared formatUsd that the server's texts use too. The
 * withdrawal requests' totals in ru-RU currency format are §9's own exception and stay.
 */
export function formatMoney(amount: number): string {
  return formatUsd(Math.round(Math.abs(amount) * 100));
}

/** The same with the sign kept, for figures that can be negative and are not balances (fundamentals, P/L). */
export function formatSignedMoney(amount: number): string {
  return `${amount < 0 ? '-' : ''}${formatMoney(amount)}`;
}

export function formatCount(value: number): string {
  return integerFormat.format(value);
}

/** How long something has waited (a credit, a void): '5 мин', '3 ч', '2 дн.' (the largest whole unit). */
export function formatAge(seconds: number, t: TFunction): string {
  if (seconds < 60) return t('credits.age.justNow');
  if (seconds < 3600) return t('credits.age.minutes', { count: Math.floor(seconds / 60) });
  if (seconds < 86_400) return t('credits.age.hours', { count: Math.floor(seconds / 3600) });
  return t('credits.age.days', { count: Math.floor(seconds / 86_400) });
}

/**
 * D19, trading screen side: the browser's own time zone (what the client's clock says), named once in the header.
 * Falls back to UTC when the browser names none.
 */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** D19: a date and time on the trading screen, in the browser's zone (DD.MM.YYYY HH:mm). */
export function formatDateTimeLocal(value: string | Date, { seconds = false }: { seconds?: boolean } = {}): string {
  return formatDateTime(value, browserTimeZone(), { seconds });
}

/** A chart's axis and crosshair label (D19): HH:mm, or DD.MM HH:mm, of a Unix time in seconds in the given zone. */
export function formatChartTime(seconds: number, timeZone: string, withDate: boolean): string {
  try {
    return new Intl.DateTimeFormat(DATE_LOCALE, {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(withDate ? { day: '2-digit', month: '2-digit' } : {}),
    }).format(new Date(seconds * 1000));
  } catch {
    return new Date(seconds * 1000).toISOString().slice(withDate ? 5 : 11, 16);
  }
}

/** The zone's offset from UTC at an instant, in milliseconds (wall time in the zone minus UTC). */
function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * D19, back office: a date and time typed by staff ('YYYY-MM-DDTHH:mm', a datetime-local value) read in the business
 * zone, whatever zone the browser is in. Null when the value is not a date and time. A wall time skipped by a DST
 * change moves forward by the gap; a repeated one takes its first occurrence.
 */
export function zonedInputToInstant(value: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const wall = Date.UTC(y!, mo! - 1, d!, h!, mi!, Number.isNaN(s) ? 0 : (s ?? 0));
  if (Number.isNaN(wall)) return null;
  try {
    // The offsets a day either side bracket any DST change; keep the candidates that show this wall time.
    const offsets = [zoneOffsetMs(timeZone, wall - 86_400_000), zoneOffsetMs(timeZone, wall + 86_400_000)];
    const fits = offsets.map((o) => wall - o).filter((t) => t + zoneOffsetMs(timeZone, t) === wall);
    return new Date(fits.length > 0 ? Math.min(...fits) : wall - offsets[0]!);
  } catch {
    // An unknown zone: the browser's own, as the input itself would be read.
    return new Date(wall + new Date(wall).getTimezoneOffset() * 60_000);
  }
}

/** D19: an instant as a datetime-local value ('YYYY-MM-DDTHH:mm') of the wall time in the given zone. */
export function instantToZonedInput(value: string | Date, timeZone: string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  try {
    const local = new Date(date.getTime() + zoneOffsetMs(timeZone, date.getTime()));
    return local.toISOString().slice(0, 16);
  } catch {
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }
}

/** Kazakh month names: the runtime's Intl may lack kk data and write '2026 M11 28' (issue 27 item 9). */
const KK_MONTHS = [
  'қаңтар',
  'ақпан',
  'наурыз',
  'сәуір',
  'мамыр',
  'маусым',
  'шілде',
  'тамыз',
  'қыркүйек',
  'қазан',
  'қараша',
  'желтоқсан',
];

/** 'YYYY-MM-DD' as a long date in the interface language: '29 ноября 2026 г.', 'November 29, 2026', '2026 жылғы 29 қараша'. */
export function formatDayLong(day: string, lang: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(at.getTime())) return day;
  if (lang === 'kk') return `${at.getUTCFullYear()} жылғы ${at.getUTCDate()} ${KK_MONTHS[at.getUTCMonth()]}`;
  try {
    return new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      at,
    );
  } catch {
    return day;
  }
}
