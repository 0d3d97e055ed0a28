import type { Reminder, ReminderCreate, ReminderUpdate, RemindersQuery, RemindersResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * Reminders (back-office.md §2.6, §2.7, §3, §9): on the client card and in the calendar, always through the D5 scope.
 * The calendar's period is days in the business time zone, by default today to today + 7 inclusive.
 */

export interface ReminderDeps {
  db: Db;
  timeZone: string;
  now: () => Date;
}

function scoped(db: Db, actor: Actor) {
  return scopeClients(
    db
      .selectFrom('reminders as r')
      .innerJoin('clients', 'clients.id', 'r.client_id')
      .leftJoin('users as u', 'u.id', 'r.created_by'),
    actor,
  );
}

const COLUMNS = [
  'r.id',
  'r.client_id',
  'clients.name as client_name',
  'r.title',
  'r.description',
  'r.scheduled_time',
  'r.status',
  'r.created_by',
  'u.name as created_by_name',
  'r.created_at',
] as const;

type Row = {
  id: string | number;
  client_id: string | number;
  client_name: string;
  title: string;
  description: string;
  scheduled_time: Date | string;
  status: Reminder['status'];
  created_by: string | null;
  created_by_name: string | null;
  created_at: Date | string;
};

const toReminder = (r: Row): Reminder => ({
  id: Number(r.id),
  client_id: Number(r.client_id),
  client_name: r.client_name,
  title: r.title,
  description: r.description,
  scheduled_time: new Date(r.scheduled_time).toISOString(),
  status: r.status,
  created_by: r.created_by,
  created_by_name: r.created_by_name,
  created_at: new Date(r.created_at).toISOString(),
});

async function one(db: Db, id: number): Promise<Reminder> {
  const row = await db
    .selectFrom('reminders as r')
    .innerJoin('clients', 'clients.id', 'r.client_id')
    .leftJoin('users as u', 'u.id', 'r.created_by')
    .select([...COLUMNS])
    .where('r.id', '=', id)
    .executeTakeFirstOrThrow();
  return toReminder(row as unknown as Row);
}

async function clientInScope(db: Db, actor: Actor, clientId: number): Promise<void> {
  const c = await scopeClients(db.selectFrom('clients'), actor)
    .select('clients.id')
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!c) throw new HttpError(404, 'client_not_found');
}

