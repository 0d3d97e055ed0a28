import { sql, type Kysely } from 'kysely';

/**
 * Issue 22: mail, verified addresses, password reset, staff invitations, and the two-way support conversation.
 * - users: `email_verified_at` (null until the address is proven; every account that existed before this migration
 *   counts as verified: its creation time is recorded, and `email_verified_by_migration` says why), the mail
 *   `language` (ru/en/kk; staff mail is Russian), `mail_opt_out` (no mail but security mail), `digest_opt_in` (staff:
 *   the daily digest of due reminders), `invited_at` (a staff member invited without a password, until they set one).
 *   An invited member's password_hash is an unusable marker (`!invited`), which no password verifies.
 * - auth_tokens: single-use links (e-mail verification, password reset, invitation), stored as the SHA-256 of the token;
 *   the unsubscribe token is reusable (used_at stays null) and long-lived.
 * - auth_requests: what a public mail-sending request counted (password reset per typed address and per client
 *   address), whether or not the address exists, so the limits answer alike for known and unknown addresses.
 * - mail_outbox: every message, written in the transaction of the action that causes it; 'kept' when no SMTP server is
 *   set (shown on /crm/outbox), else 'pending' → 'sent' | 'failed'.
 * - client_messages: `direction` (staff → client as before, or client → staff); a client's message has created_by = the
 *   client user, and read_at says when staff first read it. A client's message may be 4,000 characters.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users
    add column email_verified_at timestamptz,
    add column email_verified_by_migration boolean not null default false,
    add column language text not null default 'ru' check (language in ('ru', 'en', 'kk')),
    add column mail_opt_out boolean not null default false,
    add column digest_opt_in boolean not null default false,
    add column invited_at timestamptz`.execute(db);
  await sql`update users set email_verified_at = created_at, email_verified_by_migration = true`.execute(db);

  await sql`create table auth_tokens (
    id bigserial primary key,
    token_hash text not null unique,
    purpose text not null check (purpose in ('verify_email', 'password_reset', 'invitation', 'unsubscribe')),
    user_id uuid not null references users(id),
    -- verify_email: the address this link proves (the new one when a client changes it)
    email text,
    expires_at timestamptz not null,
    used_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz not null default now(),
    ip text
  )`.execute(db);
  await sql`create index auth_tokens_user on auth_tokens (user_id, purpose, created_at desc)`.execute(db);

  await sql`create table auth_requests (
    id bigserial primary key,
    kind text not null check (kind in ('password_reset')),
    email_key text not null,
    ip text not null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index auth_requests_email on auth_requests (kind, email_key, created_at desc)`.execute(db);
  await sql`create index auth_requests_ip on auth_requests (kind, ip, created_at desc)`.execute(db);

  await sql`create table mail_outbox (
    id bigserial primary key,
    message_id text not null unique,
    user_id uuid references users(id),
    to_address text not null,
    template text not null,
    category text not null check (category in ('security', 'transactional', 'bulk')),
    language text not null check (language in ('ru', 'en', 'kk')),
    subject text not null,
    text_body text not null,
    html_body text not null,
    headers jsonb not null default '{}'::jsonb,
    status text not null check (status in ('kept', 'pending', 'sent', 'failed')),
    attempts integer not null default 0,
    next_attempt_at timestamptz not null default now(),
    last_attempt_at timestamptz,
    last_error text,
    sent_at timestamptz,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index mail_outbox_due on mail_outbox (next_attempt_at, id) where status = 'pending'`.execute(db);
  await sql`create index mail_outbox_recent on mail_outbox (created_at desc, id desc)`.execute(db);

  await sql`alter table client_messages
    add column direction text not null default 'staff' check (direction in ('staff', 'client'))`.execute(db);
  await sql`alter table client_messages drop constraint client_messages_content_check`.execute(db);
  await sql`alter table client_messages add constraint client_messages_content_check check (
    char_length(content) between 1 and (case when direction = 'client' then 4000 else 2000 end))`.execute(db);
  await sql`create index client_messages_unread_from_client on client_messages (client_id, created_at desc)
    where direction = 'client' and read_at is null`.execute(db);

  // The notification type 'client_message' (a client wrote to the broker), rebuilt from the constraint as it stands.
  const current = await sql<{ def: string }>`
    select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'notifications_type_check'`.execute(db);
  const types = new Set<string>();
  for (const m of (current.rows[0]?.def ?? '').matchAll(/'([a-z_]+)'/g)) types.add(m[1]!);
  types.add('client_message');
  const list = [...types].map((t) => `'${t}'`).join(', ');
  await sql`alter table notifications drop constraint if exists notifications_type_check`.execute(db);
  await sql
    .raw(`alter table notifications add constraint notifications_type_check check (type in (${list}))`)
    .execute(db);
}
