import {
  can,
  centsToDollars,
  type Notification,
  type NotificationsQuery,
  type NotificationsResponse,
  type Role,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { EventBus } from '../../platform/bus/index.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { actorFromUser } from '../../platform/auth/actor.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * Staff notifications (back-office.md §2.8, decisions.md D12). They are written in the transaction of what caused them
 * (a manager assigned, a withdrawal request filed) or by the reminder scan, and pushed over the live socket by the
 * outbox pump once committed (worker.ts). Reading, marking and deleting concern only the caller's own notifications:
 * another user's notification answers 404 like a missing one.
 */

/** §9: a reminder is 'upcoming' when due within the next 5 minutes. */
export const UPCOMING_WINDOW_MS = 5 * 60_000;
/** A reminder that fell due longer ago than this (the server was down) raises no 'due' notification any more. */
export const DUE_LOOKBACK_MS = 60 * 60_000;

type Row = {
  id: string | number;
  type: Notification['type'];
  read_at: Date | string | null;
  created_at: Date | string;
  client_id: string | number | null;
  client_name: string | null;
  reminder_id: string | number | null;
  reminder_title: string | null;
  scheduled_time: Date | string | null;
  amount_cents: string | number | null;
  withdrawal_id: string | number | null;
  method_title: string | null;
};

const num = (v: string | number | null) => (v === null ? null : Number(v));
const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

export function toNotification(r: Row): Notification {
  return {
    id: Number(r.id),
    type: r.type,
    read: r.read_at !== null,
    created_at: iso(r.created_at)!,
    client_id: num(r.client_id),
    client_name: r.client_name,
    reminder_id: num(r.reminder_id),
    reminder_title: r.reminder_title,
    scheduled_time: iso(r.scheduled_time),
    amount: r.amount_cents === null ? null : centsToDollars(r.amount_cents),
    withdrawal_id: num(r.withdrawal_id),
    method: r.method_title ?? null,
  };
}

const COLUMNS = [
  'id',
  'type',
  'read_at',
  'created_at',
  'client_id',
  'client_name',
  'reminder_id',
  'reminder_title',
  'scheduled_time',
  'amount_cents',
  'withdrawal_id',
  'method_title',
] as const;

// ---------------------------------------------------------------- the caller's notifications (routes)

export async function listNotifications(
  db: Db,
  userId: string,
  query: NotificationsQuery,
): Promise<NotificationsResponse> {
  let q = db.selectFrom('notifications').where('user_id', '=', userId);
  if (query.unread === 'true') q = q.where('read_at', 'is', null);
  const [counts, rows] = await Promise.all([
    db
      .selectFrom('notifications')
      .where('user_id', '=', userId)
      .select([sql<string>`count(*)`.as('total'), sql<string>`count(*) filter (where read_at is null)`.as('unread')])
      .executeTakeFirstOrThrow(),
    q
      .select([...COLUMNS])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  const total = query.unread === 'true' ? Number(counts.unread) : Number(counts.total);
  return { items: (rows as Row[]).map(toNotification), total, unread: Number(counts.unread) };
}

export async function markRead(db: Db, userId: string, id: number): Promise<Notification> {
  const row = await db
    .updateTable('notifications')
    .set({ read_at: sql`coalesce(read_at, now())` })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returning([...COLUMNS])
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'notification_not_found');
  return toNotification(row as Row);
}

export async function markAllRead(db: Db, userId: string): Promise<{ updated: number }> {
  const res = await db
    .updateTable('notifications')
    .set({ read_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return { updated: Number(res.numUpdatedRows) };
}

export async function deleteNotification(db: Db, userId: string, id: number): Promise<{ ok: true }> {
  const res = await db
    .deleteFrom('notifications')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw new HttpError(404, 'notification_not_found');
  return { ok: true };
}

// ---------------------------------------------------------------- hooks, in the caller's transaction

/**
 * 'client assigned to you': the new manager of these clients gets one notification per client. Assigning a client to
 * oneself, or clearing the manager, notifies nobody.
 */
export async function notifyClientsAssigned(
  trx: Db,
  input: { clientIds: number[]; managerId: string | null; actorId: string | null },
): Promise<void> {
  if (input.managerId === null || input.managerId === input.actorId || input.clientIds.length === 0) return;
  await trx
    .insertInto('notifications')
    .columns(['user_id', 'type', 'client_id', 'client_name'])
    .expression((eb) =>
      eb
        .selectFrom('clients')
        .innerJoin('users', (j) => j.on('users.id', '=', input.managerId!).on('users.deleted_at', 'is', null))
        .select(['users.id', sql<string>`'client_assigned'`.as('type'), 'clients.id as client_id', 'clients.name'])
        .where('clients.id', 'in', input.clientIds),
    )
    .execute();
}

const ALL_CLIENT_ROLES: readonly Role[] = ['superadmin', 'admin'];

/**
 * 'new withdrawal request': every staff member who may open the withdrawal requests (finance.view) and whose client
 * scope (D5) holds the client.
 */
export async function notifyWithdrawalRequested(
  trx: Db,
  input: { requestId: number | string; clientId: number | string; amountCents: number | string },
): Promise<void> {
  const client = await trx
    .selectFrom('clients')
    .select(['id', 'name', 'assigned_manager'])
    .where('id', '=', Number(input.clientId))
    .executeTakeFirst();
  if (!client) return;
  // Candidates: who sees every client, the client's manager, and the team leads; the scope decides for the last two.
  const candidates = await trx
    .selectFrom('users')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('role', 'in', [...ALL_CLIENT_ROLES]),
        ...(client.assigned_manager ? [eb('id', '=', client.assigned_manager)] : []),
        eb('role', 'in', ['team_lead_sales', 'team_lead_retention']),
      ]),
    )
    .execute();
  const recipients: string[] = [];
  for (const user of candidates) {
    if (!can(user.role, 'finance.view')) continue;
    if (!ALL_CLIENT_ROLES.includes(user.role)) {
      const visible = await scopeClients(trx.selectFrom('clients'), actorFromUser(user, null))
        .select('clients.id')
        .where('clients.id', '=', client.id)
        .executeTakeFirst();
      if (!visible) continue;
    }
    recipients.push(user.id);
  }
  if (recipients.length === 0) return;
  await trx
    .insertInto('notifications')
    .values(
      recipients.map((userId) => ({
        user_id: userId,
        type: 'withdrawal_request' as const,
        client_id: client.id,
        client_name: client.name,
        amount_cents: input.amountCents,
        withdrawal_id: input.requestId,
        dedupe_key: `withdrawal_request:${input.requestId}`,
      })),
    )
    .onConflict((oc) => oc.columns(['user_id', 'dedupe_key']).where('dedupe_key', 'is not', null).doNothing())
    .execute();
}

/**
 * 'deposit intent' (D21): a client confirmed a top-up. The client's manager is told; when the client has no manager
 * (or the manager's account is deleted), every retention team lead is.
 */
export async function notifyDepositIntent(
  trx: Db,
  input: { intentId: number | string; clientId: number | string; amountCents: number; methodTitle: string },
): Promise<string[]> {
  const client = await trx
    .selectFrom('clients')
    .leftJoin('users as m', (j) => j.onRef('m.id', '=', 'clients.assigned_manager').on('m.deleted_at', 'is', null))
    .select(['clients.id', 'clients.name', 'm.id as manager_id', 'm.role as manager_role'])
    .where('clients.id', '=', Number(input.clientId))
    .executeTakeFirst();
  if (!client) return [];
  let recipients: string[] =
    client.manager_id && client.manager_role && client.manager_role !== 'client' ? [client.manager_id] : [];
  if (recipients.length === 0) {
    const leads = await trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'team_lead_retention')
      .where('deleted_at', 'is', null)
      .execute();
    recipients = leads.map((u) => u.id);
  }
  if (recipients.length === 0) return [];
  await trx
    .insertInto('notifications')
    .values(
      recipients.map((userId) => ({
        user_id: userId,
        type: 'deposit_intent' as const,
        client_id: client.id,
        client_name: client.name,
        amount_cents: input.amountCents,
        method_title: input.methodTitle,
        dedupe_key: `deposit_intent:${input.intentId}`,
      })),
    )
    .onConflict((oc) => oc.columns(['user_id', 'dedupe_key']).where('dedupe_key', 'is not', null).doNothing())
    .execute();
  return recipients;
}

