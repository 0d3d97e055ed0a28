import { sql, type Kysely } from 'kysely';

/**
 * Staff two-factor sign-in and sign-in delays (issue 13 items 1 and 4; D8 as amended by D20).
 *
 * - `two_factor`: a user's TOTP secret (AES-256-GCM under the card key, never in clear), `confirmed_at` once the first
 *   code proved the authenticator holds it, and `last_step`: the newest 30-second step a code was accepted for, so a
 *   code (or an older one) is never accepted twice.
 * - `two_factor_recovery_codes`: ten one-time codes per enrollment, stored as SHA-256 hashes.
 * - `login_challenges`: what a right password earns a 2FA user instead of a session: a random token (stored hashed),
 *   bound to the user, for one step ('enroll' or 'otp'), single use, with an expiry and a count of wrong codes.
 * - `sign_in_failures`: failures per (e-mail as typed, address): drive the exponential delays; cleared by a success.
 * - `sign_in_ip_failures`: failures per address across every account: the per-address limit.
 * - `sign_in_notices`: failed attempts on a known account since its last successful sign-in (shown at the next one).
 * The old per-e-mail hard lock (`login_failures`) is dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table two_factor (
      user_id uuid primary key references users(id) on delete cascade,
      secret_enc text not null,
      confirmed_at timestamptz,
      last_step bigint,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create table two_factor_recovery_codes (
      id bigserial primary key,
      user_id uuid not null references users(id) on delete cascade,
      code_hash text not null,
      used_at timestamptz
    )`.execute(db);
  await sql`create index two_factor_recovery_codes_user on two_factor_recovery_codes (user_id)`.execute(db);
  await sql`create table login_challenges (
      id bigserial primary key,
      token_hash text not null unique,
      user_id uuid not null references users(id) on delete cascade,
      purpose text not null check (purpose in ('enroll', 'otp')),
      expires_at timestamptz not null,
      used_at timestamptz,
      wrong_codes integer not null default 0,
      ip text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index login_challenges_user on login_challenges (user_id)`.execute(db);
  await sql`create table sign_in_failures (
      email_key text not null,
      ip text not null,
      failures integer not null,
      last_failed_at timestamptz not null,
      primary key (email_key, ip)
    )`.execute(db);
  await sql`create table sign_in_ip_failures (
      ip text primary key,
      failures integer not null,
      last_failed_at timestamptz not null
    )`.execute(db);
  await sql`create table sign_in_notices (
      user_id uuid primary key references users(id) on delete cascade,
      failures integer not null,
      last_at timestamptz not null,
      last_ip text
    )`.execute(db);
  await sql`drop table login_failures`.execute(db);
}
