import { sql, type Kysely } from 'kysely';

/**
 * Issue 20 findings 1 and 2 (decisions.md, "Security findings, round two").
 * - clients.login_created_by: the staff member who created the client's login ('Register user'). Such a login is
 *   unverified like a self-registration linked to a lead, and only another finance approver may confirm it. Logins
 *   created by staff before this migration, whose identity only their creator "confirmed" (by that very act), become
 *   unverified too: their credited money stays, their withdrawals wait for another person's confirmation.
 * - manual_credits.replaced_by: a pending credit cancelled because its deposit's amount was edited names the credit
 *   that replaced it, so a confirmer who saw the old amount is told the amount changed.
 * - Finding 3: the thresholds add up a client's last 24 hours of staff credits and of one-step payouts; two partial
 *   indexes keep those sums to the few rows that count.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table clients add column login_created_by uuid references users (id)`.execute(db);
  await sql`alter table manual_credits add column replaced_by bigint references manual_credits (id)`.execute(db);
  await sql`create index ledger_entries_staff_credits on ledger_entries (account_id, created_at)
    where actor_id is not null and amount_cents > 0 and kind in ('adjustment', 'deposit', 'deposit_correction')`.execute(
    db,
  );
  await sql`create index withdraw_requests_one_step_approved on withdraw_requests (client_id, processed_at)
    where status = 'approved' and first_approved_by is null`.execute(db);
  await sql`
    update clients c set login_created_by = r.actor_id
    from (
      select distinct on (a.entity_id) a.entity_id, a.actor_id
      from audit_log a
      where a.action = 'client.register_user' and a.entity_type = 'client' and a.actor_id is not null
      order by a.entity_id, a.id desc
    ) r
    where r.entity_id = c.id::text and c.user_id is not null`.execute(db);
  await sql`
    update clients set identity_verified = false, identity_verified_at = null, identity_verified_by = null
    where login_created_by is not null and identity_verified and identity_verified_by = login_created_by`.execute(db);
}
