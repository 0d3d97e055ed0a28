import type { MeResponse, ProfileUpdate } from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import type { UserRow } from '../../platform/db/types.js';
import type { Mailer } from '../mail/mailer.js';
import { actorFromUser } from '../../platform/auth/actor.js';
import { emailTaken } from '../../platform/auth/users.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { HttpError, conflict } from '../../platform/http/errors.js';
import { findLink, issueLinkToken, revokeLinkTokens, useLink, VERIFY_EMAIL_SECONDS } from './link-tokens.js';
import { recheckPassword, toUser, type RequestMeta } from './service.js';

/**
 * Issue 22 §2: verified addresses. Registration (and a staff-created client login) sends a `verify_email` link (24 h,
 * single use); opening it sets users.email_verified_at. A client who changes the address gets the link at the NEW one
 * (auth_tokens.email) and users.email changes only when it is opened; the old address is told. Until the address is
 * verified, a withdrawal request and a top-up request answer 409 email_unverified.
 */

/** At most one verification mail a minute and ten a day per user (registration and e-mail change count too). */
export const RESEND_MIN_SECONDS = 60;
export const RESEND_PER_DAY = 10;

/** Issues a verify_email link for `email` and queues its mail, in the caller's transaction. */
export async function sendVerification(
  trx: Db,
  mail: Mailer,
  user: Pick<UserRow, 'id' | 'name' | 'language'>,
  email: string,
  ip: string | null,
): Promise<void> {
  const { token } = await issueLinkToken(trx, {
    purpose: 'verify_email',
    userId: user.id,
    email,
    seconds: VERIFY_EMAIL_SECONDS,
    ip,
  });
  await mail.enqueue(trx, {
    to: email,
    userId: user.id,
    template: 'verify_email',
    language: user.language,
    data: { name: user.name, link: mail.link('/verify-email', { token }) },
  });
}

/** The new address a client asked for and has not proven yet (its link is live), or null. */
export async function pendingEmail(db: Db, user: Pick<UserRow, 'id' | 'email'>): Promise<string | null> {
  const row = await db
    .selectFrom('auth_tokens')
    .select('email')
    .where('user_id', '=', user.id)
    .where('purpose', '=', 'verify_email')
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where(sql`lower(email)`, '!=', user.email.toLowerCase())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.email ?? null;
}

/** The user as stored now (the session cache may hold an older copy of the row). */
async function freshUser(db: Db, id: string): Promise<UserRow> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** GET /api/auth/me (and PUT /api/auth/profile's answer). */
export async function me(deps: AppDeps, userId: string): Promise<MeResponse> {
  const user = await freshUser(deps.db, userId);
  return {
    ...toUser(user),
    demo: deps.config.DEMO_DATA,
    business_timezone: deps.config.BUSINESS_TIMEZONE,
    email_verified: user.email_verified_at !== null,
    pending_email: await pendingEmail(deps.db, user),
    language: user.language,
    mail_opt_out: user.mail_opt_out,
    digest_opt_in: user.digest_opt_in,
  };
}

/** 409 email_unverified until the user's address is verified (the withdrawal and top-up requests, §2). */
export async function requireVerifiedEmail(db: Db, userId: string): Promise<void> {
  const row = await db.selectFrom('users').select('email_verified_at').where('id', '=', userId).executeTakeFirst();
  if (!row || row.email_verified_at === null) throw conflict('email_unverified');
}

/**
 * POST /api/auth/verify-email: the link proves the address it was sent to. A registration's link verifies the
 * account's address; an e-mail change's link replaces users.email (409 email_taken if another account took it
 * meanwhile). Other pending verification links of the user end.
 */
export async function verifyEmail(deps: AppDeps, token: string, meta: RequestMeta): Promise<{ email: string }> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const link = await findLink(trx, token, 'verify_email', true);
      const user = link.user;
      const email = link.email ?? user.email;
      const change = email.toLowerCase() !== user.email.toLowerCase();
      if (change && (await emailTaken(trx, email, user.id))) throw conflict('email_taken');
      await useLink(trx, link.id);
      await revokeLinkTokens(trx, user.id, 'verify_email');
      await trx
        .updateTable('users')
        .set({
          ...(change ? { email } : {}),
          email_verified_at: sql`now()`,
          updated_at: sql`now()`,
        })
        .where('id', '=', user.id)
        .execute();
      if (change && user.role === 'client') {
        // The CRM's client record follows its login's address.
        await trx
          .updateTable('clients')
          .set({ email, updated_at: sql`now()` })
          .where('user_id', '=', user.id)
          .execute();
      }
      await writeAudit(trx, actorFromUser(user, meta.ip), {
        action: change ? 'auth.email_changed' : 'auth.email_verified',
        entityType: 'user',
        entityId: user.id,
        ...(change ? { before: { email: user.email } } : {}),
        after: { email },
      });
      return { email };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('email_taken');
    throw err;
  }
}

