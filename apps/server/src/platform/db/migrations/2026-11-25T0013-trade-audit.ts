import { sql, type Kysely } from 'kysely';

/**
 * The contract audit (issue 14): raw-tick pruning keeps the ticks around every trade's strike and expiry and its
 * close tick. These indexes make that check one short range scan per tick and window.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index trades_asset_strike on trades (asset, strike_at)`.execute(db);
  await sql`create index trades_asset_expiry on trades (asset, expires_at)`.execute(db);
  await sql`create index trades_asset_close on trades (asset, close_at) where close_at is not null`.execute(db);
}
