import { sql, type Kysely } from 'kysely';

/**
 * The client base beyond the list (back-office.md §2.6, §2.7, §2.10; decisions.md D3): deposits recorded by staff,
 * credited to the client's trading account through the ledger (deposit:<id>); comments; reminders.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deposits')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('deposit_type', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    // Set when the amount reached the trading account (at once, or when the account is opened later, D3).
    .addColumn('credited_at', 'timestamptz')
    // Counts the edits, so each correction posted to the ledger has its own reference.
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .addCheckConstraint('deposits_amount_check', sql`amount_cents > 0`)
    .addCheckConstraint('deposits_type_check', sql`deposit_type in ('ftd', 'reload')`)
    .addCheckConstraint('deposits_notes_check', sql`char_length(notes) <= 1000`)
    .execute();
  // Exactly one live ftd deposit per client at most (the earliest; the service recomputes it on every change).
  await sql`create unique index deposits_one_ftd on deposits (client_id) where deposit_type = 'ftd' and deleted_at is null`.execute(
    db,
  );
  await sql`create index deposits_client on deposits (client_id, created_at, id) where deleted_at is null`.execute(db);
  await sql`create index deposits_created on deposits (created_at desc, id desc) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('comments')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('is_pinned', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('user_id', 'uuid', (c) => c.references('users.id'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('comments_text_check', sql`char_length(text) between 1 and 5000`)
    .execute();
  await sql`create index comments_client on comments (client_id, is_pinned desc, created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('reminders')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('scheduled_time', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('reminders_status_check', sql`status in ('pending', 'completed', 'cancelled')`)
    .addCheckConstraint('reminders_title_check', sql`char_length(title) between 1 and 200`)
    .execute();
  await sql`create index reminders_scheduled on reminders (scheduled_time, id)`.execute(db);
  await sql`create index reminders_client on reminders (client_id, scheduled_time)`.execute(db);
}