/** The card's reminders: soonest first, paged (the card shows the first 5). */
export async function listClientReminders(
  deps: ReminderDeps,
  actor: Actor,
  clientId: number,
  query: { page: number; per_page: number; status?: Reminder['status'] | undefined },
): Promise<RemindersResponse> {
  await clientInScope(deps.db, actor, clientId);
  let q = scoped(deps.db, actor).where('r.client_id', '=', clientId);
  if (query.status) q = q.where('r.status', '=', query.status);
  const [{ total }, rows] = await Promise.all([
    q.select(sql<string>`count(*)`.as('total')).executeTakeFirstOrThrow(),
    q
      .select([...COLUMNS])
      .orderBy('r.scheduled_time', 'asc')
      .orderBy('r.id', 'asc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  return { items: (rows as unknown as Row[]).map(toReminder), total: Number(total) };
}

export async function createReminder(
  deps: ReminderDeps,
  actor: Actor,
  clientId: number,
  input: ReminderCreate,
): Promise<Reminder> {
  refuseInPast(input.scheduled_time);
  const id = await deps.db.transaction().execute(async (trx) => {
    await clientInScope(trx, actor, clientId);
    const row = await trx
      .insertInto('reminders')
      .values({
        client_id: clientId,
        title: input.title,
        description: input.description ?? '',
        scheduled_time: input.scheduled_time,
        created_by: actor.id,
      })
      .returning(['id', 'scheduled_time'])
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'reminder.create',
      entityType: 'reminder',
      entityId: Number(row.id),
      after: { client_id: clientId, title: input.title, scheduled_time: row.scheduled_time, status: 'pending' },
    });
    return Number(row.id);
  });
  return one(deps.db, id);
}

/** A minute's grace for a reminder set 'for now' and for clocks a little apart. */
const PAST_GRACE_MS = 60_000;

/** A reminder is for the future: a time already gone would sit as pending forever and never ring. */
function refuseInPast(scheduledTime: string): void {
  if (new Date(scheduledTime).getTime() < Date.now() - PAST_GRACE_MS) throw new HttpError(400, 'reminder_in_past');
}

async function findInScope(db: Db, actor: Actor, id: number) {
  const row = await scoped(db, actor)
    .select(['r.id', 'r.client_id', 'r.title', 'r.description', 'r.scheduled_time', 'r.status'])
    .where('r.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'reminder_not_found');
  return row;
}

/** PUT /api/reminders/:id: the status alone (complete, cancel) or any of the edit form's fields. */
export async function updateReminder(
  deps: ReminderDeps,
  actor: Actor,
  id: number,
  input: ReminderUpdate,
): Promise<Reminder> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await findInScope(trx, actor, id);
    // An old reminder may still be edited (its title, its status); only a newly chosen time must lie ahead.
    if (
      input.scheduled_time !== undefined &&
      new Date(input.scheduled_time).getTime() !== new Date(current.scheduled_time).getTime()
    ) {
      refuseInPast(input.scheduled_time);
    }
    const changes = {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
      ...(input.scheduled_time !== undefined ? { scheduled_time: input.scheduled_time } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
    };
    await trx
      .updateTable('reminders')
      .set({ ...changes, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    const before = Object.fromEntries(Object.keys(changes).map((k) => [k, (current as Record<string, unknown>)[k]]));
    await writeAudit(trx, actor, {
      action: 'reminder.update',
      entityType: 'reminder',
      entityId: id,
      before: { client_id: Number(current.client_id), ...before },
      after: { client_id: Number(current.client_id), ...changes },
    });
  });
  return one(deps.db, id);
}

export async function deleteReminder(deps: ReminderDeps, actor: Actor, id: number): Promise<{ ok: true }> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await findInScope(trx, actor, id);
    await trx.deleteFrom('reminders').where('id', '=', id).execute();
    await writeAudit(trx, actor, {
      action: 'reminder.delete',
      entityType: 'reminder',
      entityId: id,
      before: {
        client_id: Number(current.client_id),
        title: current.title,
        scheduled_time: current.scheduled_time,
        status: current.status,
      },
    });
  });
  return { ok: true };
}

/** The date (YYYY-MM-DD) of an instant in a time zone. */
function dayIn(timeZone: string, at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * GET /api/reminders, the calendar (§2.7): the reminders of the clients in scope, in the period (default today to
 * today + 7 days, both whole days in the business time zone; all=true for every date; due_from / due_to for an exact
 * window of instants, both ends included), filtered and paged.
 */
export async function listReminders(
  deps: ReminderDeps,
  actor: Actor,
  query: RemindersQuery,
): Promise<RemindersResponse> {
  const tz = deps.timeZone;
  let q = scoped(deps.db, actor);
  if (query.due_from || query.due_to) {
    // An exact window of instants (§2.8 browser alerts), instead of the calendar's days.
    if (query.due_from) q = q.where('r.scheduled_time', '>=', new Date(query.due_from));
    if (query.due_to) q = q.where('r.scheduled_time', '<=', new Date(query.due_to));
  } else if (query.all !== 'true') {
    const today = dayIn(tz, deps.now());
    const from = query.date_from ?? today;
    const to = query.date_to ?? (query.date_from ? null : today);
    q = q.where('r.scheduled_time', '>=', sql<Date>`(${from}::date)::timestamp at time zone ${tz}`);
    if (to !== null) {
      const days = query.date_to ? 1 : 8;
      q = q.where('r.scheduled_time', '<', sql<Date>`(${to}::date + ${days}::int)::timestamp at time zone ${tz}`);
    }
  }
  if (query.status) q = q.where('r.status', '=', query.status);
  if (query.created_by) q = q.where('r.created_by', '=', query.created_by);
  if (query.client_id !== undefined) q = q.where('r.client_id', '=', query.client_id);
  if (query.search) q = q.where('clients.name', 'ilike', `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const [{ total }, rows] = await Promise.all([
    q.select(sql<string>`count(*)`.as('total')).executeTakeFirstOrThrow(),
    q
      .select([...COLUMNS])
      .orderBy('r.scheduled_time', query.order)
      .orderBy('r.id', query.order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  return { items: (rows as unknown as Row[]).map(toReminder), total: Number(total) };
}
