import { sql, type Kysely } from 'kysely';

/**
 * The dashboard (back-office.md §2.4, issue 11): a deposit stays with the manager who had the client when it was made,
 * even after a reassignment or the manager's deletion. `deposits.attributed_manager` records that manager; existing
 * deposits take today's assignment (the best the data can tell). Indexes for the figures by manager and by month.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table deposits add column attributed_manager uuid references users (id)`.execute(db);
  await sql`update deposits d set attributed_manager = c.assigned_manager from clients c where c.id = d.client_id`.execute(
    db,
  );
  await sql`create index deposits_attributed on deposits (attributed_manager, created_at) where deleted_at is null`.execute(
    db,
  );
  await sql`create index clients_created_status on clients (created_at) include (status, ftd, assigned_manager, affiliate_id)`.execute(
    db,
  );
}