/**
 * The resend limits, counted from the user's verify_email links (registration, e-mail change and resends alike):
 * 429 resend_too_soon within a minute of the last, 429 resend_daily_limit past ten in 24 hours (with Retry-After).
 * Call with the user's row locked, so parallel requests are counted one at a time.
 */
async function checkResendLimits(trx: Db, userId: string): Promise<void> {
  const row = await trx
    .selectFrom('auth_tokens')
    .select([
      sql<string>`count(*)`.as('n'),
      sql<number | null>`extract(epoch from (now() - max(created_at)))`.as('since_last'),
      sql<number | null>`extract(epoch from (min(created_at) + interval '1 day' - now()))`.as('until_oldest_ages'),
    ])
    .where('user_id', '=', userId)
    .where('purpose', '=', 'verify_email')
    .where(sql<boolean>`created_at > now() - interval '1 day'`)
    .executeTakeFirstOrThrow();
  const sinceLast = row.since_last === null ? null : Number(row.since_last);
  if (sinceLast !== null && sinceLast < RESEND_MIN_SECONDS) {
    const seconds = Math.max(1, Math.ceil(RESEND_MIN_SECONDS - sinceLast));
    throw new HttpError(429, 'resend_too_soon', { seconds }, seconds);
  }
  if (Number(row.n) >= RESEND_PER_DAY) {
    const seconds = Math.max(1, Math.ceil(Number(row.until_oldest_ages ?? 0)));
    throw new HttpError(429, 'resend_daily_limit', {}, seconds);
  }
}

async function lockUser(trx: Db, id: string): Promise<UserRow> {
  return trx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/**
 * POST /api/auth/verify-email/resend: a new link to the address waiting to be proven — the pending new address of an
 * e-mail change, else the account's own unverified one (409 email_already_verified when there is none).
 */
export async function resendVerification(deps: AppDeps, userId: string, meta: RequestMeta): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const user = await lockUser(trx, userId);
    const target = (await pendingEmail(trx, user)) ?? (user.email_verified_at === null ? user.email : null);
    if (target === null) throw conflict('email_already_verified');
    await checkResendLimits(trx, user.id);
    await sendVerification(trx, deps.mail, user, target, meta.ip);
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: 'auth.verify_email_resend',
      entityType: 'user',
      entityId: user.id,
      after: { pending_change: target.toLowerCase() !== user.email.toLowerCase() },
    });
  });
}

/**
 * POST /api/auth/email-change (clients): the current password, then a link to the new address (older change links
 * end) and a notice to the old one. The resend limits apply, so the route cannot be used to flood a mailbox.
 */
export async function requestEmailChange(
  deps: AppDeps,
  signedIn: UserRow,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<void> {
  const current = await freshUser(deps.db, signedIn.id);
  await recheckPassword(deps, current, input.password, meta, {
    action: 'auth.login_failed',
    after: { reason: 'email_change_password_wrong' },
    code: 'password_wrong',
  });
  if (input.email.toLowerCase() === current.email.toLowerCase() || (await emailTaken(deps.db, input.email))) {
    throw conflict('email_taken');
  }
  await deps.db.transaction().execute(async (trx) => {
    const user = await lockUser(trx, current.id);
    await checkResendLimits(trx, user.id);
    // Only the newest change waits; an older change's link (and an unused registration link) ends.
    await revokeLinkTokens(trx, user.id, 'verify_email');
    await sendVerification(trx, deps.mail, user, input.email, meta.ip);
    await deps.mail.enqueue(trx, {
      to: user.email,
      userId: user.id,
      template: 'email_changed',
      language: user.language,
      data: { name: user.name, new_email: input.email },
    });
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: 'auth.email_change_requested',
      entityType: 'user',
      entityId: user.id,
      before: { email: user.email },
      after: { new_email: input.email },
    });
  });
}

/** PUT /api/auth/profile: the mail settings of the signed-in user (any role); answers /api/auth/me's shape. */
export async function updateProfile(
  deps: AppDeps,
  signedIn: UserRow,
  input: ProfileUpdate,
  meta: RequestMeta,
): Promise<MeResponse> {
  await deps.db.transaction().execute(async (trx) => {
    const before = await lockUser(trx, signedIn.id);
    const set = {
      ...(input.language !== undefined ? { language: input.language } : {}),
      ...(input.mail_opt_out !== undefined ? { mail_opt_out: input.mail_opt_out } : {}),
      ...(input.digest_opt_in !== undefined ? { digest_opt_in: input.digest_opt_in } : {}),
    };
    await trx
      .updateTable('users')
      .set({ ...set, updated_at: sql`now()` })
      .where('id', '=', before.id)
      .execute();
    await writeAudit(trx, actorFromUser(before, meta.ip), {
      action: 'user.profile_update',
      entityType: 'user',
      entityId: before.id,
      before: Object.fromEntries(Object.keys(set).map((k) => [k, before[k as keyof typeof set]])),
      after: set,
    });
  });
  return me(deps, signedIn.id);
}
