import { sql, type Kysely } from 'kysely';

/**
 * Void requests, after review (issue 20 finding 11, decisions.md D20 'Voids'):
 * - `account_id` goes: a request's account is its trade's (trades.account_id), and a second copy could only disagree.
 *   Its index and foreign key go with it; the account's requests are found through the trade.
 * - A requester may withdraw their own request while it waits: status 'withdrawn', with when and by whom (decided_*).
 * A request whose trade expired or settled while it waited reads as lapsed (derived when read); the stored status
 * follows only when a confirm, reject or withdraw meets it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table trade_void_requests drop column account_id`.execute(db);
  await sql`alter table trade_void_requests drop constraint trade_void_requests_status_check`.execute(db);
  await sql`alter table trade_void_requests drop constraint trade_void_requests_decided_check`.execute(db);
  await sql`alter table trade_void_requests add constraint trade_void_requests_status_check
    check (status in ('pending', 'confirmed', 'rejected', 'lapsed', 'withdrawn'))`.execute(db);
  await sql`alter table trade_void_requests add constraint trade_void_requests_decided_check check (
    (status = 'pending' and decided_at is null and decided_by is null and ledger_entry_id is null)
    or (status = 'confirmed' and decided_at is not null and decided_by is not null and ledger_entry_id is not null)
    or (status = 'rejected' and decided_at is not null and reject_reason is not null and ledger_entry_id is null)
    or (status = 'lapsed' and decided_at is not null and ledger_entry_id is null)
    or (status = 'withdrawn' and decided_at is not null and decided_by is not null and ledger_entry_id is null))`.execute(
    db,
  );
}
