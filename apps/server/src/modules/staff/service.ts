import {
  MANAGER_ROLES,
  PERMISSIONS,
  STAFF_ROLES,
  departmentOfRole,
  type StaffListItem,
  type StaffMember,
  type StaffRole,
  type UpdateUserRequest,
  type UsersQuery,
  type UsersResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { UserRow } from '../../platform/db/types.js';
import type { Actor } from '../../platform/auth/actor.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import { revokeUserSessions } from '../../platform/auth/sessions.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { HttpError, badRequest, conflict, forbidden } from '../../platform/http/errors.js';
import { emailTaken } from '../../platform/auth/users.js';
import { revokeLinkTokens } from '../auth/link-tokens.js';

export function toStaffMember(
  row: UserRow,
  clientsCount: number,
  activeClientsCount = 0,
  invitationExpiresAt: Date | string | null = null,
): StaffMember {
  return {
    id: row.id,
    name: row.name,
    full_name: row.name,
    email: row.email,
    role: row.role as StaffRole,
    department: row.department,
    created_at: new Date(row.created_at).toISOString(),
    clients_count: clientsCount,
    active_clients_count: activeClientsCount,
    invited: row.invited_at !== null,
    invitation_expires_at:
      row.invited_at !== null && invitationExpiresAt !== null ? new Date(invitationExpiresAt).toISOString() : null,
  };
}

const staffOnly = STAFF_ROLES as readonly string[];

/** The staff page list: live staff only (clients and deleted members excluded), paged and searched on the server. */
export async function listUsers(deps: AppDeps, query: UsersQuery): Promise<UsersResponse> {
  const { db } = deps;
  let base = db
    .selectFrom('users')
    .where('deleted_at', 'is', null)
    .where('role', 'in', staffOnly as StaffRole[]);
  const summaryRows = await base
    .select(['role', db.fn.countAll<string>().as('n')])
    .groupBy('role')
    .execute();
  const count = (roles: readonly string[]) =>
    summaryRows.filter((r) => roles.includes(r.role)).reduce((sum, r) => sum + Number(r.n), 0);

  if (query.search) {
    const like = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([eb('name', 'ilike', like), eb('email', 'ilike', like)]));
  }
  if (query.role) base = base.where('role', '=', query.role);

  const [{ total }] = [await base.select(db.fn.countAll<string>().as('total')).executeTakeFirstOrThrow()];
  const rows = await base
    .selectAll('users')
    .select((eb) =>
      eb
        .selectFrom('clients')
        .select(eb.fn.countAll<string>().as('c'))
        .whereRef('clients.assigned_manager', '=', 'users.id')
        .as('clients_count'),
    )
    // 'Active' (issue 11): assigned now, with a deposit or a comment in the last 30 days.
    .select(
      sql<string>`(select count(*) from clients c where c.assigned_manager = users.id
        and (c.last_comment_date >= now() - interval '30 days'
          or exists (select 1 from deposits d where d.client_id = c.id and d.deleted_at is null
                     and d.created_at >= now() - interval '30 days')))`.as('active_clients_count'),
    )
    // Issue 22 §4: when the newest live invitation link of an invited member runs out.
    .select(
      sql<Date | string | null>`(select max(t.expires_at) from auth_tokens t where t.user_id = users.id
        and t.purpose = 'invitation' and t.used_at is null and t.revoked_at is null and t.expires_at > now())`.as(
        'invitation_expires_at',
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page)
    .execute();

  return {
    items: rows.map(({ clients_count, active_clients_count, invitation_expires_at, ...row }) =>
      toStaffMember(
        row as UserRow,
        Number(clients_count ?? 0),
        Number(active_clients_count ?? 0),
        invitation_expires_at,
      ),
    ),
    total: Number(total),
    summary: {
      total: count(staffOnly),
      managers: count(MANAGER_ROLES),
      admins: count(['admin']),
      superadmins: count(['superadmin']),
      finance_approvers: count(PERMISSIONS['finance.approve']),
    },
  };
}

/** The short staff list that manager pickers and filters use. */
export async function listStaff(deps: AppDeps): Promise<StaffListItem[]> {
  const rows = await deps.db
    .selectFrom('users')
    .select(['id', 'name', 'role', 'department'])
    .where('deleted_at', 'is', null)
    .where('role', 'in', staffOnly as StaffRole[])
    .orderBy('name')
    .execute();
  return rows.map((r) => ({ ...r, full_name: r.name, role: r.role as StaffRole }));
}

async function liveStaff(deps: AppDeps, id: string): Promise<UserRow> {
  const row = await deps.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('role', 'in', staffOnly as StaffRole[])
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'user_not_found');
  return row;
}

