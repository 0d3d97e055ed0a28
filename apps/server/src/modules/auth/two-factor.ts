import { isStaffRole, type FailedAttempts } from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import type { UserRow } from '../../platform/db/types.js';
import { actorFromUser, type Actor } from '../../platform/auth/actor.js';
import { revokeUserSessions } from '../../platform/auth/sessions.js';
import { delayPolicy, recordSignInFailure } from '../../platform/auth/sign-in-delays.js';
import {
  CHALLENGE_SECONDS,
  hashChallenge,
  hashRecoveryCode,
  looksLikeTotp,
  newChallengeToken,
  newRecoveryCodes,
  newTotpSecret,
  totpStep,
} from '../../platform/auth/two-factor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError, conflict, forbidden } from '../../platform/http/errors.js';
import { checkSignInDelay, completeSignIn, emailKeyOf, recheckPassword, type RequestMeta } from './service.js';
import { codeWasRight, countAccountCode, countChallengeCode } from './code-attempts.js';
import type { Mailer } from '../mail/mailer.js';

/**
 * Staff two-factor sign-in (issue 13 item 1). A right password of a staff member who is enrolled, or whose role is in
 * REQUIRE_2FA_ROLES, earns a challenge instead of a session: a random token, stored hashed, bound to that user and to
 * one step ('enroll' or 'otp'), single use, five minutes. The TOTP secret is kept encrypted under the card key
 * (platform/crypto/vault.ts, its own purpose) and leaves the server once: in the enrollment answer.
 */

const SECRET_PURPOSE = 'totp';

/** Which second step a staff member's sign-in needs: 'otp' (enrolled), 'enroll' (must enroll), or none. */
export async function secondFactorStep(deps: AppDeps, user: UserRow): Promise<'otp' | 'enroll' | null> {
  if (!isStaffRole(user.role)) return null;
  const row = await deps.db
    .selectFrom('two_factor')
    .select('confirmed_at')
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (row?.confirmed_at) return 'otp';
  return deps.config.requireTwoFactorRoles.includes(user.role) ? 'enroll' : null;
}

export async function createChallenge(db: Db, userId: string, purpose: 'enroll' | 'otp', ip: string): Promise<string> {
  const token = newChallengeToken();
  await db
    .insertInto('login_challenges')
    .values({
      token_hash: hashChallenge(token),
      user_id: userId,
      purpose,
      expires_at: sql<Date>`now() + make_interval(secs => ${CHALLENGE_SECONDS})` as never,
      used_at: null,
      ip,
    })
    .execute();
  // Old challenges are of no use to anyone: drop the ones that ran out.
  await db
    .deleteFrom('login_challenges')
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  return token;
}

export interface LiveChallenge {
  id: string;
  user: UserRow;
}

/** A challenge that is unused, unexpired, of this step and of a live user; else 401 (which of these is not told). */
async function liveChallenge(deps: AppDeps, token: string, purpose: 'enroll' | 'otp'): Promise<LiveChallenge> {
  const row = await deps.db
    .selectFrom('login_challenges as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['c.id as challenge_id'])
    .selectAll('u')
    .where('c.token_hash', '=', hashChallenge(token))
    .where('c.purpose', '=', purpose)
    .where('c.used_at', 'is', null)
    .where('c.expires_at', '>', sql<Date>`now()`)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new HttpError(401, 'challenge_invalid');
  const { challenge_id, ...user } = row;
  return { id: challenge_id, user: user as UserRow };
}

/** Marks the challenge used; false when another request used it first (then the caller's transaction is void). */
async function consumeChallenge(trx: Db, id: string): Promise<boolean> {
  const row = await trx
    .updateTable('login_challenges')
    .set({ used_at: sql`now()` })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A wrong code: it slows the (e-mail, address) pair like a wrong password and is audited (already counted). */
async function wrongCode(
  deps: AppDeps,
  user: UserRow,
  meta: RequestMeta,
  step: 'enroll' | 'otp' | 'setup',
  status: 400 | 401 = 401,
): Promise<never> {
  await deps.db.transaction().execute(async (trx) => {
    const failures = await recordSignInFailure(trx, delayPolicy(deps.config), {
      emailKey: emailKeyOf(user.email),
      ip: meta.ip,
      userId: user.id,
    });
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: 'auth.2fa_failed',
      entityType: 'user',
      entityId: user.id,
      after: { step, failures_in_a_row: failures },
    });
  });
  throw new HttpError(status, 'otp_invalid');
}

