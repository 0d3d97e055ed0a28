import { isStaffRole, type Role, type StaffRole } from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import type { UserRow } from '../../platform/db/types.js';
import { actorFromUser, type Actor } from '../../platform/auth/actor.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import { revokeUserSessions } from '../../platform/auth/sessions.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError, conflict, forbidden } from '../../platform/http/errors.js';
import { findLink, INVITATION_SECONDS, issueLinkToken, revokeLinkTokens, useLink } from './link-tokens.js';
import { login, type LoginOutcome, type RequestMeta } from './service.js';

/**
 * Issue 22 §4: a staff member added without a password is invited. The row has invited_at set and an unusable
 * password hash (`!invited`, which no password verifies), and a 72 h single-use `invitation` link is mailed. Accepting
 * sets the password, proves the address, and then signs in exactly as the right password at /api/auth/login would.
 */

/** The unusable password hash of an invited member (no argon2 hash looks like this, so nothing verifies against it). */
export const INVITED_PASSWORD_HASH = '!invited';

const ROLE_LABELS_RU: Record<StaffRole, string> = {
  superadmin: 'Суперадмин',
  admin: 'Админ',
  team_lead_sales: 'Тим лид продаж',
  team_lead_retention: 'Тим лид удержания',
  sales_manager: 'Менеджер продаж',
  retention_manager: 'Менеджер удержания',
  manager: 'Менеджер',
};

function twoFactorRequired(deps: AppDeps, role: Role): boolean {
  return isStaffRole(role) && deps.config.requireTwoFactorRoles.includes(role);
}

/** Ends the member's older invitation links and mails a new one, in the caller's transaction. */
export async function sendInvitation(
  trx: Db,
  deps: AppDeps,
  member: Pick<UserRow, 'id' | 'name' | 'email' | 'role'>,
  actor: Actor,
): Promise<Date> {
  await revokeLinkTokens(trx, member.id, 'invitation');
  const { token, expiresAt } = await issueLinkToken(trx, {
    purpose: 'invitation',
    userId: member.id,
    email: member.email,
    seconds: INVITATION_SECONDS,
    ip: actor.ip,
  });
  await deps.mail.enqueue(trx, {
    to: member.email,
    userId: member.id,
    template: 'staff_invitation',
    language: 'ru',
    data: {
      name: member.name,
      link: deps.mail.link('/invitation', { token }),
      role_label: ROLE_LABELS_RU[member.role as StaffRole] ?? member.role,
      invited_by: actor.name,
      two_factor: twoFactorRequired(deps, member.role),
    },
  });
  return expiresAt;
}

/** The live staff member `id`, locked for the caller's transaction; 404 user_not_found otherwise. */
async function lockMember(trx: Db, id: string): Promise<UserRow> {
  const row = await trx
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('role', '!=', 'client')
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'user_not_found');
  return row;
}

/** POST /api/users/:id/invitation: a new link (older ones end); 409 not_invited for a member who set a password. */
export async function resendInvitation(deps: AppDeps, id: string, actor: Actor): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const member = await lockMember(trx, id);
    if (member.invited_at === null) throw conflict('not_invited');
    if (member.role === 'superadmin' && actor.role !== 'superadmin') throw forbidden('cannot_edit_superadmin');
    const expiresAt = await sendInvitation(trx, deps, member, actor);
    await writeAudit(trx, actor, {
      action: 'user.invitation_resend',
      entityType: 'user',
      entityId: member.id,
      after: { name: member.name, expires_at: expiresAt.toISOString() },
    });
  });
}

/**
 * DELETE /api/users/:id/invitation: the links end and the invited member is removed (soft, as the staff delete does:
 * sessions end, any clients assigned meanwhile become unassigned).
 */
export async function revokeInvitation(deps: AppDeps, id: string, actor: Actor): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const member = await lockMember(trx, id);
    if (member.invited_at === null) throw conflict('not_invited');
    if (member.role === 'superadmin' && actor.role !== 'superadmin') throw forbidden('cannot_edit_superadmin');
    const links = await revokeLinkTokens(trx, member.id, 'invitation');
    await trx
      .updateTable('users')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', member.id)
      .execute();
    await revokeUserSessions(trx, member.id);
    const unassigned = await trx
      .updateTable('clients')
      .set({ assigned_manager: null, updated_at: sql`now()` })
      .where('assigned_manager', '=', member.id)
      .returning('id')
      .execute();
    await writeAudit(trx, actor, {
      action: 'user.invitation_revoke',
      entityType: 'user',
      entityId: member.id,
      before: { name: member.name, email: member.email, role: member.role },
      after: { deleted: true, links_revoked: links, unassigned_clients: unassigned.length },
    });
  });
}

/** A live invitation link of a still-invited member (an accepted one answers link_used). */
async function invitationLink(db: Db, token: string, lock = false) {
  const link = await findLink(db, token, 'invitation', lock);
  if (link.user.invited_at === null) throw new HttpError(400, 'link_used');
  return link;
}

/** GET /api/auth/invitation?token=: who is invited, for the page that sets the password. */
export async function invitationInfo(deps: AppDeps, token: string) {
  const { user } = await invitationLink(deps.db, token);
  return {
    name: user.name,
    email: user.email,
    role: user.role,
    two_factor_required: twoFactorRequired(deps, user.role),
  };
}

/**
 * POST /api/auth/invitation/accept: sets the password, ends the invitation and proves the address (the link came to
 * it), then answers exactly as /api/auth/login does for the right password — the same code path, so the whitelist,
 * the sign-in delays and two-factor enrollment apply as they would there.
 */
export async function acceptInvitation(
  deps: AppDeps,
  input: { token: string; password: string },
  meta: RequestMeta,
): Promise<LoginOutcome> {
  const passwordHash = await hashPassword(input.password);
  const email = await deps.db.transaction().execute(async (trx) => {
    const link = await invitationLink(trx, input.token, true);
    const user = link.user;
    await useLink(trx, link.id);
    await revokeLinkTokens(trx, user.id, 'invitation');
    await trx
      .updateTable('users')
      .set({
        password_hash: passwordHash,
        invited_at: null,
        email_verified_at: sql`now()`,
        updated_at: sql`now()`,
      })
      .where('id', '=', user.id)
      .execute();
    await writeAudit(trx, actorFromUser(user, meta.ip), {
      action: 'auth.invitation_accept',
      entityType: 'user',
      entityId: user.id,
      after: { name: user.name, role: user.role },
    });
    return user.email;
  });
  return login(deps, { email, password: input.password }, meta);
}