// ---------------------------------------------------------------- the reminder scan and the outbox (worker.ts)

/**
 * Creates the 'reminder upcoming' (pending, due within 5 minutes) and 'reminder due' (pending, fell due within the
 * last hour) notifications for the reminder's author and the client's manager. The dedupe key (type, reminder,
 * scheduled time) makes each exist once per user, however many processes scan at once; a rescheduled reminder
 * notifies again. Returns how many were created.
 */
export async function scanReminders(db: Db, now: Date): Promise<number> {
  const windows = [
    { type: 'reminder_upcoming', from: now, to: new Date(now.getTime() + UPCOMING_WINDOW_MS) },
    { type: 'reminder_due', from: new Date(now.getTime() - DUE_LOOKBACK_MS), to: now },
  ] as const;
  let created = 0;
  for (const w of windows) {
    const res = await sql`
      insert into notifications (user_id, type, client_id, client_name, reminder_id, reminder_title, scheduled_time, dedupe_key)
      select distinct u.id, ${w.type}, c.id, c.name, r.id, r.title, r.scheduled_time,
             ${w.type} || ':' || r.id || ':' || floor(extract(epoch from r.scheduled_time))::bigint
      from reminders r
      join clients c on c.id = r.client_id
      join users u on (u.id = r.created_by or u.id = c.assigned_manager) and u.deleted_at is null and u.role <> 'client'
      where r.status = 'pending' and r.scheduled_time > ${w.from} and r.scheduled_time <= ${w.to}
      on conflict (user_id, dedupe_key) where dedupe_key is not null do nothing`.execute(db);
    created += Number(res.numAffectedRows ?? 0);
  }
  return created;
}

/**
 * The outbox: claims the committed notifications not pushed yet (SKIP LOCKED, so two processes never claim the same
 * one) and publishes them on the bus, which reaches the user's sockets in every process. Returns how many.
 */
export async function pumpOutbox(db: Db, bus: EventBus, batch = 200): Promise<number> {
  const rows = await db
    .updateTable('notifications')
    .set({ published_at: sql`now()` })
    .where(
      'id',
      'in',
      db
        .selectFrom('notifications')
        .select('id')
        .where('published_at', 'is', null)
        .orderBy('id')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['user_id', ...COLUMNS])
    .execute();
  // One event per user per batch (a bulk assignment of many clients is one push): the newest, the count, the types.
  const byUser = new Map<string, typeof rows>();
  for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row]);
  for (const [userId, mine] of byUser) {
    mine.sort((a, b) => Number(a.id) - Number(b.id));
    bus.publish({
      type: 'notification.new',
      user_id: userId,
      payload: {
        notification: toNotification(mine.at(-1) as Row),
        count: mine.length,
        types: [...new Set(mine.map((r) => r.type))],
      },
    });
  }
  return rows.length;
}
