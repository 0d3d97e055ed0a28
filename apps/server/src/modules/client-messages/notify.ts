import type { Db } from '../../platform/db/index.js';

/**
 * Issue 22 §6: who is told that a client wrote to the broker. The client's manager (a live staff account); when the
 * client has none, the team leads of the client's department: retention once the client has made a first deposit
 * (ftd), sales before — the department that, by D5, works such a client. One bell notification per recipient and
 * client until they read it: ten messages in a row are one unread notification, not ten. Written in the caller's
 * transaction; the notification outbox (notifications/worker.ts) pushes it live ('notification.new') once committed.
 * Returns the recipients.
 */
export async function notifyClientMessage(trx: Db, clientId: number): Promise<string[]> {
  const client = await trx
    .selectFrom('clients')
    .leftJoin('users as m', (j) =>
      j.onRef('m.id', '=', 'clients.assigned_manager').on('m.deleted_at', 'is', null).on('m.role', '<>', 'client'),
    )
    .select(['clients.id', 'clients.name', 'clients.ftd', 'm.id as manager_id'])
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!client) return [];
  let recipients: string[] = client.manager_id ? [client.manager_id] : [];
  if (recipients.length === 0) {
    const leads = await trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', client.ftd ? 'team_lead_retention' : 'team_lead_sales')
      .where('deleted_at', 'is', null)
      .execute();
    recipients = leads.map((u) => u.id);
  }
  if (recipients.length === 0) return [];
  const already = await trx
    .selectFrom('notifications')
    .select('user_id')
    .where('user_id', 'in', recipients)
    .where('type', '=', 'client_message')
    .where('client_id', '=', client.id)
    .where('read_at', 'is', null)
    .execute();
  const told = new Set(already.map((n) => n.user_id));
  const fresh = recipients.filter((id) => !told.has(id));
  if (fresh.length > 0) {
    await trx
      .insertInto('notifications')
      .values(
        fresh.map((userId) => ({
          user_id: userId,
          type: 'client_message' as const,
          client_id: client.id,
          client_name: client.name,
        })),
      )
      .execute();
  }
  return recipients;
}
