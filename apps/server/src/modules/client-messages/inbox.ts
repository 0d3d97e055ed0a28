import type { InboxConversation, InboxReadResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { HttpError } from '../../platform/http/errors.js';
import { markClientMessagesRead } from './service.js';

/**
 * 'Входящие' (/crm/inbox, issue 22 §6): the conversations of the clients in the viewer's scope (D5) that have messages
 * from the client no staff member has read, newest first, with the client's manager.
 */
export async function listInbox(db: Db, actor: Actor, limit: number): Promise<InboxConversation[]> {
  const unread = db
    .selectFrom('client_messages')
    .select([
      'client_id',
      sql<string>`count(*)`.as('unread_count'),
      sql<Date>`max(created_at)`.as('last_message_at'),
      sql<string>`(array_agg(content order by created_at desc, id desc))[1]`.as('last_text'),
    ])
    .where('direction', '=', 'client')
    .where('read_at', 'is', null)
    .groupBy('client_id')
    .as('u');
  const rows = await scopeClients(
    db
      .selectFrom('clients')
      .innerJoin(unread, 'u.client_id', 'clients.id')
      .leftJoin('users as m', 'm.id', 'clients.assigned_manager'),
    actor,
  )
    .select([
      'clients.id as client_id',
      'clients.name as client_name',
      'clients.assigned_manager as manager_id',
      'm.name as manager_name',
      'u.unread_count',
      'u.last_message_at',
      'u.last_text',
    ])
    .orderBy('u.last_message_at', 'desc')
    .orderBy('clients.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    client_id: Number(r.client_id),
    client_name: r.client_name,
    manager_id: r.manager_id,
    manager_name: r.manager_id === null ? null : (r.manager_name ?? null),
    unread_count: Number(r.unread_count),
    last_message_at: new Date(r.last_message_at).toISOString(),
    last_text: r.last_text,
  }));
}

/**
 * PUT /api/inbox/:clientId/read: marks the client's messages read by staff (in scope, else 404), and the caller's own
 * unread 'client_message' notifications about this client with them.
 */
export async function markInboxRead(db: Db, actor: Actor, clientId: number): Promise<InboxReadResponse> {
  return db.transaction().execute(async (trx) => {
    const client = await scopeClients(trx.selectFrom('clients'), actor)
      .select('clients.id')
      .where('clients.id', '=', clientId)
      .executeTakeFirst();
    if (!client) throw new HttpError(404, 'client_not_found');
    const read = await markClientMessagesRead(trx, clientId);
    if (actor.id !== null) {
      await trx
        .updateTable('notifications')
        .set({ read_at: sql`now()` })
        .where('user_id', '=', actor.id)
        .where('type', '=', 'client_message')
        .where('client_id', '=', clientId)
        .where('read_at', 'is', null)
        .execute();
    }
    return { ok: true as const, read };
  });
}
