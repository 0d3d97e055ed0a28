import { describe, expect, it } from 'vitest';
import { reminderTimeInPast } from '../src/modules/reminders-calendar/past';

describe('a reminder time already gone (issue 15, defect 8)', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  it('refuses a time earlier than a minute ago, accepts now and later', () => {
    expect(reminderTimeInPast(new Date('2026-11-24T10:00:00Z'), now)).toBe(true);
    expect(reminderTimeInPast(new Date('2026-11-25T09:58:00Z'), now)).toBe(true);
    expect(reminderTimeInPast(new Date('2026-11-25T09:59:30Z'), now)).toBe(false);
    expect(reminderTimeInPast(new Date('2026-11-25T12:00:00Z'), now)).toBe(false);
  });
  it('never judges an empty or unreadable input, nor an old reminder whose time was left unchanged', () => {
    expect(reminderTimeInPast(null, now)).toBe(false);
    expect(reminderTimeInPast(new Date('nonsense'), now)).toBe(false);
    expect(reminderTimeInPast(new Date('2026-11-20T08:00:00Z'), now, '2026-11-20T08:00:00.000Z')).toBe(false);
    expect(reminderTimeInPast(new Date('2026-11-21T08:00:00Z'), now, '2026-11-20T08:00:00.000Z')).toBe(true);
  });
});
