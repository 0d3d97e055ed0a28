import { sql, type Kysely } from 'kysely';

/**
 * Issue 20 §7 and §8.
 *
 * The keyed audit chain: from here on the server stamps its audit rows with an HMAC under a key the database never
 * holds (platform/audit/stamping.ts). Rows already on the chain keep their sha-256 hashes; `audit_chain.keyed_after`
 * records where the old way ends (the head now), so verification checks rows up to it the old way and every later row
 * with the key. It is written once: the table refuses updates and deletes (each checkpoint outside the database also
 * records it, and verification takes the lower of the two).
 *
 * Two-factor codes: a challenge counts the codes tried on it before any is checked (`attempts`, which replaces
 * `wrong_codes`), and an account counts its wrong codes over all addresses (`code_failures` since
 * `code_failures_since`, a one-hour window).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table audit_chain (
    singleton boolean primary key default true check (singleton),
    keyed_after bigint not null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`insert into audit_chain (keyed_after) select coalesce(max(seq), 0) from audit_log`.execute(db);
  await sql`
    create function audit_chain_fixed() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_chain is written once';
    end $$`.execute(db);
  await sql`
    create trigger audit_chain_no_change before update or delete on audit_chain
    for each row execute function audit_chain_fixed()`.execute(db);

  await sql`alter table login_challenges rename column wrong_codes to attempts`.execute(db);
  await sql`alter table two_factor add column code_failures integer not null default 0,
    add column code_failures_since timestamptz`.execute(db);
}
