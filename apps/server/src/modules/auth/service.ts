import {
  departmentOfRole,
  type FailedAttempts,
  normalisePhone,
  type RegisterClientRequest,
  type RegisterStaffRequest,
  type User,
} from '@brokerage/shared';
import { emailTaken } from '../../platform/auth/users.js';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { UserRow } from '../../platform/db/types.js';
import { actorFromUser, type Actor } from '../../platform/auth/actor.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import { createSession } from '../../platform/auth/sessions.js';
import {
  clearSignInFailures,
  delayPolicy,
  noteRefusedAttempt,
  recordSignInFailure,
  signInWait,
  takeSignInNotice,
} from '../../platform/auth/sign-in-delays.js';
import type { Db } from '../../platform/db/index.js';
import { createChallenge, secondFactorStep } from './two-factor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError, conflict, forbidden } from '../../platform/http/errors.js';
import type { ErrorCode } from '../../platform/http/messages.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { isStaffRole } from '@brokerage/shared';
import { enqueuePostback } from '../postbacks/outbox.js';
import { sendVerification } from './email-verification.js';
import { INVITED_PASSWORD_HASH, sendInvitation } from './invitations.js';
import { mailLanguageOf } from './link-tokens.js';
import { openTradingAccount } from '../trading/service.js';

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    platform_id: row.platform_id,
    name: row.name,
    email: row.email,
    role: row.role,
    department: row.department,
    phone: row.phone,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function digitsOf(phone: string): string {
  return phone.replace(/\D/g, '');
}

export interface RequestMeta {
  ip: string;
  userAgent: string | undefined;
}

/** A refusal while a sign-in delay runs: 429 with Retry-After (the route sets the header from `seconds`). */
export class SignInDelayed extends HttpError {
  constructor(
    readonly seconds: number,
    code: 'login_delayed' | 'otp_account_limited' = 'login_delayed',
  ) {
    super(429, code, { seconds });
  }
}

/** What a right password earns: a session, or (staff with two-factor sign-in) a challenge for the next step. */
export type LoginOutcome =
  | { kind: 'session'; token: string; user: UserRow; failedAttempts?: FailedAttempts }
  | { kind: 'enroll' | 'otp'; challenge: string; user: UserRow };

/** The e-mail as counted by the sign-in delays: trimmed, lower case. */
export const emailKeyOf = (email: string) => email.trim().toLowerCase();

/**
 * Refuses with 429 while a sign-in delay runs for this (e-mail, address) or this address. The answer depends only on
 * the counters of what was typed, so an unknown e-mail and a known one are refused alike.
 */
export async function checkSignInDelay(deps: AppDeps, emailKey: string, meta: RequestMeta): Promise<void> {
  const wait = await signInWait(deps.db, emailKey, meta.ip, delayPolicy(deps.config));
  if (wait <= 0) return;
  const anonymous: Actor = { id: null, name: emailKey, role: 'system', department: null, ip: meta.ip };
  await deps.db.transaction().execute(async (trx) => {
    await noteRefusedAttempt(trx, emailKey, meta.ip);
    await writeAudit(trx, anonymous, {
      action: 'auth.login_failed',
      entityType: 'login',
      entityId: emailKey,
      after: { reason: 'delayed', wait_seconds: wait },
    });
  });
  throw new SignInDelayed(wait);
}

/**
 * Sign-in (decisions.md D8 as amended by D20). An unknown e-mail and a wrong password get the same answer after the
 * same work; failures slow down the (e-mail, address) pair and the address (platform/auth/sign-in-delays.ts) but never
 * lock the account. Staff must also come from an address the whitelist allows; from any other address a staff
 * account gets the wrong-password answer whether the password is right or wrong (the audit row tells which).
 * A right password of a staff member who uses (or must use) two-factor sign-in gives a challenge, not a session.
 */
