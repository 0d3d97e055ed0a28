import { sql, type Kysely } from 'kysely';

/** Users, sessions, login throttling, the staff IP whitelist, the append-only audit log and the client base. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('department', 'text')
    .addColumn('phone', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('last_login_at', 'timestamptz')
    .addCheckConstraint(
      'users_role_check',
      sql`role in ('superadmin','admin','team_lead_sales','team_lead_retention','sales_manager','retention_manager','manager','client')`,
    )
    .execute();
  // One live account per e-mail; a deleted staff member keeps their row (and name) for history.
  await sql`create unique index users_email_live on users (lower(email)) where deleted_at is null`.execute(db);
  await sql`create index users_role on users (role) where deleted_at is null`.execute(db);
  await sql`create index users_phone on users (phone) where deleted_at is null and phone is not null`.execute(db);

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('idle_seconds', 'integer', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await sql`create index sessions_user on sessions (user_id) where revoked_at is null`.execute(db);

  await db.schema
    .createTable('login_failures')
    .addColumn('email_key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .execute();

  await db.schema
    .createTable('ip_whitelist')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('ip_address', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('actor_id', 'uuid')
    .addColumn('actor_name', 'text')
    .addColumn('actor_role', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'text')
    .addColumn('before', 'jsonb')
    .addColumn('after', 'jsonb')
    .addColumn('ip', 'text')
    .execute();
  await sql`create index audit_log_at on audit_log (at desc, id desc)`.execute(db);
  await sql`create index audit_log_actor on audit_log (actor_id, at desc)`.execute(db);
  await sql`create index audit_log_action on audit_log (action, at desc)`.execute(db);
  // Append-only: the database itself refuses to change or remove a row.
  await sql`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only';
    end $$`.execute(db);
  await sql`
    create trigger audit_log_no_change before update or delete on audit_log
    for each row execute function audit_log_append_only()`.execute(db);

  await db.schema
    .createTable('clients')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('campaign', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('new'))
    .addColumn('assigned_manager', 'uuid', (c) => c.references('users.id'))
    .addColumn('affiliate_id', 'integer')
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').unique())
    .addColumn('ftd', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('total_deposits_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('registration_date', 'timestamptz')
    .addColumn('last_comment_date', 'timestamptz')
    .execute();
  await sql`create index clients_assigned_manager on clients (assigned_manager, id desc)`.execute(db);
  await sql`create index clients_email on clients (lower(email))`.execute(db);
  // Registration compares phones by their digits; this index keeps that lookup off a full scan.
  await sql`create index clients_phone_digits on clients (regexp_replace(phone, '\\D', '', 'g'))`.execute(db);
}
