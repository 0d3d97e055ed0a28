import type { ClientMessage, SendClientMessageRequest, StaffClientMessage } from '@brokerage/shared';
import { sql } from 'kysely';
import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * Messages from staff to a client (back-office.md §2.15 'Сообщения клиенту', §7; client-platform.md §2.7, §7).
 * Staff with messages.send write to, and read the history of, the clients in their scope (D5: out of scope = 404);
 * a message goes to the client's platform user, who lists them newest first and marks them read.
 */

function messages(db: Db) {
  return db
    .selectFrom('client_messages as cm')
    .leftJoin('users as s', 's.id', 'cm.created_by')
    .select([
      'cm.id',
      'cm.client_id',
      'cm.content',
      'cm.created_by',
      'cm.created_at',
      'cm.read_at',
      's.name as created_by_name',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof messages>['executeTakeFirstOrThrow']>>;

function toClientMessage(r: Row): ClientMessage {
  const read = r.read_at !== null;
  return {
    id: Number(r.id),
    content: r.content,
    message: r.content,
    created_by_name: r.created_by_name,
    created_at: new Date(r.created_at).toISOString(),
    read,
    is_read: read,
    read_at: r.read_at === null ? null : new Date(r.read_at).toISOString(),
  };
}

function toStaffMessage(r: Row): StaffClientMessage {
  return { ...toClientMessage(r), client_id: Number(r.client_id), created_by: r.created_by };
}

/** The client if it is in the actor's scope (404 otherwise, the same answer as a client that does not exist). */
async function clientInScope(db: Db, actor: Actor, clientId: number) {
  const client = await scopeClients(db.selectFrom('clients').leftJoin('users as cu', 'cu.id', 'clients.user_id'), actor)
    .select(['clients.id', 'clients.user_id', 'cu.role', 'cu.deleted_at'])
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!client) throw new HttpError(404, 'client_not_found');
  return client;
}

/**
 * POST /api/client-messages: the client must be in scope (else 404) and registered on the trading platform, with a
 * live client user to read it (else 409). Audited with the text, in the same transaction.
 */
export async function sendMessage(
  db: Db,
  actor: Actor,
  input: SendClientMessageRequest,
  bus?: EventBus,
): Promise<StaffClientMessage> {
  const sent = await db.transaction().execute(async (trx) => {
    const client = await clientInScope(trx, actor, input.client_id);
    if (!client.user_id || client.role !== 'client' || client.deleted_at !== null) {
      throw new HttpError(409, 'client_not_registered');
    }
    const row = await trx
      .insertInto('client_messages')
      .values({ client_id: input.client_id, user_id: client.user_id, content: input.content, created_by: actor.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'client_message.send',
      entityType: 'client_message',
      entityId: Number(row.id),
      after: { client_id: input.client_id, user_id: client.user_id, content: input.content },
    });
    return {
      userId: client.user_id,
      message: toStaffMessage(await messages(trx).where('cm.id', '=', row.id).executeTakeFirstOrThrow()),
    };
  });
  // D11: the client's screens fetch their messages when told (after the commit).
  bus?.publish({ type: 'message.new', user_id: sent.userId, payload: { id: sent.message.id } });
  return sent.message;
}

/** GET /api/client-messages/:clientId: the client's message history, newest first. */
export async function clientHistory(
  db: Db,
  actor: Actor,
  clientId: number,
  limit: number,
): Promise<StaffClientMessage[]> {
  await clientInScope(db, actor, clientId);
  const rows = await messages(db)
    .where('cm.client_id', '=', clientId)
    .orderBy('cm.created_at', 'desc')
    .orderBy('cm.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toStaffMessage);
}

/** GET /api/my-messages: the caller's messages, newest first. */
export async function myMessages(db: Db, userId: string, limit: number): Promise<ClientMessage[]> {
  const rows = await messages(db)
    .where('cm.user_id', '=', userId)
    .orderBy('cm.created_at', 'desc')
    .orderBy('cm.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toClientMessage);
}

/**
 * PUT /api/my-messages/:id/read and PUT /api/client-messages/:id/read: marks one of the caller's own messages read
 * (anyone else's, or none, is 404). Idempotent: the first reading time is kept.
 */
export async function markRead(db: Db, userId: string, id: number): Promise<ClientMessage> {
  const updated = await db
    .updateTable('client_messages')
    .set({ read_at: sql`coalesce(read_at, now())` })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new HttpError(404, 'message_not_found');
  return toClientMessage(await messages(db).where('cm.id', '=', id).executeTakeFirstOrThrow());
}
