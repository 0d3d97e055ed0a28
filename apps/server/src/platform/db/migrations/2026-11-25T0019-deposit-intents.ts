import { sql, type Kysely } from 'kysely';

/**
 * Issue 15.
 * - D21: deposit_intents, a client's confirmed top-up (amount, method) for staff to follow up; not money.
 * - The notification type 'deposit_intent' and the method's title on notifications. The type check is rebuilt from
 *   the constraint as it stands (other migrations may have added types), plus 'deposit_intent'.
 * - trades.backfilled: trades settled by the demo seed's backfill rather than the live worker; the landing page's
 *   settlement figure counts only the others (defect 2).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deposit_intents')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn('method_id', 'bigint', (c) => c.references('deposit_methods.id').onDelete('set null'))
    .addColumn('method_title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index deposit_intents_user on deposit_intents (user_id, created_at)`.execute(db);
  await sql`create index deposit_intents_client on deposit_intents (client_id, created_at desc, id desc)`.execute(db);

  await sql`alter table notifications add column method_title text`.execute(db);
  const current = await sql<{ def: string }>`
    select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'notifications_type_check'`.execute(db);
  const types = new Set<string>(['client_assigned', 'reminder_upcoming', 'reminder_due', 'withdrawal_request']);
  for (const m of (current.rows[0]?.def ?? '').matchAll(/'([a-z_]+)'/g)) types.add(m[1]!);
  types.add('deposit_intent');
  const list = [...types].map((t) => `'${t}'`).join(', ');
  await sql`alter table notifications drop constraint if exists notifications_type_check`.execute(db);
  await sql
    .raw(`alter table notifications add constraint notifications_type_check check (type in (${list}))`)
    .execute(db);

  await sql`alter table trades add column backfilled boolean not null default false`.execute(db);
  // A database seeded before this column: the demo seed's trades (demo accounts, settled in one go long after their
  // expiry) are marked as the seed now marks them. A live trade is settled within seconds of its expiry.
  await sql`
    update trades set backfilled = true
    where settled_at is not null and settled_at > expires_at + interval '5 minutes'
      and account_id in (select ta.id from trading_accounts ta join users u on u.id = ta.user_id
                         where u.email like '%@demo.local')`.execute(db);
}
