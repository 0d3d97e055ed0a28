import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Mailer } from './mailer.js';

/** The digest goes out on the first run at or after this hour of the business day (BUSINESS_TIMEZONE). */
export const DIGEST_HOUR = 8;
/** At most this many reminders are listed in one digest (the calendar has the rest). */
export const DIGEST_MAX_REMINDERS = 50;
/** The leader_leases row whose watermark is the last business day a digest run covered. */
const DIGEST_MARK = 'mail-digest';

/** The calendar day (YYYY-MM-DD) and the hour of a moment in a time zone. */
export function businessDay(timeZone: string, at: Date): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')) };
}

function formatAt(timeZone: string, at: Date): string {
  return new Intl.DateTimeFormat('ru-RU', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
}

export interface DigestDeps {
  db: Db;
  mail: Mailer;
  /** BUSINESS_TIMEZONE: a business day is a calendar day there. */
  timeZone: string;
}

/**
 * Issue 22 §5: the staff's daily digest of due reminders (opt-in: users.digest_opt_in). Once a business day, on the
 * first run at or after DIGEST_HOUR there, every live staff member who opted in and has pending reminders due by the
 * end of that day (overdue ones included; their own, or their clients' as the assigned manager, as the bell counts
 * them) gets one `reminders_digest` (bulk mail: it carries the unsubscribe link). The day is marked done in the same
 * transaction as the messages, so two runs (two processes, or a retry after a crash) never send a day twice.
 * The mail worker's leader calls it; tests call it with a clock. Answers how many digests were written.
 */
export async function runReminderDigest(deps: DigestDeps, now: Date): Promise<number> {
  const { day, hour } = businessDay(deps.timeZone, now);
  if (hour < DIGEST_HOUR) return 0;
  return deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('leader_leases')
      .values({ name: DIGEST_MARK, watermark: null })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const mark = await trx
      .selectFrom('leader_leases')
      .select('watermark')
      .where('name', '=', DIGEST_MARK)
      .forUpdate()
      .executeTakeFirstOrThrow();
    // Done for this day (or a later one: a clock that went back does not send a day again).
    if (mark.watermark !== null && businessDay(deps.timeZone, new Date(mark.watermark)).day >= day) return 0;

    const rows = await trx
      .selectFrom('users as u')
      .innerJoin('reminders as r', (j) => j.on('r.status', '=', 'pending'))
      .innerJoin('clients as c', 'c.id', 'r.client_id')
      .select([
        'u.id as user_id',
        'u.email',
        'u.name as user_name',
        'r.id as reminder_id',
        'r.title',
        'r.scheduled_time',
        'c.name as client_name',
      ])
      .where('u.digest_opt_in', '=', true)
      .where('u.deleted_at', 'is', null)
      .where('u.invited_at', 'is', null)
      .where('u.role', '<>', 'client')
      .where((eb) => eb.or([eb('r.created_by', '=', eb.ref('u.id')), eb('c.assigned_manager', '=', eb.ref('u.id'))]))
      .where('r.scheduled_time', '<', sql<Date>`(${day}::date + 1)::timestamp at time zone ${deps.timeZone}`)
      .orderBy('u.id')
      .orderBy('r.scheduled_time')
      .orderBy('r.id')
      .execute();

    const byUser = new Map<string, { email: string; name: string; reminders: typeof rows }>();
    for (const row of rows) {
      const entry = byUser.get(row.user_id) ?? { email: row.email, name: row.user_name, reminders: [] };
      entry.reminders.push(row);
      byUser.set(row.user_id, entry);
    }
    let written = 0;
    for (const [userId, entry] of byUser) {
      const id = await deps.mail.enqueue(trx, {
        to: entry.email,
        userId,
        template: 'reminders_digest',
        language: 'ru',
        data: {
          name: entry.name,
          link: deps.mail.link('/crm/calendar'),
          reminders: entry.reminders.slice(0, DIGEST_MAX_REMINDERS).map((r) => ({
            at: formatAt(deps.timeZone, new Date(r.scheduled_time)),
            client: r.client_name,
            text: r.title,
          })),
        },
      });
      if (id !== null) written += 1;
    }
    await trx.updateTable('leader_leases').set({ watermark: now }).where('name', '=', DIGEST_MARK).execute();
    return written;
  });
}
