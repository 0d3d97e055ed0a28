import { sql, type Kysely } from 'kysely';

/**
 * The external API's per-token rate limit (D13), kept in the database so that every server process counts the same
 * calls: `rate_tat` is the token's theoretical arrival time of the generic cell rate algorithm (one timestamp per
 * token, moved forward by 60 s / EXTERNAL_RATE_PER_MINUTE at each accepted call).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table affiliate_tokens add column rate_tat timestamptz`.execute(db);
}
