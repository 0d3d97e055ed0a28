import type { Reminder } from '@brokerage/shared';
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import ruNotify from '../src/i18n/locales/ru/notify.json';
import { DEFAULT_FILTERS, periodDays } from '../src/modules/reminders-calendar/period';
import { badgeText, relativeTime } from '../src/modules/notifications/format';
import { dueForAlert, WINDOW_MS } from '../src/modules/notifications/reminder-window';

const i18n = i18next.createInstance();
await i18n.init({ lng: 'ru', resources: { ru: { notify: ruNotify } }, ns: ['notify'], defaultNS: 'notify' });
const t = i18n.getFixedT('ru', 'notify');

describe('notification panel formats (§9)', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('relative time: now, minutes, hours, then the date', () => {
    expect(relativeTime(ago(30_000), now, t, 'Europe/Kyiv')).toBe('сейчас');
    expect(relativeTime(ago(5 * 60_000), now, t, 'Europe/Kyiv')).toBe('5 мин. назад');
    expect(relativeTime(ago(59 * 60_000), now, t, 'Europe/Kyiv')).toBe('59 мин. назад');
    expect(relativeTime(ago(3 * 3600_000), now, t, 'Europe/Kyiv')).toBe('3 ч. назад');
    expect(relativeTime(ago(1440 * 60_000), now, t, 'Europe/Kyiv')).toMatch(/21\.11\.2026/);
  });

  it("badge: the count, '9+' above 9", () => {
    expect(badgeText(1)).toBe('1');
    expect(badgeText(9)).toBe('9');
    expect(badgeText(10)).toBe('9+');
  });
});

describe('reminder browser notifications (§2.8)', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  const reminder = (id: number, inMs: number, status: Reminder['status'] = 'pending'): Reminder => ({
    id,
    client_id: 1,
    client_name: 'A',
    title: `r${id}`,
    description: '',
    scheduled_time: new Date(now + inMs).toISOString(),
    status,
    created_by: null,
    created_by_name: null,
    created_at: new Date(now).toISOString(),
  });

  it('pending reminders due within the next 5 minutes, not yet announced', () => {
    const items = [
      reminder(1, 3 * 60_000),
      reminder(2, WINDOW_MS),
      reminder(3, WINDOW_MS + 1000),
      reminder(4, -1000),
      reminder(5, 60_000, 'cancelled'),
      reminder(6, 60_000),
    ];
    const shown = new Set([`6:${items[5]!.scheduled_time}`]);
    expect(dueForAlert(items, now, shown).map((r) => r.id)).toEqual([1, 2]);
  });
});

describe('calendar periods (§2.7, §9)', () => {
  it('day, week from Sunday, month, range, all, and the server default', () => {
    const f = { ...DEFAULT_FILTERS, date: '2026-11-25' }; // a Wednesday
    expect(periodDays({ ...f, period: 'day' })).toEqual({ date_from: '2026-11-25', date_to: '2026-11-25' });
    expect(periodDays({ ...f, period: 'week' })).toEqual({ date_from: '2026-11-22', date_to: '2026-11-28' });
    expect(periodDays({ ...f, period: 'month' })).toEqual({ date_from: '2026-11-01', date_to: '2026-11-30' });
    expect(periodDays({ ...f, period: 'month', date: '2028-02-10' })).toEqual({
      date_from: '2028-02-01',
      date_to: '2028-02-29',
    });
    expect(periodDays({ ...f, period: 'range', dateFrom: '2026-11-01', dateTo: '' })).toEqual({
      date_from: '2026-11-01',
    });
    expect(periodDays({ ...f, period: 'all' })).toEqual({ all: 'true' });
    expect(periodDays(DEFAULT_FILTERS)).toEqual({});
  });
});
