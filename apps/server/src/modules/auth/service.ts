import {
  departmentOfRole,
  normalisePhone,
  type RegisterClientRequest,
  type RegisterStaffRequest,
  type User,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { UserRow } from '../../platform/db/types.js';
import { actorFromUser, type Actor } from '../../platform/auth/actor.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import { createSession } from '../../platform/auth/sessions.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError, conflict, forbidden } from '../../platform/http/errors.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { isStaffRole } from '@brokerage/shared';
import { enqueuePostback } from '../postbacks/outbox.js';
import { openTradingAccount } from '../trading/service.js';

export function toUser(row: UserRow): User {
  return {
    id: row.id,
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

interface RequestMeta {
  ip: string;
  userAgent: string | undefined;
}

/**
 * Sign-in (decisions.md D8). An unknown e-mail and a wrong password get the same answer after the same work;
 * failures are counted per e-mail (known or not) and the 10th in a row locks it for 30 minutes, even against
 * the right password. Staff must also come from an address the whitelist allows; from any other address a staff
 * account gets the wrong-password answer whether the password is right or wrong (the audit row tells which).
 */
export async function login(
  deps: AppDeps,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<{ token: string; user: UserRow }> {
  const { db, config } = deps;
  const emailKey = input.email.trim().toLowerCase();
  const anonymous: Actor = { id: null, name: emailKey, role: 'system', department: null, ip: meta.ip };

  const lock = await db
    .selectFrom('login_failures')
    .select(['failures', 'locked_until'])
    .where('email_key', '=', emailKey)
    .executeTakeFirst();
  if (lock?.locked_until && new Date(lock.locked_until).getTime() > Date.now()) {
    const minutes = Math.ceil((new Date(lock.locked_until).getTime() - Date.now()) / 60_000);
    await writeAudit(db, anonymous, {
      action: 'auth.login_failed',
      entityType: 'login',
      entityId: emailKey,
      after: { reason: 'locked' },
    });
    throw new HttpError(429, 'login_locked', { minutes });
  }

  const user = await db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', emailKey)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const ok = user
    ? await verifyPassword(user.password_hash, input.password)
    : (await verifyPassword(await dummyPasswordHash(), input.password), false);
  // A staff account asked for from outside a non-empty whitelist is refused whatever the password, after the same
  // work, so such an address learns nothing about the password. It also counts as a failure in a row, right password
  // or not: were only wrong ones counted, when the lock fell would tell a right guess from a wrong one.
  const outsideWhitelist = user !== undefined && isStaffRole(user.role) && !(await deps.whitelist.allows(meta.ip));

  if (!user || !ok || outsideWhitelist) {
    await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('login_failures')
        .values({ email_key: emailKey, failures: 1, last_failed_at: sql`now()` as never })
        .onConflict((oc) =>
          oc.column('email_key').doUpdateSet({
            // A lock that has run out starts a new count.
            failures: sql`case when login_failures.locked_until is not null and login_failures.locked_until <= now() then 1 else login_failures.failures + 1 end`,
            last_failed_at: sql`now()`,
            locked_until: sql`case when login_failures.locked_until <= now() then null else login_failures.locked_until end`,
          }),
        )
        .returning('failures')
        .executeTakeFirstOrThrow();
      if (row.failures >= config.LOGIN_MAX_FAILURES) {
        await trx
          .updateTable('login_failures')
          .set({ locked_until: sql`now() + make_interval(mins => ${config.LOGIN_LOCK_MINUTES})` })
          .where('email_key', '=', emailKey)
          .execute();
      }
      if (outsideWhitelist) {
        // One row: the refused access. Whether the password was right is for the superadmin reading the log.
        await writeAudit(trx, actorFromUser(user, meta.ip), {
          action: 'access.denied',
          entityType: 'route',
          entityId: 'POST /api/auth/login',
          after: { reason: 'ip_not_allowed', credentials_correct: ok, failures_in_a_row: row.failures },
        });
      } else {
        await writeAudit(trx, user ? actorFromUser(user, meta.ip) : anonymous, {
          action: 'auth.login_failed',
          entityType: 'login',
          entityId: emailKey,
          after: { reason: 'bad_credentials', failures_in_a_row: row.failures },
        });
      }
    });
    // Outside the whitelist a staff sign-in gets exactly the wrong-password answer (issue 9 finding 6, D8): the address
    // learns neither that the account exists nor whether the password was right.
    throw new HttpError(401, 'login_invalid');
  }

  const actor = actorFromUser(user, meta.ip);
  const token = await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('login_failures').where('email_key', '=', emailKey).execute();
    await trx
      .updateTable('users')
      .set({ last_login_at: sql`now()` })
      .where('id', '=', user.id)
      .execute();
    await writeAudit(trx, actor, { action: 'auth.login', entityType: 'user', entityId: user.id });
    return createSession(trx, user, deps.sessionPolicy, meta);
  });
  return { token, user };
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

async function emailTaken(deps: AppDeps, email: string, exceptUserId?: string): Promise<boolean> {
  let q = deps.db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null);
  if (exceptUserId) q = q.where('id', '!=', exceptUserId);
  return (await q.executeTakeFirst()) !== undefined;
}
export { emailTaken };

/** Staff creation from the staff page; only a superadmin may create another superadmin. */
export async function registerStaff(deps: AppDeps, input: RegisterStaffRequest, actor: Actor): Promise<UserRow> {
  if (input.role === 'superadmin' && actor.role !== 'superadmin') throw forbidden('cannot_create_superadmin');
  if (await emailTaken(deps, input.email)) throw conflict('email_taken');
  const passwordHash = await hashPassword(input.password);
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'user.create',
      entityType: 'user',
      entityId: user.id,
      after: { name: user.name, email: user.email, role: user.role },
    });
    return user;
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
  if (await emailTaken(deps, input.email)) throw conflict('email_taken');

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