function secretOf(deps: AppDeps, stored: string): string {
  return deps.vault.decryptSecret(stored, SECRET_PURPOSE);
}

/** Starts (or restarts) an enrollment: a new secret, stored encrypted and unconfirmed. Refused once confirmed. */
async function startEnrollment(deps: AppDeps, user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
  const { secret, otpauthUrl } = newTotpSecret(user.email);
  const secretEnc = deps.vault.encryptSecret(secret, SECRET_PURPOSE);
  const row = await deps.db
    .insertInto('two_factor')
    .values({ user_id: user.id, secret_enc: secretEnc, confirmed_at: null, last_step: null })
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({ secret_enc: secretEnc, last_step: null })
        .where('two_factor.confirmed_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst();
  if (!row) throw conflict('two_factor_already_enabled');
  return { secret, otpauth_url: otpauthUrl };
}

/**
 * Confirms a pending enrollment with a code from the authenticator, in the caller's transaction: the enrollment is
 * confirmed, the code's step used, ten recovery codes made (stored hashed) and the enrollment audited.
 * Returns the recovery codes, or null for a wrong code.
 */
async function confirmEnrollment(
  trx: Db,
  deps: AppDeps,
  user: UserRow,
  code: string,
  meta: RequestMeta,
): Promise<string[] | null> {
  const pending = await trx
    .selectFrom('two_factor')
    .select(['secret_enc', 'confirmed_at'])
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (!pending) throw conflict('two_factor_not_started');
  if (pending.confirmed_at) throw conflict('two_factor_already_enabled');
  const step = totpStep(secretOf(deps, pending.secret_enc), code.replace(/\s/g, ''));
  if (step === null) return null;
  const confirmed = await trx
    .updateTable('two_factor')
    .set({ confirmed_at: sql`now()`, last_step: step })
    .where('user_id', '=', user.id)
    .where('confirmed_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  if (!confirmed) throw conflict('two_factor_already_enabled');
  const codes = newRecoveryCodes();
  await trx.deleteFrom('two_factor_recovery_codes').where('user_id', '=', user.id).execute();
  await trx
    .insertInto('two_factor_recovery_codes')
    .values(codes.map((c) => ({ user_id: user.id, code_hash: hashRecoveryCode(c), used_at: null })))
    .execute();
  await writeAudit(trx, actorFromUser(user, meta.ip), {
    action: 'auth.2fa_enroll',
    entityType: 'user',
    entityId: user.id,
    after: { recovery_codes: codes.length },
  });
  // Issue 22 §5: the owner hears of it (an enrollment they did not make means someone has their password).
  await deps.mail.enqueue(trx, {
    to: user.email,
    userId: user.id,
    template: 'two_factor_enrolled',
    language: 'ru',
    data: { name: user.name },
  });
  return codes;
}

/** Why a confirmation in a transaction failed with a wrong code (the transaction is rolled back first). */
class WrongCode extends Error {}

/**
 * At start-up: the open sessions of staff whose role must use two-factor sign-in and who have not enrolled end, so
 * "enroll at the next sign-in before anything else works" holds for sessions opened before the requirement too.
 * Returns how many sessions ended.
 */
export async function endSessionsOfUnenrolled(db: Db, roles: readonly string[]): Promise<number> {
  if (roles.length === 0) return 0;
  const ended = await db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()` })
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('user_id', 'in', (eb) =>
      eb
        .selectFrom('users as u')
        .leftJoin('two_factor as f', 'f.user_id', 'u.id')
        .select('u.id')
        .where('u.role', 'in', roles as never)
        .where('f.confirmed_at', 'is', null),
    )
    .returning('id')
    .execute();
  return ended.length;
}

// ---- The sign-in steps (public routes; the challenge is the credential) ----

/** POST /api/auth/2fa/enroll: the secret of a must-enroll user's challenge. */
export async function enrollWithChallenge(
  deps: AppDeps,
  challenge: string,
  meta: RequestMeta,
): Promise<{ secret: string; otpauth_url: string }> {
  const live = await liveChallenge(deps, challenge, 'enroll');
  await checkSignInDelay(deps, emailKeyOf(live.user.email), meta);
  return startEnrollment(deps, live.user);
}

export interface SecondFactorSession {
  token: string;
  user: UserRow;
  failedAttempts: FailedAttempts | undefined;
}

/** POST /api/auth/2fa/confirm: the first code proves the authenticator; the answer is a session and recovery codes. */
export async function confirmWithChallenge(
  deps: AppDeps,
  input: { challenge: string; code: string },
  meta: RequestMeta,
): Promise<SecondFactorSession & { recoveryCodes: string[] }> {
  const live = await liveChallenge(deps, input.challenge, 'enroll');
  await countChallengeCode(deps, live, meta, 'enroll');
  await checkSignInDelay(deps, emailKeyOf(live.user.email), meta);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const codes = await confirmEnrollment(trx, deps, live.user, input.code, meta);
      if (!codes) throw new WrongCode();
      if (!(await consumeChallenge(trx, live.id))) throw new HttpError(401, 'challenge_invalid');
      const session = await completeSignIn(trx, deps, live.user, meta, {
        action: 'auth.2fa_login',
        after: { method: 'totp', enrollment: true },
      });
      return { ...session, user: live.user, recoveryCodes: codes };
    });
  } catch (err) {
    if (err instanceof WrongCode) return wrongCode(deps, live.user, meta, 'enroll');
    throw err;
  }
}

/**
 * POST /api/auth/login/otp: a TOTP code (accepted once: its step must be newer than the last accepted one) or a
 * recovery code (each once) completes the sign-in.
 */
export async function loginWithCode(
  deps: AppDeps,
  input: { challenge: string; code: string },
  meta: RequestMeta,
): Promise<SecondFactorSession> {
  const live = await liveChallenge(deps, input.challenge, 'otp');
  const user = live.user;
  await countChallengeCode(deps, live, meta, 'otp');
  await checkSignInDelay(deps, emailKeyOf(user.email), meta);
  // The address may have left the whitelist since the password step: the same answer as a wrong code. Checked
  // before the account's count, so that calls from an address the whitelist refuses cannot use up the account's
  // wrong codes of the hour and lock its owner out (issue 20 §8, review).
  if (!(await deps.whitelist.allows(meta.ip))) return wrongCode(deps, user, meta, 'otp');
  await countAccountCode(deps, live, meta);
  const code = input.code.replace(/\s/g, '');
  try {
    return await deps.db.transaction().execute(async (trx) => {
      let method: 'totp' | 'recovery_code';
      if (looksLikeTotp(code)) {
        method = 'totp';
        const enrolled = await trx
          .selectFrom('two_factor')
          .select('secret_enc')
          .where('user_id', '=', user.id)
          .where('confirmed_at', 'is not', null)
          .executeTakeFirst();
        if (!enrolled) throw new HttpError(401, 'challenge_invalid');
        const step = totpStep(secretOf(deps, enrolled.secret_enc), code);
        if (step === null) throw new WrongCode();
        // Accepted once: only a step newer than the last accepted one moves it (a replay, or an older code, does not).
        const used = await trx
          .updateTable('two_factor')
          .set({ last_step: step })
          .where('user_id', '=', user.id)
          .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', String(step))]))
          .returning('user_id')
          .executeTakeFirst();
        if (!used) throw new WrongCode();
      } else {
        method = 'recovery_code';
        const used = await trx
          .updateTable('two_factor_recovery_codes')
          .set({ used_at: sql`now()` })
          .where('user_id', '=', user.id)
          .where('code_hash', '=', hashRecoveryCode(code))
          .where('used_at', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!used) throw new WrongCode();
      }
      if (!(await consumeChallenge(trx, live.id))) throw new HttpError(401, 'challenge_invalid');
      await codeWasRight(trx, user.id);
      const left =
        method === 'recovery_code'
          ? Number(
              (
                await trx
                  .selectFrom('two_factor_recovery_codes')
                  .select((eb) => eb.fn.countAll<string>().as('n'))
                  .where('user_id', '=', user.id)
                  .where('used_at', 'is', null)
                  .executeTakeFirstOrThrow()
              ).n,
            )
          : undefined;
      const session = await completeSignIn(trx, deps, user, meta, {
        action: 'auth.2fa_login',
        after: { method, ...(left !== undefined ? { recovery_codes_left: left } : {}) },
      });
      return { ...session, user };
    });
  } catch (err) {
    if (err instanceof WrongCode) return wrongCode(deps, user, meta, 'otp');
    throw err;
  }
}

// ---- Voluntary enrollment from the user menu (signed in) ----

export async function twoFactorStatus(
  deps: AppDeps,
  user: UserRow,
): Promise<{ enabled: boolean; required: boolean; recovery_codes_left: number }> {
  const row = await deps.db
    .selectFrom('two_factor')
    .select('confirmed_at')
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  const left = await deps.db
    .selectFrom('two_factor_recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', user.id)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    enabled: Boolean(row?.confirmed_at),
    required: isStaffRole(user.role) && deps.config.requireTwoFactorRoles.includes(user.role),
    recovery_codes_left: row?.confirmed_at ? Number(left.n) : 0,
  };
}

/** POST /api/auth/2fa/setup: the current password again (a borrowed session must not enroll its own device). */
export async function startSetup(
  deps: AppDeps,
  user: UserRow,
  password: string,
  meta: RequestMeta,
): Promise<{ secret: string; otpauth_url: string }> {
  if (!isStaffRole(user.role)) throw forbidden('two_factor_staff_only');
  await recheckPassword(deps, user, password, meta, {
    action: 'auth.2fa_failed',
    after: { step: 'setup_password' },
    code: 'password_invalid',
  });
  return startEnrollment(deps, user);
}

/** POST /api/auth/2fa/setup/confirm: the first code; answers the recovery codes, once. The session goes on. */
export async function confirmSetup(deps: AppDeps, user: UserRow, code: string, meta: RequestMeta): Promise<string[]> {
  if (!isStaffRole(user.role)) throw forbidden('two_factor_staff_only');
  await checkSignInDelay(deps, emailKeyOf(user.email), meta);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const codes = await confirmEnrollment(trx, deps, user, code, meta);
      if (!codes) throw new WrongCode();
      return codes;
    });
  } catch (err) {
    if (err instanceof WrongCode) return wrongCode(deps, user, meta, 'setup', 400);
    throw err;
  }
}

/**
 * `npm run admin -- reset-2fa <email>` (a lost device): the enrollment, its recovery codes and open challenges are
 * removed and the user's sessions end; audited. Their next sign-in enrolls again if their role requires it.
 */
export async function resetTwoFactor(db: Db, userId: string, actor: Actor, mail?: Mailer): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('two_factor')
      .where('user_id', '=', userId)
      .returning('confirmed_at')
      .execute();
    await trx.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
    await trx.deleteFrom('login_challenges').where('user_id', '=', userId).execute();
    await revokeUserSessions(trx, userId);
    await writeAudit(trx, actor, {
      action: 'auth.2fa_reset',
      entityType: 'user',
      entityId: userId,
      after: { was_enrolled: removed.some((r) => r.confirmed_at !== null) },
    });
    // Issue 22 §5: the owner is told their two-factor sign-in was removed, and by whom.
    const user = await trx.selectFrom('users').select(['email', 'name']).where('id', '=', userId).executeTakeFirst();
    if (mail && user) {
      await mail.enqueue(trx, {
        to: user.email,
        userId,
        template: 'two_factor_reset',
        language: 'ru',
        data: { name: user.name, by: actor.name },
      });
    }
    return removed.length > 0;
  });
}
