import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../db/index.js';

/**
 * Sign-in delays (D8 as amended by D20, issue 13 item 4; OWASP ASVS 5.0 V6.3). Nothing locks an account: failures are
 * counted per (e-mail as typed, address) and per address across all accounts. Past the free failures each further one
 * doubles the wait before the next attempt from that address is even looked at (base, 2·base, 4·base … up to the cap).
 * So failures from one address never stop the owner signing in from another, and one address cannot try many
 * accounts quickly either. Failures older than the window are forgotten; a successful sign-in clears its pair.
 */
export interface DelayPolicy {
  freeFailures: number;
  baseSeconds: number;
  maxSeconds: number;
  ipFreeFailures: number;
  windowMinutes: number;
}

export function delayPolicy(config: Config): DelayPolicy {
  return {
    freeFailures: config.LOGIN_FREE_FAILURES,
    baseSeconds: config.LOGIN_DELAY_BASE_SECONDS,
    maxSeconds: config.LOGIN_DELAY_MAX_SECONDS,
    ipFreeFailures: config.LOGIN_IP_FREE_FAILURES,
    windowMinutes: config.LOGIN_FAILURE_WINDOW_MINUTES,
  };
}

/** The wait after `failures` failures in a row, in seconds (0 while they are free). */
export function delayAfter(failures: number, free: number, policy: DelayPolicy): number {
  if (failures <= free) return 0;
  const exponent = Math.min(failures - free - 1, 40);
  return Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** exponent);
}

/** How many whole seconds this (e-mail, address) must still wait before an attempt is looked at; 0 = go ahead. */
export async function signInWait(db: Db, emailKey: string, ip: string, policy: DelayPolicy): Promise<number> {
  const window = sql<Date>`now() - make_interval(mins => ${policy.windowMinutes})`;
  const pair = await db
    .selectFrom('sign_in_failures')
    .select(['failures', sql<number>`extract(epoch from (now() - last_failed_at))`.as('age')])
    .where('email_key', '=', emailKey)
    .where('ip', '=', ip)
    .where('last_failed_at', '>', window)
    .executeTakeFirst();
  const byIp = await db
    .selectFrom('sign_in_ip_failures')
    .select(['failures', sql<number>`extract(epoch from (now() - last_failed_at))`.as('age')])
    .where('ip', '=', ip)
    .where('last_failed_at', '>', window)
    .executeTakeFirst();
  const left = (row: { failures: number; age: number } | undefined, free: number) =>
    row ? delayAfter(row.failures, free, policy) - Number(row.age) : 0;
  const wait = Math.max(left(pair, policy.freeFailures), left(byIp, policy.ipFreeFailures), 0);
  return wait > 0 ? Math.ceil(wait) : 0;
}

/**
 * Counts one failure (a wrong password, a wrong second-factor code, a refused address) for the pair and the address,
 * and for a known account its notice (shown at its next successful sign-in). Returns the pair's failures in a row.
 */
export async function recordSignInFailure(
  db: Db,
  policy: DelayPolicy,
  failure: { emailKey: string; ip: string; userId: string | null },
): Promise<number> {
  const stale = sql`now() - make_interval(mins => ${policy.windowMinutes})`;
  const row = await db
    .insertInto('sign_in_failures')
    .values({ email_key: failure.emailKey, ip: failure.ip, failures: 1, last_failed_at: sql`now()` as never })
    .onConflict((oc) =>
      oc.columns(['email_key', 'ip']).doUpdateSet({
        failures: sql`case when sign_in_failures.last_failed_at <= ${stale} then 1 else sign_in_failures.failures + 1 end`,
        last_failed_at: sql`now()`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('sign_in_ip_failures')
    .values({ ip: failure.ip, failures: 1, last_failed_at: sql`now()` as never })
    .onConflict((oc) =>
      oc.column('ip').doUpdateSet({
        failures: sql`case when sign_in_ip_failures.last_failed_at <= ${stale} then 1 else sign_in_ip_failures.failures + 1 end`,
        last_failed_at: sql`now()`,
      }),
    )
    .execute();
  if (failure.userId) {
    await db
      .insertInto('sign_in_notices')
      .values({ user_id: failure.userId, failures: 1, last_at: sql`now()` as never, last_ip: failure.ip })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          failures: sql`sign_in_notices.failures + 1`,
          last_at: sql`now()`,
          last_ip: failure.ip,
        }),
      )
      .execute();
  }
  return row.failures;
}

/** An attempt refused by a delay still goes into the account's notice (its owner sees every attempt). */
export async function noteRefusedAttempt(db: Db, emailKey: string, ip: string): Promise<void> {
  await sql`insert into sign_in_notices (user_id, failures, last_at, last_ip)
      select id, 1, now(), ${ip} from users where lower(email) = ${emailKey} and deleted_at is null
      on conflict (user_id) do update
        set failures = sign_in_notices.failures + 1, last_at = now(), last_ip = excluded.last_ip`.execute(db);
}

/** A successful sign-in: the pair starts again from zero (the address's count across accounts stays). */
export async function clearSignInFailures(db: Db, emailKey: string, ip: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email_key', '=', emailKey).where('ip', '=', ip).execute();
}

/** The failed attempts since the previous successful sign-in, taken (and forgotten) at this one. */
export async function takeSignInNotice(
  db: Db,
  userId: string,
): Promise<{ count: number; last_at: string; last_ip: string | null } | undefined> {
  const row = await db.deleteFrom('sign_in_notices').where('user_id', '=', userId).returningAll().executeTakeFirst();
  if (!row) return undefined;
  return { count: row.failures, last_at: new Date(row.last_at).toISOString(), last_ip: row.last_ip };
}

/**
 * `reset-password` lifts everything that slows this account down: its pairs, and the address counts of the addresses
 * those failures came from.
 */
export async function liftSignInDelays(db: Db, emailKey: string): Promise<void> {
  const pairs = await db.deleteFrom('sign_in_failures').where('email_key', '=', emailKey).returning('ip').execute();
  if (pairs.length > 0)
    await db
      .deleteFrom('sign_in_ip_failures')
      .where(
        'ip',
        'in',
        pairs.map((p) => p.ip),
      )
      .execute();
}