export async function updateUser(
  deps: AppDeps,
  id: string,
  input: UpdateUserRequest,
  actor: Actor,
): Promise<StaffMember> {
  const target = await liveStaff(deps, id);
  if (target.role === 'superadmin' && actor.role !== 'superadmin') throw forbidden('cannot_edit_superadmin');
  if (input.role === 'superadmin' && target.role !== 'superadmin' && actor.role !== 'superadmin') {
    throw forbidden('cannot_create_superadmin');
  }
  if (target.id === actor.id && input.role !== target.role) throw badRequest('cannot_change_own_role');
  if (await emailTaken(deps.db, input.email, id)) throw conflict('email_taken');

  try {
    return await deps.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set({
          name: input.name,
          email: input.email,
          role: input.role,
          department: departmentOfRole(input.role),
          updated_at: sql`now()`,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      // A new role ends the member's sessions (issue 20 §9): they sign in again under it, and meet what it asks of a
      // sign-in (two-factor enrollment for the roles of REQUIRE_2FA_ROLES). Announced like every revocation: the route
      // is in AUTH_CHANGING_ROUTES, and on PostgreSQL the sessions trigger of migration 0020 tells every process.
      const roleChanged = updated.role !== target.role;
      if (roleChanged) await revokeUserSessions(trx, id);
      await writeAudit(trx, actor, {
        action: 'user.update',
        entityType: 'user',
        entityId: id,
        before: { name: target.name, email: target.email, role: target.role },
        after: {
          name: updated.name,
          email: updated.email,
          role: updated.role,
          ...(roleChanged ? { sessions_ended: true } : {}),
        },
      });
      const clients = await trx
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('assigned_manager', '=', id)
        .executeTakeFirstOrThrow();
      const invitation = await trx
        .selectFrom('auth_tokens')
        .select((eb) => eb.fn.max('expires_at').as('expires_at'))
        .where('user_id', '=', id)
        .where('purpose', '=', 'invitation')
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where(sql<boolean>`expires_at > now()`)
        .executeTakeFirst();
      return toStaffMember(updated, Number(clients.n), 0, invitation?.expires_at ?? null);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('email_taken');
    throw err;
  }
}

/** A new password ends every other session of that user (D8). */
export async function changePassword(
  deps: AppDeps,
  id: string,
  newPassword: string,
  actor: Actor,
  actorSessionId: string,
) {
  const target = await liveStaff(deps, id);
  const hash = await hashPassword(newPassword);
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: hash, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    let revoke = trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', id)
      .where('revoked_at', 'is', null);
    if (target.id === actor.id) revoke = revoke.where('id', '!=', actorSessionId);
    await revoke.execute();
    await writeAudit(trx, actor, {
      action: 'user.password_change',
      entityType: 'user',
      entityId: id,
      after: { name: target.name },
    });
    // Issue 22 §3: the owner hears of every password change. A password set here also ends an invitation.
    if (target.invited_at !== null) {
      await trx.updateTable('users').set({ invited_at: null }).where('id', '=', id).execute();
      await revokeLinkTokens(trx, id, 'invitation');
    }
    await deps.mail.enqueue(trx, {
      to: target.email,
      userId: target.id,
      template: 'password_changed',
      language: 'ru',
      data: { name: target.name },
    });
  });
}

/**
 * Soft delete: the row stays, so the member keeps their name in history; their sessions end at once and their
 * clients become unassigned, all in one transaction. The member's row is locked FOR UPDATE and re-checked inside it:
 * an assignment to them (clients/service checkManager) holds the same row FOR SHARE for its whole transaction, so an
 * assignment either commits first (and its clients are unassigned here) or waits and then finds the member deleted.
 * The audit row lists the ids of the clients that were unassigned.
 */
export async function deleteUser(deps: AppDeps, id: string, actor: Actor): Promise<{ unassigned_clients: number }> {
  const checked = await liveStaff(deps, id);
  if (checked.role === 'superadmin') throw forbidden('cannot_delete_superadmin');
  if (checked.id === actor.id) throw badRequest('cannot_delete_self');
  return deps.db.transaction().execute(async (trx) => {
    const target = await trx
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('role', 'in', staffOnly as StaffRole[])
      .forUpdate()
      .executeTakeFirst();
    // Deleted (or made superadmin) by someone else between the check above and the lock.
    if (!target) throw new HttpError(404, 'user_not_found');
    if (target.role === 'superadmin') throw forbidden('cannot_delete_superadmin');
    await trx
      .updateTable('users')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    await trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    const unassigned = await trx
      .updateTable('clients')
      .set({ assigned_manager: null, updated_at: sql`now()` })
      .where('assigned_manager', '=', id)
      .returning('id')
      .execute();
    const clientIds = unassigned.map((r) => Number(r.id)).sort((a, b) => a - b);
    await writeAudit(trx, actor, {
      action: 'user.delete',
      entityType: 'user',
      entityId: id,
      before: { name: target.name, email: target.email, role: target.role },
      after: { unassigned_clients: clientIds.length, unassigned_client_ids: clientIds },
    });
    return { unassigned_clients: clientIds.length };
  });
}
