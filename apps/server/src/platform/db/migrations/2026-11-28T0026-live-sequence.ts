import { sql, type Kysely } from 'kysely';

/**
 * Issue 21 §7: the live-update sequence of each trading account (docs/architecture.md "Live updates").
 *
 * `trading_accounts.live_seq` goes up by one in every transaction that changes the account: a trade placed, a
 * settlement batch that closed any of its trades, a void, any ledger entry. It is raised by the UPDATE of the account
 * row that the change makes anyway (the account row is locked to the end of the transaction), so per account the
 * numbers follow commit order: once a number is visible, every smaller one is too.
 * `trades.opened_seq` is the number of the transaction that placed the trade, `trades.live_seq` that of its latest
 * change (placed, then settled or voided); a socket's replay is the account's trades with live_seq above what it saw
 * (index trades_account_live).
 *
 * A void (any code path: the staff route, a confirmed void request) stamps its trade by the trigger below, which also
 * raises the account's number; a void is rare, so a row trigger costs nothing that matters. Settlement and place-trade
 * stamp their trades in their own statements (a row trigger there would cost every trade a statement).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table trading_accounts add column live_seq bigint not null default 0`.execute(db);
  await sql`
    alter table trades
      add column opened_seq bigint not null default 0,
      add column live_seq bigint not null default 0`.execute(db);
  await sql`create index trades_account_live on trades (account_id, live_seq)`.execute(db);
  await sql`
    create function trades_stamp_void() returns trigger language plpgsql as $$
    begin
      update trading_accounts set live_seq = live_seq + 1 where id = new.account_id
      returning live_seq into new.live_seq;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger trades_stamp_void before update of status on trades
    for each row when (old.status = 'active' and new.status = 'voided')
    execute function trades_stamp_void()`.execute(db);
}
