import { describe, expect, it } from 'vitest';
import { localEventTime, todayIn } from '../src/modules/market-info/format';

/** Issue 27 item 5: the economic calendar's UTC times shown on the screen's own clock (the browser's zone, named). */
describe('calendar times on the local clock', () => {
  it('moves an event to the local date and time, across midnight', () => {
    expect(localEventTime('2026-11-28', '13:30', 'Asia/Almaty')).toEqual({ date: '2026-11-28', time: '18:30' });
    expect(localEventTime('2026-11-28', '21:00', 'Asia/Almaty')).toEqual({ date: '2026-11-29', time: '02:00' });
    expect(localEventTime('2026-11-28', '02:00', 'America/New_York')).toEqual({ date: '2026-11-27', time: '21:00' });
    expect(localEventTime('2026-11-28', '13:30', 'UTC')).toEqual({ date: '2026-11-28', time: '13:30' });
  });

  it('keeps a whole-day event on its date', () => {
    expect(localEventTime('2026-11-28', null, 'Asia/Almaty')).toEqual({ date: '2026-11-28', time: null });
  });

  it("counts 'today' in the zone", () => {
    const lateUtc = new Date('2026-11-28T22:30:00Z');
    expect(todayIn('UTC', lateUtc)).toBe('2026-11-28');
    expect(todayIn('Asia/Almaty', lateUtc)).toBe('2026-11-29');
  });
});

describe('long dates in every interface language (issue 27 item 9)', () => {
  it("writes Kazakh with its own month names, not the runtime's '2026 M11 28'", async () => {
    const { formatDayLong } = await import('../src/lib/format');
    expect(formatDayLong('2026-11-28', 'kk')).toBe('2026 жылғы 28 қараша');
    expect(formatDayLong('2026-01-05', 'kk')).toBe('2026 жылғы 5 қаңтар');
    expect(formatDayLong('2026-11-28', 'ru')).toBe('28 ноября 2026 г.');
    expect(formatDayLong('2026-11-28', 'en')).toBe('November 28, 2026');
    expect(formatDayLong('not a day', 'ru')).toBe('not a day');
  });
});
