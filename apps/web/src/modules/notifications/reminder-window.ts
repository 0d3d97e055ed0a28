import type { Reminder } from '@brokerage/shared';

/** back-office.md §9: first check 10 s after start, then every 2 minutes; a 5-minute window; closes after 5 s. */
export const FIRST_CHECK_MS = 10_000;
export const CHECK_EVERY_MS = 120_000;
export const WINDOW_MS = 5 * 60_000;
export const CLOSE_AFTER_MS = 5_000;
/** The reminders this browser already announced (id and time, so a rescheduled one is announced again). */
export const SHOWN_KEY = 'reminderNotificationsShown';

/** The reminders due within the window from `now` that this browser has not announced yet. */
export function dueForAlert(items: readonly Reminder[], now: number, shown: ReadonlySet<string>): Reminder[] {
  return items.filter((r) => {
    const at = Date.parse(r.scheduled_time);
    return r.status === 'pending' && at > now && at <= now + WINDOW_MS && !shown.has(`${r.id}:${r.scheduled_time}`);
  });
}
