import {
  can,
  SUPPORT_MESSAGES_PER_HOUR,
  type ClientMessage,
  type SendClientMessageRequest,
  type SendMyMessageRequest,
  type StaffClientMessage,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import type { Mailer } from '../mail/mailer.js';
import { notifyClientMessage } from './notify.js';

/**
 * The conversation between a client and the broker (back-office.md §2.15 'Сообщения клиенту', §7; client-platform.md
 * §2.7, §7; issue 22 §6 'Поддержка'). One conversation per client: staff messages (direction 'staff') go to the
 * client's platform user, who marks them read; the client's own messages (direction 'client', created_by = the client
 * user) are read by staff (read_at = when staff first read them). Staff with messages.send, and the client's own
 * manager, write to and read the conversation of the clients in their scope (D5: out of scope = 404, else 403).
 */
export interface MessageDeps {
  db: Db;
  bus?: EventBus;
  mail?: Mailer;
}

const HOUR_MS = 3600_000;

function messages(db: Db) {
  return db
    .selectFrom('client_messages as cm')
    .leftJoin('users as s', 's.id', 'cm.created_by')
    .select([
      'cm.id',
      'cm.client_id',
      'cm.direction',
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
    direction: r.direction,
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

/**
 * The client if it is in the actor's scope (404 otherwise, the same answer as a client that does not exist), and the
 * actor may hold its conversation: messages.send's roles or the client's own manager (403 otherwise).
 */
async function conversationOf(db: Db, actor: Actor, clientId: number) {
  const client = await scopeClients(db.selectFrom('clients').leftJoin('users as cu', 'cu.id', 'clients.user_id'), actor)
    .select([
      'clients.id',
      'clients.name',
      'clients.user_id',
      'clients.assigned_manager',
      'cu.role',
      'cu.deleted_at',
      'cu.email',
      'cu.name as user_name',
      'cu.language',
    ])
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!client) throw new HttpError(404, 'client_not_found');
  const ownManager = actor.id !== null && client.assigned_manager === actor.id;
  if (!ownManager && (actor.role === 'system' || !can(actor.role, 'messages.send'))) {
    throw new HttpError(403, 'forbidden');
  }
  return client;
}

/**
 * POST /api/client-messages: the client must be in scope (else 404), the actor one who holds its conversation (else
 * 403), and the client registered on the trading platform with a live client user to read it (else 409). Audited with
 * the text, and e-mailed to the client (broker_message, unless they turned such mail off), in the same transaction.
 * Replying means having read: the client's unread messages are marked read by staff.
 */
export async function sendMessage(
  deps: MessageDeps,
  actor: Actor,
  input: SendClientMessageRequest,
): Promise<StaffClientMessage> {
  const sent = await deps.db.transaction().execute(async (trx) => {
    const client = await conversationOf(trx, actor, input.client_id);
    if (!client.user_id || client.role !== 'client' || client.deleted_at !== null) {
      throw new HttpError(409, 'client_not_registered');
    }
    const row = await trx
      .insertInto('client_messages')
      .values({
        client_id: input.client_id,
        user_id: client.user_id,
        content: input.content,
        created_by: actor.id,
        direction: 'staff',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await markClientMessagesRead(trx, input.client_id);
    await writeAudit(trx, actor, {
      action: 'client_message.send',
      entityType: 'client_message',
      entityId: Number(row.id),
      after: { client_id: input.client_id, user_id: client.user_id, content: input.content },
    });
    if (deps.mail && client.email) {
      await deps.mail.enqueue(trx, {
        to: client.email,
        userId: client.user_id,
        template: 'broker_message',
        language: client.language ?? 'ru',
        data: { name: client.user_name || client.name, text: input.content, link: deps.mail.link('/trading') },
      });
    }
    return {
      userId: client.user_id,
      message: toStaffMessage(await messages(trx).where('cm.id', '=', row.id).executeTakeFirstOrThrow()),
    };
  });
  // D11: the client's screens fetch their messages when told (after the commit).
  deps.bus?.publish({ type: 'message.new', user_id: sent.userId, payload: { id: sent.message.id } });
  return sent.message;
}

/** GET /api/client-messages/:clientId: the conversation, both directions, newest first. */
export async function clientHistory(
  deps: MessageDeps,
  actor: Actor,
  clientId: number,
  limit: number,
): Promise<StaffClientMessage[]> {
  await conversationOf(deps.db, actor, clientId);
  const rows = await messages(deps.db)
    .where('cm.client_id', '=', clientId)
    .orderBy('cm.created_at', 'desc')
    .orderBy('cm.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toStaffMessage);
}

/** GET /api/my-messages: the caller's conversation with the broker, both directions, newest first. */
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
 * POST /api/my-messages (issue 22 §6): the client writes to the broker. At most SUPPORT_MESSAGES_PER_HOUR in any hour
 * (429 with Retry-After); the client's manager, or the team leads of the client's department when it has none, get a
 * bell notification (pushed live by the notification outbox once committed).
 */
export async function sendMyMessage(
  deps: MessageDeps,
  userId: string,
  input: SendMyMessageRequest,
  now: Date = new Date(),
): Promise<ClientMessage> {
  const message = await deps.db.transaction().execute(async (trx) => {
    // One client's messages are counted one request at a time, so parallel posts cannot pass the limit together.
    const client = await trx
      .selectFrom('clients')
      .select(['id'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .forUpdate()
      .executeTakeFirst();
    if (!client) throw new HttpError(409, 'support_client_missing');
    const since = new Date(now.getTime() - HOUR_MS);
    const recent = await trx
      .selectFrom('client_messages')
      .select('created_at')
      .where('client_id', '=', client.id)
      .where('direction', '=', 'client')
      .where('created_at', '>', since)
      .orderBy('created_at', 'desc')
      .limit(SUPPORT_MESSAGES_PER_HOUR)
      .execute();
    if (recent.length >= SUPPORT_MESSAGES_PER_HOUR) {
      const oldest = new Date(recent.at(-1)!.created_at).getTime();
      const seconds = Math.max(1, Math.ceil((oldest + HOUR_MS - now.getTime()) / 1000));
      throw new HttpError(
        429,
        'support_rate_limited',
        { max: SUPPORT_MESSAGES_PER_HOUR, minutes: Math.ceil(seconds / 60) },
        seconds,
      );
    }
    const row = await trx
      .insertInto('client_messages')
      .values({
        client_id: client.id,
        user_id: userId,
        content: input.text,
        created_by: userId,
        direction: 'client',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await notifyClientMessage(trx, Number(client.id));
    return toClientMessage(await messages(trx).where('cm.id', '=', row.id).executeTakeFirstOrThrow());
  });
  // The client's other screens (another tab, the phone) fetch the conversation when told.
  deps.bus?.publish({ type: 'message.new', user_id: userId, payload: { id: message.id } });
  return message;
}

/**
 * PUT /api/my-messages/:id/read and PUT /api/client-messages/:id/read: marks one of the staff messages to the caller
 * read (anyone else's, the caller's own messages to the broker, or none, is 404). Idempotent: the first reading time
 * is kept.
 */
export async function markRead(db: Db, userId: string, id: number): Promise<ClientMessage> {
  const updated = await db
    .updateTable('client_messages')
    .set({ read_at: sql`coalesce(read_at, now())` })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('direction', '=', 'staff')
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new HttpError(404, 'message_not_found');
  return toClientMessage(await messages(db).where('cm.id', '=', id).executeTakeFirstOrThrow());
}

/** Marks the client's own messages read (staff read them: a reply, or the conversation opened); answers how many. */
export async function markClientMessagesRead(db: Db, clientId: number): Promise<number> {
  const res = await db
    .updateTable('client_messages')
    .set({ read_at: sql`now()` })
    .where('client_id', '=', clientId)
    .where('direction', '=', 'client')
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
