import type { ReminderStatus } from '@brokerage/shared';

export type Period = 'all' | 'day' | 'week' | 'month' | 'range';

export interface CalendarFilters {
  period: Period;
  /** The anchor day (YYYY-MM-DD) of day / week / month; null: the server's default period (today to today + 7). */
  date: string | null;
  dateFrom: string;
  dateTo: string;
  order: 'desc' | 'asc';
  perPage: 25 | 50 | 100;
  status: ReminderStatus | 'all';
  manager: string | null;
  page: number;
}

export const DEFAULT_FILTERS: CalendarFilters = {
  period: 'week',
  date: null,
  dateFrom: '',
  dateTo: '',
  order: 'desc',
  perPage: 25,
  status: 'all',
  manager: null,
  page: 1,
};

const shift = (day: string, days: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/**
 * The period as days (§9): day = that day; week = from its Sunday, 7 days; month = the calendar month; range = the
 * dates given (either may be empty); all = no dates. The 'to' day is included whole by the server.
 */
export function periodDays(f: CalendarFilters): { all?: 'true'; date_from?: string; date_to?: string } {
  if (f.period === 'all') return { all: 'true' };
  if (f.period === 'range') {
    return { ...(f.dateFrom ? { date_from: f.dateFrom } : {}), ...(f.dateTo ? { date_to: f.dateTo } : {}) };
  }
  if (!f.date) return {};
  if (f.period === 'day') return { date_from: f.date, date_to: f.date };
  if (f.period === 'week') {
    const weekday = new Date(`${f.date}T00:00:00Z`).getUTCDay();
    const sunday = shift(f.date, -weekday);
    return { date_from: sunday, date_to: shift(sunday, 6) };
  }
  const first = `${f.date.slice(0, 7)}-01`;
  const next = new Date(`${first}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { date_from: first, date_to: shift(next.toISOString().slice(0, 10), -1) };
}
