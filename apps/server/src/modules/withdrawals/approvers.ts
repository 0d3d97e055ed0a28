import { can, PERMISSIONS, type StaffRole, type WithdrawApproveBlock, type WithdrawStatus } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { actorFromUser, type Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { needsSecondPerson, secondPersonBlock } from '../../platform/access/four-eyes.js';

/**
 * Who may approve a withdrawal request, and why not (issue 9 finding 2, D20, issue 20 findings 1, 3 and 4). One set of
 * rules for the approving transaction (which refuses with the reason's code) and for the list and the card (which
 * show, per request, whether the viewer may act and why not, and whether anyone at all could finish it).
 */

/** How far back a staff member's own work on a client's money or login bars them from approving its payouts. */
export const INVOLVEMENT_DAYS = 30;
/** D20 amended (issue 20 finding 3): the payout threshold bounds a client's one-step approvals over this window. */
export const PAYOUT_WINDOW_HOURS = 24;

export type Involvement =
  'balance_change' | 'deposit_recorded' | 'deposit_edited' | 'identity_verified' | 'password_changed' | 'login_created';

const AUDITED: Record<string, Involvement> = {
  'client.change_password': 'password_changed',
  'client.verify_identity': 'identity_verified',
  'client.register_user': 'login_created',
  'deposit.update': 'deposit_edited',
};

/**
 * Who put money on these clients' accounts, or could sign in as them, in the last 30 days: a balance change on the
 * account (the actor of `adjustment` entries), a recorded or edited deposit, a confirmed identity (which credits the
 * pending deposits), a changed password or a created login. Per client, per staff member, the first reason in that
 * order (an edit, a confirmation, a password or a login: the latest of them).
 */
export async function involvementByClient(
  db: Db,
  clients: readonly { clientId: number; accountId: number }[],
): Promise<Map<number, Map<string, Involvement>>> {
  const result = new Map<number, Map<string, Involvement>>();
  if (clients.length === 0) return result;
  const clientIds = [...new Set(clients.map((c) => c.clientId))];
  const accountIds = [...new Set(clients.map((c) => c.accountId))];
  const since = sql<Date>`now() - make_interval(days => ${INVOLVEMENT_DAYS})`;
  const note = (clientId: number, userId: string | null, reason: Involvement) => {
    if (!userId) return;
    const people = result.get(clientId) ?? new Map<string, Involvement>();
    if (!people.has(userId)) people.set(userId, reason);
    result.set(clientId, people);
  };
  const [balance, deposits, audited] = await Promise.all([
    db
      .selectFrom('ledger_entries as e')
      .innerJoin('trading_accounts as a', 'a.id', 'e.account_id')
      .select(['a.client_id', 'e.actor_id'])
      .distinct()
      .where('e.account_id', 'in', accountIds)
      .where('e.kind', '=', 'adjustment')
      .where('e.actor_id', 'is not', null)
      .where('e.created_at', '>=', since)
      .execute(),
    db
      .selectFrom('deposits')
      .select(['client_id', 'created_by'])
      .distinct()
      .where('client_id', 'in', clientIds)
      .where('created_by', 'is not', null)
      .where('created_at', '>=', since)
      .execute(),
    db
      .selectFrom('audit_log as l')
      .leftJoin('deposits as d', (join) =>
        join.on('l.entity_type', '=', 'deposit').on(sql`d.id::text`, '=', sql.ref('l.entity_id')),
      )
      .select(['l.action', 'l.actor_id', 'l.entity_type', 'l.entity_id', 'd.client_id as deposit_client_id'])
      .where('l.actor_id', 'is not', null)
      .where('l.at', '>=', since)
      .where((eb) =>
        eb.or([
          eb.and([
            eb('l.action', 'in', ['client.change_password', 'client.verify_identity', 'client.register_user']),
            eb('l.entity_type', '=', 'client'),
            eb('l.entity_id', 'in', clientIds.map(String)),
          ]),
          eb.and([
            eb('l.action', '=', 'deposit.update'),
            eb('l.entity_type', '=', 'deposit'),
            eb(
              'l.entity_id',
              'in',
              eb
                .selectFrom('deposits')
                .select(sql<string>`id::text`.as('id'))
                .where('client_id', 'in', clientIds),
            ),
          ]),
        ]),
      )
      .orderBy('l.id', 'desc')
      .execute(),
  ]);
  for (const r of balance) note(Number(r.client_id), r.actor_id, 'balance_change');
  for (const r of deposits) note(Number(r.client_id), r.created_by, 'deposit_recorded');
  for (const r of audited) {
    const clientId = r.entity_type === 'client' ? Number(r.entity_id) : Number(r.deposit_client_id);
    note(clientId, r.actor_id, AUDITED[r.action]!);
  }
  return result;
}

/** The live staff members holding finance.approve (superadmin, admin): they see every client (D5). */
export async function financeApprovers(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('role', 'in', PERMISSIONS['finance.approve'] as readonly StaffRole[])
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

/** Per client, the sum of its requests approved in one step in the last 24 hours (a second person's are not counted). */
export async function oneStepApprovedCents(db: Db, clientIds: readonly number[]): Promise<Map<number, number>> {
  if (clientIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('withdraw_requests')
    .select(['client_id', sql<string>`sum(amount_cents)`.as('cents')])
    .where('client_id', 'in', [...new Set(clientIds)])
    .where('status', '=', 'approved')
    .where('first_approved_by', 'is', null)
    .where('processed_at', '>=', sql<Date>`now() - make_interval(hours => ${PAYOUT_WINDOW_HOURS})`)
    .groupBy('client_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.client_id), Number(r.cents)]));
}

/**
 * Staff who could give a first approval but not a second (finance.view without finance.approve), who see the client
 * (D5) and did not work with its money: per client. Managers see only their own clients, so the candidates are the
 * clients' assigned managers and the team leads. A constant number of queries for the whole page, however many
 * requests and candidates: the candidates, then the clients each scope sees through the one scope helper, once per
 * scope rather than per person (a team lead's scope is their department's, the same for every lead of it; a manager's
 * is the clients assigned to them, so the managers' scopes are one query over the clients' assignments).
 */
async function otherFirstApprovers(
  db: Db,
  clients: readonly { clientId: number; involved: ReadonlyMap<string, Involvement> }[],
): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (clients.length === 0) return counts;
  const clientIds = [...new Set(clients.map((c) => c.clientId))];
  const involvedOf = new Map(clients.map((c) => [c.clientId, c.involved]));
  const roles = (PERMISSIONS['finance.view'] as readonly StaffRole[]).filter((r) => !can(r, 'finance.approve'));
  const candidates = await db
    .selectFrom('users')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where('role', 'in', roles)
    .where((eb) =>
      eb.or([
        eb('role', 'in', ['team_lead_sales', 'team_lead_retention']),
        eb(
          'id',
          'in',
          eb
            .selectFrom('clients')
            .select('assigned_manager')
            .where('id', 'in', clientIds)
            .where('assigned_manager', 'is not', null),
        ),
      ]),
    )
    .execute();
  // Candidates grouped by the scope they see: one scope helper query per group, all at once.
  const groups = new Map<string, { actor: Actor; members: string[] }>();
  for (const user of candidates) {
    const actor = actorFromUser(user, null);
    const key = sharedScopeKey(actor);
    const group = groups.get(key) ?? { actor, members: [] };
    group.members.push(user.id);
    groups.set(key, group);
  }
  const own = groups.get(OWN_CLIENTS)?.members ?? [];
  groups.delete(OWN_CLIENTS);
  const [shared, assigned] = await Promise.all([
    Promise.all(
      [...groups.values()].map(async ({ actor, members }) => ({
        members,
        seen: await scopeClients(db.selectFrom('clients'), actor)
          .select('clients.id')
          .where('clients.id', 'in', clientIds)
          .execute(),
      })),
    ),
    own.length
      ? db
          .selectFrom('clients')
          .select(['id', 'assigned_manager'])
          .where('id', 'in', clientIds)
          .where('assigned_manager', 'in', own)
          .execute()
      : Promise.resolve([]),
  ]);
  const count = (clientId: number, userId: string) => {
    if (involvedOf.get(clientId)?.has(userId)) return;
    counts.set(clientId, (counts.get(clientId) ?? 0) + 1);
  };
  for (const { members, seen } of shared) {
    for (const { id } of seen) for (const userId of members) count(Number(id), userId);
  }
  for (const { id, assigned_manager } of assigned) count(Number(id), assigned_manager!);
  return counts;
}

/** D5's managers see only the clients assigned to them; every other candidate's scope is shared by its role group. */
const OWN_CLIENTS = 'own';
function sharedScopeKey(actor: Actor): string {
  if (actor.role === 'team_lead_sales' || actor.role === 'team_lead_retention') {
    return `lead:${actor.role}:${actor.department ?? ''}`;
  }
  return OWN_CLIENTS;
}

export interface ApprovalRow {
  id: string | number;
  client_id: string | number;
  account_id: string | number;
  amount_cents: string | number;
  status: WithdrawStatus;
  first_approved_by: string | null;
}

export interface ApprovalDecision {
  /** Approving it takes two people: it is awaiting its second, or its amount with the one-step approvals of the last 24 hours is above the threshold. */
  needs_second_approval: boolean;
  can_approve: boolean;
  can_reject: boolean;
  /** Why the viewer may not approve an open request: the code the approval would be refused with. */
  approve_blocked: WithdrawApproveBlock | null;
  /** Nobody could give the approval(s) still missing: only a rejection (which releases the hold) closes it. */
  no_eligible_approver: boolean;
}

/**
 * Decides for the viewer, per request: whether it takes two approvals, whether the viewer may approve or reject it and
 * why not, and whether anyone at all could finish it. `withOthers` also looks for first approvers among the managers
 * and team leads (the list and the card need it; the approving transaction does not).
 */
export async function approvalDecisions(
  db: Db,
  actor: Actor,
  thresholdCents: number,
  rows: readonly ApprovalRow[],
  options: { withOthers: boolean },
): Promise<Map<number, ApprovalDecision>> {
  const open = rows.filter((r) => r.status === 'pending' || r.status === 'awaiting_second_approval');
  const clients = open.map((r) => ({ clientId: Number(r.client_id), accountId: Number(r.account_id) }));
  const [involvement, approvers, recent] = await Promise.all([
    involvementByClient(db, clients),
    open.length ? financeApprovers(db) : Promise.resolve([]),
    thresholdCents > 0
      ? oneStepApprovedCents(
          db,
          clients.map((c) => c.clientId),
        )
      : Promise.resolve(new Map()),
  ]);
  const none = new Map<string, Involvement>();
  const shape = open.map((r) => {
    const clientId = Number(r.client_id);
    const involved = involvement.get(clientId) ?? none;
    const awaiting = r.status === 'awaiting_second_approval';
    const twoStep =
      awaiting ||
      needsSecondPerson({
        actor,
        cents: Number(r.amount_cents),
        windowCents: recent.get(clientId) ?? 0,
        thresholdCents,
      });
    const free = approvers.filter((id) => !involved.has(id));
    // Approvers alone cannot finish it: a one-step request with none free, a two-step one with fewer than two.
    const needsOthers = !awaiting && free.length < (twoStep ? 2 : 1);
    return { r, clientId, involved, awaiting, twoStep, free, needsOthers };
  });
  const others =
    options.withOthers && shape.some((s) => s.needsOthers)
      ? await otherFirstApprovers(
          db,
          shape.filter((s) => s.needsOthers).map((s) => ({ clientId: s.clientId, involved: s.involved })),
        )
      : new Map<number, number>();

  const decisions = new Map<number, ApprovalDecision>();
  for (const r of rows) {
    if (r.status !== 'pending' && r.status !== 'awaiting_second_approval') {
      decisions.set(Number(r.id), {
        needs_second_approval: r.first_approved_by !== null,
        can_approve: false,
        can_reject: false,
        approve_blocked: null,
        no_eligible_approver: false,
      });
    }
  }
  for (const { r, clientId, involved, awaiting, twoStep, free, needsOthers } of shape) {
    const seconds = awaiting ? free.filter((id) => id !== r.first_approved_by) : free;
    let noneEligible: boolean;
    if (awaiting) noneEligible = seconds.length === 0;
    else if (!needsOthers) noneEligible = false;
    else if (!options.withOthers) noneEligible = false;
    // A manager or team lead gives the first approval, a free approver the second (or, one-step, the only one).
    else noneEligible = (others.get(clientId) ?? 0) === 0 || (twoStep && free.length === 0);

    let blocked: WithdrawApproveBlock | null = null;
    const mine = actor.id ? involved.get(actor.id) : undefined;
    const second = awaiting ? secondPersonBlock(actor, r.first_approved_by) : null;
    if (second === 'own_request') blocked = 'withdraw_second_approver_same';
    else if (second === 'not_an_approver') blocked = 'withdraw_second_approval_forbidden';
    else if (mine) blocked = `withdraw_approver_${mine}`;
    else if (!awaiting && twoStep && free.every((id) => id === actor.id)) blocked = 'withdraw_no_second_approver';
    decisions.set(Number(r.id), {
      needs_second_approval: twoStep,
      can_approve: blocked === null,
      can_reject: true,
      approve_blocked: blocked,
      no_eligible_approver: noneEligible,
    });
  }
  return decisions;
}