export async function login(
  deps: AppDeps,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<LoginOutcome> {
  const { db } = deps;
  const emailKey = emailKeyOf(input.email);
  const anonymous: Actor = { id: null, name: emailKey, role: 'system', department: null, ip: meta.ip };

  await checkSignInDelay(deps, emailKey, meta);

  const user = await db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', emailKey)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  // An invited member (issue 22 §4) has no password yet: no password signs in before the invitation is accepted,
  // after the same work as an unknown address.
  const ok =
    user && user.invited_at === null
      ? await verifyPassword(user.password_hash, input.password)
      : (await verifyPassword(await dummyPasswordHash(), input.password), false);
  // A staff account asked for from outside a non-empty whitelist is refused whatever the password, after the same
  // work, so such an address learns nothing about the password. It also counts as a failure, right password or not:
  // were only wrong ones counted, when the delay starts would tell a right guess from a wrong one.
  const outsideWhitelist = user !== undefined && isStaffRole(user.role) && !(await deps.whitelist.allows(meta.ip));

  if (!user || !ok || outsideWhitelist) {
    await db.transaction().execute(async (trx) => {
      const failures = await recordSignInFailure(trx, delayPolicy(deps.config), {
        emailKey,
        ip: meta.ip,
        userId: user?.id ?? null,
      });
      if (outsideWhitelist) {
        // One row: the refused access. Whether the password was right is for the superadmin reading the log.
        await writeAudit(trx, actorFromUser(user, meta.ip), {
          action: 'access.denied',
          entityType: 'route',
          entityId: 'POST /api/auth/login',
          after: { reason: 'ip_not_allowed', credentials_correct: ok, failures_in_a_row: failures },
        });
      } else {
        await writeAudit(trx, user ? actorFromUser(user, meta.ip) : anonymous, {
          action: 'auth.login_failed',
          entityType: 'login',
          entityId: emailKey,
          after: { reason: 'bad_credentials', failures_in_a_row: failures },
        });
      }
    });
    // Outside the whitelist a staff sign-in gets exactly the wrong-password answer (issue 9 finding 6, D8): the address
    // learns neither that the account exists nor whether the password was right.
    throw new HttpError(401, 'login_invalid');
  }

  // Two-factor sign-in (issue 13 item 1): staff enrolled, or of a role that must be. The pair's failures are not
  // cleared by the password alone, so wrong codes keep slowing down whoever knows it.
  if (isStaffRole(user.role)) {
    const step = await secondFactorStep(deps, user);
    if (step) return { kind: step, challenge: await createChallenge(db, user.id, step, meta.ip), user };
  }

  const { token, failedAttempts } = await db
    .transaction()
    .execute((trx) => completeSignIn(trx, deps, user, meta, { action: 'auth.login' }));
  return { kind: 'session', token, user, ...(failedAttempts ? { failedAttempts } : {}) };
}

/**
 * A signed-in user types their password again before a sensitive change (two-factor setup, an e-mail change): refused
 * while a sign-in delay runs, and a wrong password counts as a sign-in failure of that address (audited with
 * `failure`), then 400 `code` — not 401, which would sign the browser out.
 */
export async function recheckPassword(
  deps: AppDeps,
  user: UserRow,
  password: string,
  meta: RequestMeta,
  failure: { action: 'auth.login_failed' | 'auth.2fa_failed'; after: Record<string, unknown>; code: ErrorCode },
): Promise<void> {
  await checkSignInDelay(deps, emailKeyOf(user.email), meta);
  if (await verifyPassword(user.password_hash, password)) return;
  await deps.db.transaction().execute(async (trx) => {
    const failures = await recordSignInFailure(trx, delayPolicy(deps.config), {
      emailKey: emailKeyOf(user.email),
      ip: meta.ip,
      userId: user.id,
    });
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: failure.action,
      entityType: 'user',
      entityId: user.id,
      after: { ...failure.after, failures_in_a_row: failures },
    });
  });
  throw new HttpError(400, failure.code);
}

/**
 * The end of every successful sign-in, in the caller's transaction: the pair's failures are cleared, the sign-in is
 * audited, the session created, and the failed attempts since the previous sign-in are taken for the answer.
 */
