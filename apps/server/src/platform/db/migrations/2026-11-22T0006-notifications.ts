import { sql, type Kysely } from 'kysely';

/**
 * Staff notifications (back-office.md §2.8, decisions.md D12): stored per staff user. `dedupe_key` makes a scheduled
 * notification (a reminder upcoming or due) exist once per user however many server processes look for it;
 * `published_at` is the outbox mark: a notification is pushed over the live socket by exactly one process.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('client_id', 'bigint', (c) => c.references('clients.id').onDelete('cascade'))
    .addColumn('client_name', 'text')
    .addColumn('reminder_id', 'bigint', (c) => c.references('reminders.id').onDelete('cascade'))
    .addColumn('reminder_title', 'text')
    .addColumn('scheduled_time', 'timestamptz')
    .addColumn('amount_cents', 'bigint')
    .addColumn('withdrawal_id', 'bigint')
    .addColumn('dedupe_key', 'text')
    .addColumn('read_at', 'timestamptz')
    .addColumn('published_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'notifications_type_check',
      sql`type in ('client_assigned', 'reminder_upcoming', 'reminder_due', 'withdrawal_request')`,
    )
    .execute();
  await sql`create unique index notifications_dedupe on notifications (user_id, dedupe_key) where dedupe_key is not null`.execute(
    db,
  );
  await sql`create index notifications_user on notifications (user_id, created_at desc, id desc)`.execute(db);
  await sql`create index notifications_unread on notifications (user_id) where read_at is null`.execute(db);
  await sql`create index notifications_outbox on notifications (id) where published_at is null`.execute(db);
}
