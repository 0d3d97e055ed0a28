import { sql, type Kysely } from 'kysely';

/**
 * Four-eyes withdrawals and maker-checker manual credits (issue 13 items 2 and 3, decisions.md D20).
 * - withdraw_requests: who gave the first of two approvals and when (status 'awaiting_second_approval' between them).
 * - manual_credits: money a staff member adds above MANUAL_CREDIT_SECOND_APPROVAL waits here for a second staff member
 *   with finance.approve. kind: balance_change (a staff balance change that raises a balance), deposit (the crediting of
 *   a CRM deposit), deposit_edit (the difference of an edit that raised a credited deposit). At most one pending credit
 *   per deposit (a partial unique index), so an edit replaces it instead of stacking a second.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('withdraw_requests')
    .addColumn('first_approved_by', 'uuid', (c) => c.references('users.id'))
    .execute();
  await db.schema.alterTable('withdraw_requests').addColumn('first_approved_at', 'timestamptz').execute();
  await sql`alter table withdraw_requests drop constraint withdraw_requests_status_check`.execute(db);
  await sql`alter table withdraw_requests drop constraint withdraw_requests_processed_check`.execute(db);
  await sql`alter table withdraw_requests add constraint withdraw_requests_status_check
    check (status in ('pending', 'awaiting_second_approval', 'approved', 'rejected'))`.execute(db);
  // Open (pending, awaiting) requests are not processed; awaiting names its first approver; a processed one says who
  // processed it and when.
  await sql`alter table withdraw_requests add constraint withdraw_requests_processed_check check (
      (status = 'pending' and processed_at is null and processed_by is null and reject_reason is null
        and first_approved_by is null and first_approved_at is null)
      or (status = 'awaiting_second_approval' and processed_at is null and processed_by is null
        and reject_reason is null and first_approved_at is not null)
      or (status in ('approved', 'rejected') and processed_at is not null))`.execute(db);

  await db.schema
    .createTable('manual_credits')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('account_id', 'bigint', (c) => c.references('trading_accounts.id'))
    .addColumn('deposit_id', 'bigint', (c) => c.references('deposits.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    // What the author asked for, as they phrased it ('add' 500, 'set' 3000), for the checker to read.
    .addColumn('requested_action', 'text')
    .addColumn('requested_amount_cents', 'bigint')
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('decided_by_name', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('cancel_reason', 'text')
    .addColumn('ledger_entry_id', 'bigint', (c) => c.references('ledger_entries.id'))
    .addCheckConstraint('manual_credits_kind_check', sql`kind in ('balance_change', 'deposit', 'deposit_edit')`)
    .addCheckConstraint('manual_credits_status_check', sql`status in ('pending', 'confirmed', 'cancelled')`)
    .addCheckConstraint('manual_credits_amount_check', sql`amount_cents > 0`)
    .addCheckConstraint(
      'manual_credits_target_check',
      sql`(kind = 'balance_change' and account_id is not null and deposit_id is null) or (kind <> 'balance_change' and deposit_id is not null)`,
    )
    .execute();
  await sql`create index manual_credits_pending on manual_credits (created_at) where status = 'pending'`.execute(db);
  await sql`create index manual_credits_client on manual_credits (client_id)`.execute(db);
  await sql`create index manual_credits_account on manual_credits (account_id) where account_id is not null`.execute(
    db,
  );
  await sql`create unique index manual_credits_one_pending_per_deposit on manual_credits (deposit_id)
    where status = 'pending' and deposit_id is not null`.execute(db);
  await sql`create index manual_credits_deposit on manual_credits (deposit_id, id) where deposit_id is not null`.execute(
    db,
  );
}
