import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import { actorFromUser } from '../../platform/auth/actor.js';
import {
  ACCOUNT_MAX_WRONG_CODES,
  ACCOUNT_WRONG_CODES_WINDOW_SECONDS,
  CHALLENGE_MAX_CODES,
} from '../../platform/auth/two-factor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import { SignInDelayed, type RequestMeta } from './service.js';
import type { LiveChallenge } from './two-factor.js';

/**
 * Issue 20 §8: second-factor codes are counted before they are checked — per challenge (at most CHALLENGE_MAX_CODES
 * checked, however many calls race) and per account over all its challenges and addresses (ACCOUNT_MAX_WRONG_CODES an
 * hour). Used by the sign-in steps of two-factor.ts.
 */

/** An attempt refused before its code is checked: audited, then answered with `error`. */
async function refuseCode(
  deps: AppDeps,
  live: LiveChallenge,
  meta: RequestMeta,
  step: 'enroll' | 'otp',
  reason: 'too_many_codes' | 'account_limit',
  error: HttpError,
): Promise<never> {
  await writeAudit(deps.db, actorFromUser(live.user, meta.ip), {
    action: 'auth.2fa_failed',
    entityType: 'user',
    entityId: live.user.id,
    after: { step, refused: reason },
  });
  throw error;
}

/**
 * Counts one code sent with the challenge, before anything else looks at it (issue 20 §8). One statement increments
 * and returns, so however many calls race on one challenge, at most CHALLENGE_MAX_CODES of them go on to have a code
 * checked (those a sign-in delay refuses count too); the rest are answered 429, and the password must be typed again.
 */
export async function countChallengeCode(
  deps: AppDeps,
  live: LiveChallenge,
  meta: RequestMeta,
  step: 'enroll' | 'otp',
): Promise<void> {
  const challenge = await deps.db
    .updateTable('login_challenges')
    .set({ attempts: sql`attempts + 1` })
    .where('id', '=', live.id)
    .returning('attempts')
    .executeTakeFirst();
  if (!challenge) throw new HttpError(401, 'challenge_invalid');
  if (challenge.attempts > CHALLENGE_MAX_CODES)
    return refuseCode(deps, live, meta, step, 'too_many_codes', new HttpError(429, 'otp_attempts_exhausted'));
}

/**
 * Counts a code about to be checked toward the account's wrong codes of the last hour, over all its challenges and
 * addresses (issue 20 §8; a right code gives its count back: `codeWasRight`). Past ACCOUNT_MAX_WRONG_CODES every code
 * is refused, the right one too, with 429 and Retry-After until the hour is over.
 */
export async function countAccountCode(deps: AppDeps, live: LiveChallenge, meta: RequestMeta): Promise<void> {
  const window = sql`make_interval(secs => ${ACCOUNT_WRONG_CODES_WINDOW_SECONDS})`;
  const fresh = sql`(code_failures_since is null or code_failures_since <= now() - ${window})`;
  const counted = await deps.db
    .updateTable('two_factor')
    .set({
      code_failures: sql`case when ${fresh} then 1 else code_failures + 1 end`,
      code_failures_since: sql`case when ${fresh} then now() else code_failures_since end`,
    })
    .where('user_id', '=', live.user.id)
    .returning([
      'code_failures',
      sql<string>`ceil(extract(epoch from code_failures_since + ${window} - now()))::text`.as('seconds_left'),
    ])
    .executeTakeFirst();
  if (!counted) throw new HttpError(401, 'challenge_invalid');
  if (counted.code_failures > ACCOUNT_MAX_WRONG_CODES) {
    const wait = new SignInDelayed(Math.max(1, Number(counted.seconds_left)), 'otp_account_limited');
    return refuseCode(deps, live, meta, 'otp', 'account_limit', wait);
  }
}

/** A right code gives back the count `countAccountCode` took from the account's wrong codes. */
export async function codeWasRight(trx: Db, userId: string): Promise<void> {
  await trx
    .updateTable('two_factor')
    .set({ code_failures: sql`greatest(code_failures - 1, 0)` })
    .where('user_id', '=', userId)
    .execute();
}
