import { sql, type Kysely } from 'kysely';

/**
 * Voids take two people (issue 20 finding 11, decisions.md D20 'Voids'). A staff member's void of an active trade is
 * recorded here (who asked, why, when) and waits for a second staff member with finance.approve: confirmed (the trade
 * is voided, its stake returned by the trade_refund entry named here), rejected (with a reason), or lapsed (the trade
 * settled first). At most one pending request per trade (a partial unique index). Settlement never reads this table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trade_void_requests')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('trade_id', 'bigint', (c) => c.notNull().references('trades.id'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('requested_by_name', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('decided_by_name', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('reject_reason', 'text')
    .addColumn('ledger_entry_id', 'bigint', (c) => c.references('ledger_entries.id'))
    .addCheckConstraint(
      'trade_void_requests_status_check',
      sql`status in ('pending', 'confirmed', 'rejected', 'lapsed')`,
    )
    // A decided request says when; a confirmed one names its confirmer and the refund; a rejected one its reason.
    .addCheckConstraint(
      'trade_void_requests_decided_check',
      sql`(status = 'pending' and decided_at is null and decided_by is null and ledger_entry_id is null)
        or (status = 'confirmed' and decided_at is not null and decided_by is not null and ledger_entry_id is not null)
        or (status = 'rejected' and decided_at is not null and reject_reason is not null and ledger_entry_id is null)
        or (status = 'lapsed' and decided_at is not null and ledger_entry_id is null)`,
    )
    .execute();
  await sql`create unique index trade_void_requests_one_pending on trade_void_requests (trade_id)
    where status = 'pending'`.execute(db);
  await sql`create index trade_void_requests_pending on trade_void_requests (requested_at, id)
    where status = 'pending'`.execute(db);
  await sql`create index trade_void_requests_account on trade_void_requests (account_id, id)`.execute(db);
  await sql`create index trade_void_requests_trade on trade_void_requests (trade_id)`.execute(db);
}
