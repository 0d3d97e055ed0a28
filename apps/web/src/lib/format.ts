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

const moneyFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** §9: money is '$' with 2 decimals, en-US grouping, absolute value. */
export function formatMoney(amount: number): string {
  return `$${moneyFormat.format(Math.abs(amount))}`;
}

export function formatCount(value: number): string {
  return integerFormat.format(value);
}
