import { sql, type Kysely } from 'kysely';

/**
 * Issue 21 §2–§4, decisions.md D22.
 *
 * `leader_leases`: one row per single-leader job ('price-feed', 'postbacks'). The leader holds the row's lease: it
 * renews `expires_at` (database time) every third of the lease, and each take-over raises `fence` by one. Every write
 * the price-feed leader makes carries its fence and is refused by the database once another process has taken the
 * lease or it has expired (platform/bus/leader.ts, modules/prices/feed-store.ts). `locked` says that the holder also
 * holds the job's advisory lock, so a process that finds the lock free knows the holder's session ended and takes over
 * at once instead of waiting for the lease to run out.
 *
 * `watermark` (price-feed row): the time up to which every price tick is stored, written with the ticks in the same
 * statement; a tick at or before it is refused, and settlement decides only trades that expired at or before it.
 * It starts at the newest stored tick.
 *
 * `trades`: a new result, 'no_price' (D22's gap rule: no stored price within the published bound before the expiry;
 * the stake is returned), which has no close price.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leader_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('fence', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`'-infinity'`))
    .addColumn('locked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('watermark', 'timestamptz')
    .execute();
  await sql`
    insert into leader_leases (name, watermark)
    values ('price-feed', (select max(at) from price_ticks)), ('postbacks', null)`.execute(db);

  await sql`alter table trades drop constraint trades_status_check`.execute(db);
  await sql`alter table trades drop constraint trades_result_check`.execute(db);
  await sql`
    alter table trades add constraint trades_status_check
      check (status in ('active', 'won', 'lost', 'tie', 'no_price', 'voided'))`.execute(db);
  await sql`
    alter table trades add constraint trades_result_check check (
      (status = 'active' and settled_at is null)
      or (status in ('won', 'lost', 'tie') and settled_at is not null and close_price is not null
          and close_at is not null and profit_cents is not null)
      or (status = 'no_price' and settled_at is not null and close_price is null and close_at is null
          and profit_cents = 0)
      or (status = 'voided' and settled_at is not null and void_reason is not null))`.execute(db);
}
