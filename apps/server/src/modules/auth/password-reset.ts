import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import { actorFromUser } from '../../platform/auth/actor.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import { revokeUserSessions } from '../../platform/auth/sessions.js';
import { liftSignInDelays } from '../../platform/auth/sign-in-delays.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import { hashLinkToken, newLinkToken } from '../mail/mailer.js';
import {
  findLink,
  issueLinkToken,
  mailLanguageOf,
  PASSWORD_RESET_SECONDS,
  revokeLinkTokens,
  useLink,
} from './link-tokens.js';
import { emailKeyOf, type RequestMeta } from './service.js';

/**
 * Issue 22 §3: self-service password reset for clients and staff. The request answers alike for a known and an
 * unknown address: the same limits (counted in auth_requests whatever the address), the same work (a token is made
 * and hashed, a row written), the same 202. Only a live user gets the mail. Confirming sets the password, ends every
 * session, lifts the sign-in delays of the address and leaves two-factor sign-in as it was.
 */

export const RESET_PER_ADDRESS_PER_HOUR = 3;
export const RESET_PER_IP_PER_HOUR = 20;

/** A user id no row has (the nil UUID). */
const NO_USER = '00000000-0000-0000-0000-000000000000';

/** 429 password_reset_limited (with Retry-After) when this typed address or this client address asked too often. */
async function checkResetLimits(trx: Db, emailKey: string, ip: string): Promise<void> {
  const counted = (column: 'email_key' | 'ip', value: string) =>
    trx
      .selectFrom('auth_requests')
      .select([
        sql<string>`count(*)`.as('n'),
        sql<number | null>`extract(epoch from (min(created_at) + interval '1 hour' - now()))`.as('until_oldest_ages'),
      ])
      .where('kind', '=', 'password_reset')
      .where(column, '=', value)
      .where(sql<boolean>`created_at > now() - interval '1 hour'`)
      .executeTakeFirstOrThrow();
  const [byAddress, byIp] = [await counted('email_key', emailKey), await counted('ip', ip)];
  const waits = [
    Number(byAddress.n) >= RESET_PER_ADDRESS_PER_HOUR ? Number(byAddress.until_oldest_ages ?? 0) : 0,
    Number(byIp.n) >= RESET_PER_IP_PER_HOUR ? Number(byIp.until_oldest_ages ?? 0) : 0,
  ];
  const wait = Math.max(...waits);
  if (wait > 0 || Number(byAddress.n) >= RESET_PER_ADDRESS_PER_HOUR || Number(byIp.n) >= RESET_PER_IP_PER_HOUR) {
    const seconds = Math.max(1, Math.ceil(wait));
    throw new HttpError(429, 'password_reset_limited', { seconds }, seconds);
  }
}

/** POST /api/auth/password-reset: always 202 {ok} unless limited; mail only for a live user of that address. */
export async function requestPasswordReset(deps: AppDeps, email: string, meta: RequestMeta): Promise<void> {
  const emailKey = emailKeyOf(email);
  await deps.db.transaction().execute(async (trx) => {
    // One address's requests are counted one at a time (a transaction-scoped advisory lock on the typed address).
    await sql`select pg_advisory_xact_lock(hashtext(${'password_reset:' + emailKey}))`.execute(trx);
    await checkResetLimits(trx, emailKey, meta.ip);
    await trx
      .insertInto('auth_requests')
      .values({ kind: 'password_reset', email_key: emailKey, ip: meta.ip })
      .execute();
    const user = await trx
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', emailKey)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!user) {
      // The same work as for a known address, minus what would be stored: a token made and hashed, and the revocation
      // statement of older links run (it matches nothing).
      hashLinkToken(newLinkToken().token);
      await revokeLinkTokens(trx, NO_USER, 'password_reset');
      return;
    }
    // Only the newest link works.
    await revokeLinkTokens(trx, user.id, 'password_reset');
    const { token } = await issueLinkToken(trx, {
      purpose: 'password_reset',
      userId: user.id,
      email: user.email,
      seconds: PASSWORD_RESET_SECONDS,
      ip: meta.ip,
    });
    await deps.mail.enqueue(trx, {
      to: user.email,
      userId: user.id,
      template: 'password_reset',
      language: mailLanguageOf(user),
      data: { name: user.name, link: deps.mail.link('/reset-password', { token }) },
    });
  });
}

/**
 * POST /api/auth/password-reset/confirm: single use, 1 h, and only for the address the link was sent to. Sets the
 * password (an invited member's too: the link proved the mailbox, so the invitation ends), ends every session, lifts
 * the sign-in delays of the address and sends `password_changed`. Two-factor sign-in is not touched. The caller
 * announces the revocation (the route drops the session caches and publishes auth.changed).
 */
export async function confirmPasswordReset(
  deps: AppDeps,
  input: { token: string; password: string },
  meta: RequestMeta,
): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await deps.db.transaction().execute(async (trx) => {
    const link = await findLink(trx, input.token, 'password_reset', true);
    const user = link.user;
    // The account's address changed since the link was sent: the link no longer proves the mailbox.
    if (link.email !== null && link.email.toLowerCase() !== user.email.toLowerCase()) {
      throw new HttpError(400, 'link_invalid');
    }
    await useLink(trx, link.id);
    await revokeLinkTokens(trx, user.id, 'password_reset');
    const wasInvited = user.invited_at !== null;
    if (wasInvited) await revokeLinkTokens(trx, user.id, 'invitation');
    await trx
      .updateTable('users')
      .set({
        password_hash: passwordHash,
        invited_at: null,
        email_verified_at: sql`coalesce(email_verified_at, now())`,
        updated_at: sql`now()`,
      })
      .where('id', '=', user.id)
      .execute();
    await revokeUserSessions(trx, user.id);
    await liftSignInDelays(trx, emailKeyOf(user.email));
    await deps.mail.enqueue(trx, {
      to: user.email,
      userId: user.id,
      template: 'password_changed',
      language: mailLanguageOf(user),
      data: { name: user.name },
    });
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: 'auth.password_reset',
      entityType: 'user',
      entityId: user.id,
      after: { sessions_ended: true, ...(wasInvited ? { invitation_ended: true } : {}) },
    });
  });
}
