import { sql, type Kysely } from 'kysely';

/**
 * decisions.md D17a (issue 9, finding 1): a self-registration that links a new user to an existing lead is unverified
 * until a finance approver confirms the client's identity; until then the lead's recorded deposits are not credited and
 * the account cannot request a withdrawal. Every client that exists now keeps its access (verified).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table clients add column identity_verified boolean not null default true`.execute(db);
  await sql`alter table clients add column identity_verified_at timestamptz`.execute(db);
  await sql`alter table clients add column identity_verified_by uuid references users (id)`.execute(db);
  await sql`create index clients_identity_unverified on clients (id) where not identity_verified`.execute(db);
}
