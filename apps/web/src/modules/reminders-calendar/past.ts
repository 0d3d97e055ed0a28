/** The server's grace for a reminder set 'for now' (reminders/service.ts): a minute. */
const PAST_GRACE_MS = 60_000;

/**
 * Whether a reminder time typed in a form is already gone, as the server will judge it. When editing, an unchanged
 * time (`original`) is never refused: an old reminder may still get a new title or status.
 */
export function reminderTimeInPast(moment: Date | null, now: number, original?: string): boolean {
  if (!moment || Number.isNaN(moment.getTime())) return false;
  if (original !== undefined && new Date(original).getTime() === moment.getTime()) return false;
  return moment.getTime() < now - PAST_GRACE_MS;
}