export async function completeSignIn(
  trx: Db,
  deps: AppDeps,
  user: UserRow,
  meta: RequestMeta,
  audit: { action: 'auth.login' | 'auth.2fa_login'; after?: Record<string, unknown> },
): Promise<{ token: string; failedAttempts: FailedAttempts | undefined }> {
  await clearSignInFailures(trx, emailKeyOf(user.email), meta.ip);
  await trx
    .updateTable('users')
    .set({ last_login_at: sql`now()` })
    .where('id', '=', user.id)
    .execute();
  const failedAttempts = await takeSignInNotice(trx, user.id);
  await noteNewDevice(trx, deps, user, meta);
  await writeAudit(trx, actorFromUser(user, meta.ip), {
    action: audit.action,
    entityType: 'user',
    entityId: user.id,
    ...(audit.after ? { after: audit.after } : {}),
  });
  const token = await createSession(trx, user, deps.sessionPolicy, meta);
  return { token, failedAttempts };
}

/** Sign-ins from an (address, browser) pair the user has not used for this long are mailed about (issue 22 §5). */
export const NEW_DEVICE_DAYS = 90;

/**
 * `new_sign_in`: a session from an (ip, user agent) pair this user has not signed in from in the last 90 days. Not for
 * the very first sign-in (no last_login_at yet; a registration counts as one).
 */
async function noteNewDevice(trx: Db, deps: AppDeps, user: UserRow, meta: RequestMeta): Promise<void> {
  if (user.last_login_at === null) return;
  const userAgent = meta.userAgent?.slice(0, 300) ?? null;
  const seen = await trx
    .selectFrom('sessions')
    .select('id')
    .where('user_id', '=', user.id)
    .where('ip', '=', meta.ip)
    .where(sql<boolean>`user_agent is not distinct from ${userAgent}`)
    .where('created_at', '>', sql<Date>`now() - make_interval(days => ${NEW_DEVICE_DAYS})`)
    .executeTakeFirst();
  if (seen) return;
  await deps.mail.enqueue(trx, {
    to: user.email,
    userId: user.id,
    template: 'new_sign_in',
    language: mailLanguageOf(user),
    data: { name: user.name, ip: meta.ip, device: userAgent ?? '', at: new Date().toISOString() },
  });
}

export async function logout(deps: AppDeps, sessionId: string, actor: Actor): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', sessionId)
      .execute();
    await writeAudit(trx, actor, { action: 'auth.logout', entityType: 'user', entityId: actor.id });
  });
}

/**
 * Staff creation from the staff page; only a superadmin may create another superadmin. Without a password (issue 22
 * §4) the member is invited: an unusable password hash, invited_at set, and a 72 h invitation link by e-mail.
 */
