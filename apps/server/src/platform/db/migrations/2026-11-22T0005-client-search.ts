import { sql, type Kysely } from 'kysely';

/**
 * The clients list at a million leads (issue 4, D4): indexes for the general search and for the list's sorts.
 *
 * - Search is a substring match (`ilike '%…%'`) over name, e-mail and phone, and over the phone's digits: trigram
 *   GIN indexes (pg_trgm) serve each arm, so the planner combines them with a BitmapOr instead of scanning the table.
 *   The digits expression is written exactly as the list query writes it (and as 0001's clients_phone_digits).
 *   PGlite loads pg_trgm from its contrib bundle (platform/db/index.ts), so both databases run the same migration.
 * - Sorts: one btree per sortable column, ending with id as the list's tie-break, so page 1 and deep pages of every
 *   sort are an index walk. last_comment_date is nullable and sorted NULLS LAST both ways, so it has one index per
 *   direction; the other columns are NOT NULL and the list sorts them without a NULLS clause (see listClients).
 * - The status filter with the default order (id desc) walks (status, id); the default view's count and deep pages
 *   walk (id) — both including assigned_manager, see below.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index clients_name_trgm on clients using gin (name gin_trgm_ops)`.execute(db);
  await sql`create index clients_email_trgm on clients using gin (email gin_trgm_ops)`.execute(db);
  await sql`create index clients_phone_trgm on clients using gin (phone gin_trgm_ops)`.execute(db);
  await sql`create index clients_phone_digits_trgm on clients using gin ((regexp_replace(phone, '\\D', '', 'g')) gin_trgm_ops)`.execute(
    db,
  );

  // The list's queries carry a LEFT JOIN to the manager on clients.assigned_manager. PostgreSQL removes the unused join
  // from the count and the page-id query, but still counts assigned_manager as needed, so an index-only scan is only
  // possible on an index that includes it: without it, counting one status read ~25,000 heap pages (about 1 s cold)
  // and a deep page read every row it skipped.
  await sql`create index clients_id_manager on clients (id) include (assigned_manager)`.execute(db);
  await sql`create index clients_status_id on clients (status, id) include (assigned_manager)`.execute(db);
  await sql`create index clients_created_at_id on clients (created_at, id) include (assigned_manager)`.execute(db);
  await sql`create index clients_name_id on clients (name, id)`.execute(db);
  await sql`create index clients_email_id on clients (email, id)`.execute(db);
  await sql`create index clients_country_id on clients (country, id)`.execute(db);
  await sql`create index clients_total_deposits_id on clients (total_deposits_cents, id)`.execute(db);
  await sql`create index clients_last_comment_asc on clients (last_comment_date asc nulls last, id asc)`.execute(db);
  await sql`create index clients_last_comment_desc on clients (last_comment_date desc nulls last, id desc)`.execute(db);
}