export async function registerStaff(
  deps: AppDeps,
  input: RegisterStaffRequest,
  actor: Actor,
): Promise<{ user: UserRow; invitationExpiresAt: Date | null }> {
  if (input.role === 'superadmin' && actor.role !== 'superadmin') throw forbidden('cannot_create_superadmin');
  if (await emailTaken(deps.db, input.email)) throw conflict('email_taken');
  const invite = input.password === undefined;
  const passwordHash = input.password === undefined ? INVITED_PASSWORD_HASH : await hashPassword(input.password);
  const create = deps.db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({
        email: input.email,
        name: input.name,
        role: input.role,
        department: departmentOfRole(input.role),
        phone: null,
        password_hash: passwordHash,
        deleted_at: null,
        last_login_at: null,
        ...(invite ? { invited_at: sql`now()` as never } : {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const invitationExpiresAt = invite ? await sendInvitation(trx, deps, user, actor) : null;
    await writeAudit(trx, actor, {
      action: 'user.create',
      entityType: 'user',
      entityId: user.id,
      after: { name: user.name, email: user.email, role: user.role, ...(invite ? { invited: true } : {}) },
    });
    return { user, invitationExpiresAt };
  });
  return create.catch((err: unknown) => {
    // Two requests raced for the same e-mail: the unique index decided.
    if (isUniqueViolation(err)) throw conflict('email_taken');
    throw err;
  });
}

/**
 * Public client registration (client-platform.md §2.3, §8): creates the user, its client record in the CRM
 * (status new, source website) and its trading account with balance 0, in one transaction. A lead the CRM already holds under the same e-mail is linked instead of duplicated.
 */
export async function registerClient(
  deps: AppDeps,
  input: RegisterClientRequest,
  meta: RequestMeta,
): Promise<{ token: string; user: UserRow }> {
  const { db } = deps;
  const phone = input.phone?.trim() ?? '';
  const phoneDigits = digitsOf(phone);
  // D17: a lead's phone is compared as E.164 (what was typed is kept for display).
  const phoneE164 = normalisePhone(phone, deps.config.DEFAULT_PHONE_REGION);
  if (await emailTaken(deps.db, input.email)) throw conflict('email_taken');

  const existingLead = await db
    .selectFrom('clients')
    .select(['id', 'phone'])
    .where(sql`lower(email)`, '=', input.email)
    .where('user_id', 'is', null)
    .orderBy('id')
    .executeTakeFirst();

  if (phoneDigits) {
    const phoneUser = await db
      .selectFrom('users')
      .select('id')
      .where('deleted_at', 'is', null)
      .where(sql`regexp_replace(coalesce(phone, ''), '\\D', '', 'g')`, '=', phoneDigits)
      .executeTakeFirst();
    if (phoneUser) throw conflict('phone_taken_user');
    const phoneClient = await db
      .selectFrom('clients')
      .select('id')
      .where((eb) =>
        eb.or([
          eb(sql`regexp_replace(phone, '\\D', '', 'g')`, '=', phoneDigits),
          ...(phoneE164 ? [eb('phone_e164', '=', phoneE164)] : []),
        ]),
      )
      .$if(existingLead !== undefined, (q) => q.where('id', '!=', existingLead!.id))
      .executeTakeFirst();
    if (phoneClient) throw conflict('phone_taken_client');
  }

  const passwordHash = await hashPassword(input.password);
  const user = await db
    .transaction()
    .execute(async (trx) => {
      const created = await trx
        .insertInto('users')
        .values({
          email: input.email,
          name: input.name,
          role: 'client',
          department: null,
          phone: phone || null,
          password_hash: passwordHash,
          deleted_at: null,
          last_login_at: sql`now()` as never,
          // Issue 22 §2: the mail's language; the address stays unverified until the link is opened.
          language: input.language ?? 'ru',
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      let clientId: string | number;
      if (existingLead) {
        // Issue 9 finding 1: anyone can type a lead's e-mail. The link keeps the sales history, but it is unverified:
        // the lead's recorded deposits stay uncredited and withdrawals are refused until a finance approver confirms
        // the identity (POST /api/clients/:id/verify-identity).
        await trx
          .updateTable('clients')
          .set({
            user_id: created.id,
            registration_date: sql`now()`,
            updated_at: sql`now()`,
            identity_verified: false,
            identity_verified_at: null,
            identity_verified_by: null,
          })
          .where('id', '=', existingLead.id)
          .execute();
        clientId = existingLead.id;
        // An affiliate's lead became a platform user (D13 postback REGISTRATION).
        await enqueuePostback(trx, { clientId, event: 'REGISTRATION' });
      } else {
        const client = await trx
          .insertInto('clients')
          .values({
            name: input.name,
            email: input.email,
            phone,
            phone_e164: phoneE164,
            country: '',
            campaign: '',
            source: 'website',
            notes: '',
            status: 'new',
            assigned_manager: null,
            affiliate_id: null,
            user_id: created.id,
            registration_date: sql`now()` as never,
            last_comment_date: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        clientId = client.id;
      }
      // The client's trading account, balance 0, in the same transaction (decisions.md D3).
      await openTradingAccount(trx, { clientId, userId: created.id });
      await sendVerification(trx, deps.mail, created, created.email, meta.ip);
      await writeAudit(trx, actorFromUser(created, meta.ip), {
        action: 'auth.register_client',
        entityType: 'client',
        entityId: clientId,
        after: {
          user_id: created.id,
          linked_existing_lead: existingLead !== undefined,
          identity_verified: existingLead === undefined,
        },
      });
      return created;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflict('email_taken');
      throw err;
    });
  const token = await createSession(db, user, deps.sessionPolicy, meta);
  return { token, user };
}
