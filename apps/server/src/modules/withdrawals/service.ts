import {
  cardDigits,
  centsToDollars,
  checkWithdrawal,
  dollarsToCents,
  maskCard,
  type ClientWithdrawRequest,
  type CreateWithdrawResponse,
  type MyWithdrawRequestsResponse,
  type RejectWithdrawRequest,
  type StaffWithdrawRequest,
  type WithdrawStatus,
  type WithdrawRequestInput,
  type WithdrawRequestsQuery,
  type WithdrawRequestsResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { SecretsVault } from '../../platform/crypto/vault.js';
import { HttpError } from '../../platform/http/errors.js';
import type { EventBus } from '../../platform/bus/index.js';
import { publishBalanceChanged } from '../ledger/live.js';
import { postEntry } from '../ledger/service.js';
import type { Trx } from '../../platform/db/types.js';
import { notifyWithdrawalRequested } from '../notifications/service.js';
import { approvalDecisions, type ApprovalDecision } from './approvers.js';
import type { Mailer } from '../mail/mailer.js';
import { mailWithdrawalDecision } from '../mail/events.js';
import { requireVerifiedEmail } from '../auth/email-verification.js';

/**
 * Card withdrawal requests (client-platform.md §2.6, §5; back-office.md §2.9, §4; decisions.md D3, D5, D7, D9).
 * A request holds its amount at once (a withdrawal_hold entry in the same transaction as the request); reject releases
 * the hold (withdrawal_release), approve makes it final (no balance change). Both only from pending, exactly once.
 * The card number is kept only encrypted; every answer shows it masked, except the audited reveal.
 */

export interface WithdrawalDeps {
  db: Db;
  vault: SecretsVault;
  /** The business time zone: a card is valid to the end of its month there, and date filters are its days. */
  timeZone: string;
  now: () => Date;
  /** Live updates (D11): balance.changed after a hold or a release. */
  bus?: EventBus;
  /**
   * WITHDRAWAL_SECOND_APPROVAL in cents (four-eyes, D20): an approval that would take the client's one-step approvals
   * of the last 24 hours above it takes two different staff members. 0 or absent = off (the demo seed, which acts as
   * the system, leaves it out).
   */
  secondApprovalCents?: number;
  /** Issue 22 §5: the client is e-mailed the decision, in its transaction (absent: no mail, e.g. the demo seed). */
  mail?: Mailer;
}

/** The current year and month in a time zone. */
export function monthIn(timeZone: string, at: Date): { year: number; month: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month') };
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

interface RequestRow {
  id: string | number;
  amount_cents: string | number;
  status: WithdrawStatus;
  card_last4: string;
  card_holder: string;
  card_expiry: string;
  created_at: Date | string;
  processed_at: Date | string | null;
  reject_reason: string | null;
}

function toClientRequest(r: RequestRow): ClientWithdrawRequest {
  return {
    id: Number(r.id),
    amount: centsToDollars(r.amount_cents),
    status: r.status,
    card_number: maskCard(r.card_last4),
    card_last4: r.card_last4,
    card_holder: r.card_holder,
    card_expiry: r.card_expiry,
    created_at: iso(r.created_at)!,
    processed_at: iso(r.processed_at),
    reject_reason: r.reject_reason,
  };
}

/** The columns every answer is built from; the encrypted number is never among them. */
const PUBLIC_COLUMNS = [
  'w.id',
  'w.client_id',
  'w.account_id',
  'w.amount_cents',
  'w.status',
  'w.card_last4',
  'w.card_holder',
  'w.card_expiry',
  'w.created_at',
  'w.processed_by',
  'w.processed_at',
  'w.reject_reason',
  'w.first_approved_by',
  'w.first_approved_at',
] as const;

// ---------------------------------------------------------------- client side

/**
 * POST /api/withdraw-requests. Under the lock of the client's trading account (so concurrent requests see each
 * other's holds), the checks of §5 in their order; then, in the same transaction, the request and its hold.
 * Runs in the caller's transaction so the route can make it idempotent.
 */
export async function createWithdrawRequest(
  deps: WithdrawalDeps,
  trx: Trx,
  userId: string,
  input: WithdrawRequestInput,
): Promise<CreateWithdrawResponse> {
  // The client row first, then the account: the order staff credits and the other money paths lock them in. The
  // other way round a credit and a request at once deadlocked (the request's insert needs the client row for its
  // foreign key while the credit holds it and waits for the account), and one of them failed.
  const client = await trx
    .selectFrom('clients')
    .select('identity_verified')
    .where(sql<boolean>`id = (select a.client_id from trading_accounts a where a.user_id = ${userId})`)
    .forUpdate()
    .executeTakeFirst();
  const account = await trx
    .selectFrom('trading_accounts')
    .select(['id', 'client_id', 'balance_cents', 'status'])
    .where('user_id', '=', userId)
    .forUpdate('trading_accounts')
    .executeTakeFirst();
  if (!account || !client) throw new HttpError(404, 'trading_account_not_found');
  // Issue 22 §2: no money moves out before the client proved the e-mail address.
  await requireVerifiedEmail(trx, userId);
  // Issue 9 finding 7: a blocked account moves no money out (requests already filed stay for staff to process).
  if (account.status === 'blocked') throw new HttpError(409, 'withdraw_account_blocked');
  // Issue 9 finding 1: a registration linked to an existing lead pays out nothing until a person confirmed who it is.
  if (!client.identity_verified) throw new HttpError(409, 'withdraw_identity_unverified');

  const failure = checkWithdrawal(input, Number(account.balance_cents), monthIn(deps.timeZone, deps.now()));
  if (failure) {
    const status = failure.code === 'withdraw_insufficient_funds' ? 409 : 400;
    throw new HttpError(status, failure.code, failure.params ?? {});
  }
  const digits = cardDigits(input.card_number)!;
  const amountCents = dollarsToCents(input.amount)!;

  const row = await trx
    .insertInto('withdraw_requests')
    .values({
      client_id: account.client_id,
      account_id: account.id,
      user_id: userId,
      amount_cents: amountCents,
      card_holder: input.card_holder.trim().toUpperCase(),
      card_last4: digits.slice(-4),
      card_number_enc: deps.vault.encryptCard(digits),
      card_expiry: input.card_expiry.trim(),
    })
    .returning([
      'id',
      'amount_cents',
      'status',
      'card_last4',
      'card_holder',
      'card_expiry',
      'created_at',
      'processed_at',
      'reject_reason',
    ])
    .executeTakeFirstOrThrow();
  const { entry } = await postEntry(trx, {
    accountId: Number(account.id),
    kind: 'withdrawal_hold',
    amountCents: -amountCents,
    reference: `withdrawal:${row.id}:hold`,
    actor: { id: userId },
    reason: null,
  });
  await notifyWithdrawalRequested(trx, { requestId: row.id, clientId: account.client_id, amountCents });
  return { ...toClientRequest(row), balance: centsToDollars(entry.balanceAfterCents) };
}

/** GET /api/my-withdraw-requests: the caller's own requests, newest first, paged. */
export async function listMyWithdrawRequests(
  deps: WithdrawalDeps,
  userId: string,
  page: { page: number; per_page: number },
): Promise<MyWithdrawRequestsResponse> {
  const base = deps.db.selectFrom('withdraw_requests as w').where('w.user_id', '=', userId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    base
      .select([...PUBLIC_COLUMNS])
      .orderBy('w.created_at', 'desc')
      .orderBy('w.id', 'desc')
      .limit(page.per_page)
      .offset((page.page - 1) * page.per_page)
      .execute(),
  ]);
  return { items: rows.map(toClientRequest), total: Number(total) };
}

// ---------------------------------------------------------------- staff side

/** Requests joined with their clients, limited to the clients the actor may see (D5). */
function scopedRequests(db: Db, actor: Actor) {
  return scopeClients(db.selectFrom('withdraw_requests as w').innerJoin('clients', 'clients.id', 'w.client_id'), actor);
}

function withNames(db: Db, actor: Actor) {
  return scopedRequests(db, actor)
    .leftJoin('users as p', 'p.id', 'w.processed_by')
    .leftJoin('users as f', 'f.id', 'w.first_approved_by')
    .select([
      ...PUBLIC_COLUMNS,
      'clients.name as client_name',
      'clients.email as client_email',
      'p.name as processed_by_name',
      'f.name as first_approved_by_name',
    ]);
}

type StaffRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;

function toStaffRequest(r: StaffRow, decision: ApprovalDecision): StaffWithdrawRequest {
  return {
    ...toClientRequest(r),
    client_id: Number(r.client_id),
    client_name: r.client_name,
    client_email: r.client_email,
    account_id: Number(r.account_id),
    processed_by: r.processed_by,
    processed_by_name: r.processed_by_name,
    first_approved_by: r.first_approved_by,
    first_approved_by_name: r.first_approved_by_name,
    first_approved_at: iso(r.first_approved_at),
    ...decision,
  };
}

/** The rows as the viewer sees them, with what they may do to each (approvers.ts). */
async function toStaffRequests(
  deps: WithdrawalDeps,
  db: Db,
  actor: Actor,
  rows: readonly StaffRow[],
): Promise<StaffWithdrawRequest[]> {
  const decisions = await approvalDecisions(db, actor, deps.secondApprovalCents ?? 0, rows, { withOthers: true });
  return rows.map((r) => toStaffRequest(r, decisions.get(Number(r.id))!));
}

const LIKE_ESCAPE = /[\\%_]/g;

/**
 * GET /api/withdraw-requests (§2.9, D4, D5): the requests of the clients in the caller's scope, filtered and paged
 * on the server, newest first, with the summary cards over the filtered list. Dates are days in the business time
 * zone, both ends included.
 */
export async function listWithdrawRequests(
  deps: WithdrawalDeps,
  actor: Actor,
  query: WithdrawRequestsQuery,
): Promise<WithdrawRequestsResponse> {
  const tz = deps.timeZone;
  type Q = ReturnType<typeof scopedRequests>;
  const filters: ((q: Q) => Q)[] = [];
  if (query.status) filters.push((q) => q.where('w.status', '=', query.status!));
  if (query.client_id !== undefined) filters.push((q) => q.where('w.client_id', '=', query.client_id!));
  if (query.processed_by) filters.push((q) => q.where('w.processed_by', '=', query.processed_by!));
  if (query.date_from) {
    filters.push((q) =>
      q.where('w.created_at', '>=', sql<Date>`(${query.date_from}::date)::timestamp at time zone ${tz}`),
    );
  }
  if (query.date_to) {
    filters.push((q) =>
      q.where('w.created_at', '<', sql<Date>`(${query.date_to}::date + 1)::timestamp at time zone ${tz}`),
    );
  }
  if (query.search) {
    const text = query.search;
    const like = `%${text.replace(LIKE_ESCAPE, (c) => `\\${c}`)}%`;
    const id = /^\d{1,15}$/.test(text) ? Number(text) : null;
    const cents = /^\d{1,13}(\.\d{1,2})?$/.test(text) ? dollarsToCents(text) : null;
    filters.push((q) =>
      q.where((eb) =>
        eb.or([
          eb('clients.name', 'ilike', like),
          eb('clients.email', 'ilike', like),
          ...(id !== null ? [eb('w.client_id', '=', id), eb('w.id', '=', id)] : []),
          ...(cents !== null ? [eb('w.amount_cents', '=', cents)] : []),
        ]),
      ),
    );
  }
  const apply = (q: Q) => filters.reduce((acc, f) => f(acc), q);

  const filtered = apply(scopedRequests(deps.db, actor));
  const [summary, rows] = await Promise.all([
    filtered
      .select([
        sql<string>`count(*)`.as('total_count'),
        sql<string>`coalesce(sum(w.amount_cents), 0)`.as('total_amount'),
        sql<string>`count(*) filter (where w.status = 'pending')`.as('pending_count'),
        sql<string>`coalesce(sum(w.amount_cents) filter (where w.status = 'pending'), 0)`.as('pending_amount'),
        sql<string>`count(*) filter (where w.status = 'awaiting_second_approval')`.as('awaiting_count'),
        sql<string>`coalesce(sum(w.amount_cents) filter (where w.status = 'awaiting_second_approval'), 0)`.as(
          'awaiting_amount',
        ),
        sql<string>`count(*) filter (where w.status = 'approved')`.as('approved_count'),
        sql<string>`coalesce(sum(w.amount_cents) filter (where w.status = 'approved'), 0)`.as('approved_amount'),
        sql<string>`count(*) filter (where w.status = 'rejected')`.as('rejected_count'),
        sql<string>`coalesce(sum(w.amount_cents) filter (where w.status = 'rejected'), 0)`.as('rejected_amount'),
      ])
      .executeTakeFirstOrThrow(),
    apply(withNames(deps.db, actor) as unknown as Q)
      .orderBy('w.created_at', query.order)
      .orderBy('w.id', query.order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute() as unknown as Promise<StaffRow[]>,
  ]);
  return {
    items: await toStaffRequests(deps, deps.db, actor, rows),
    total: Number(summary.total_count),
    summary: {
      total_count: Number(summary.total_count),
      total_amount: centsToDollars(summary.total_amount),
      pending_count: Number(summary.pending_count),
      pending_amount: centsToDollars(summary.pending_amount),
      awaiting_second_approval_count: Number(summary.awaiting_count),
      awaiting_second_approval_amount: centsToDollars(summary.awaiting_amount),
      approved_count: Number(summary.approved_count),
      approved_amount: centsToDollars(summary.approved_amount),
      rejected_count: Number(summary.rejected_count),
      rejected_amount: centsToDollars(summary.rejected_amount),
    },
  };
}

async function staffView(deps: WithdrawalDeps, db: Db, actor: Actor, id: number): Promise<StaffWithdrawRequest> {
  const row = await withNames(db, actor).where('w.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404, 'withdraw_request_not_found');
  return (await toStaffRequests(deps, db, actor, [row]))[0]!;
}

/**
 * The request locked for processing, if it exists and its client is in the actor's scope (404 otherwise, D5);
 * 409 unless it is pending or awaiting its second approval. Concurrent calls queue on the row lock, so only the first
 * sees it in that state.
 */
async function lockPending(trx: Trx, actor: Actor, id: number) {
  const row = await scopedRequests(trx, actor)
    .select([
      'w.id',
      'w.client_id',
      'w.account_id',
      'w.amount_cents',
      'w.status',
      'w.card_last4',
      'w.first_approved_by',
      'w.first_approved_at',
    ])
    .where('w.id', '=', id)
    .forUpdate('w')
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'withdraw_request_not_found');
  if (row.status === 'approved') throw new HttpError(409, 'withdraw_request_already_approved');
  if (row.status === 'rejected') throw new HttpError(409, 'withdraw_request_already_rejected');
  return row;
}

/**
 * PUT /api/withdraw-requests/:id/approve: the hold becomes final (no balance change); who and when are recorded.
 * Four-eyes (D20): when the amount with the client's one-step approvals of the last 24 hours is above
 * WITHDRAWAL_SECOND_APPROVAL (issue 20 finding 3), the first approval (finance.view) only moves the request to
 * awaiting_second_approval (the hold stays, the first approver and the time are recorded); the same person again is
 * refused (409); a different person with finance.approve then approves it. Issue 9 finding 2 applies to both, and a
 * first approval that nobody else could complete is refused (issue 20 finding 4). The client row is locked, so two
 * approvals of one client's requests are summed one after the other.
 */
export async function approveWithdrawRequest(
  deps: WithdrawalDeps,
  actor: Actor,
  id: number,
): Promise<StaffWithdrawRequest> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockPending(trx, actor, id);
    await trx.selectFrom('clients').select('id').where('id', '=', Number(row.client_id)).forUpdate().execute();
    const second = row.status === 'awaiting_second_approval';
    const threshold = deps.secondApprovalCents ?? 0;
    const decision = (await approvalDecisions(trx, actor, threshold, [row], { withOthers: false })).get(id)!;
    if (decision.approve_blocked) {
      const status = decision.approve_blocked === 'withdraw_second_approval_forbidden' ? 403 : 409;
      throw new HttpError(status, decision.approve_blocked);
    }
    const before = {
      status: row.status,
      client_id: Number(row.client_id),
      amount: centsToDollars(row.amount_cents),
      card_last4: row.card_last4,
      ...(second ? { first_approved_by: row.first_approved_by, first_approved_at: iso(row.first_approved_at) } : {}),
    };
    if (!second && decision.needs_second_approval) {
      await trx
        .updateTable('withdraw_requests')
        .set({ status: 'awaiting_second_approval', first_approved_by: actor.id, first_approved_at: sql`now()` })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      await writeAudit(trx, actor, {
        action: 'withdrawal.first_approve',
        entityType: 'withdraw_request',
        entityId: id,
        before,
        after: { status: 'awaiting_second_approval' },
      });
      return staffView(deps, trx, actor, id);
    }
    await trx
      .updateTable('withdraw_requests')
      .set({ status: 'approved', processed_by: actor.id, processed_at: sql`now()` })
      .where('id', '=', id)
      .where('status', '=', row.status)
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'withdrawal.approve',
      entityType: 'withdraw_request',
      entityId: id,
      before,
      after: { status: 'approved' },
    });
    if (deps.mail) {
      await mailWithdrawalDecision(trx, deps.mail, {
        clientId: Number(row.client_id),
        amountCents: Number(row.amount_cents),
        cardLast4: row.card_last4,
        approved: true,
      });
    }
    return staffView(deps, trx, actor, id);
  });
}

/**
 * PUT /api/withdraw-requests/:id/reject: the hold is released (withdrawal_release, reference withdrawal:<id>:release,
 * so the amount can come back only once), with the reason if one is given.
 */
export async function rejectWithdrawRequest(
  deps: WithdrawalDeps,
  actor: Actor,
  id: number,
  input: RejectWithdrawRequest,
): Promise<StaffWithdrawRequest & { balance: number }> {
  const reason = input.reason?.trim() ? input.reason.trim() : null;
  const result = await deps.db.transaction().execute(async (trx) => {
    const row = await lockPending(trx, actor, id);
    await trx
      .updateTable('withdraw_requests')
      .set({ status: 'rejected', processed_by: actor.id, processed_at: sql`now()`, reject_reason: reason })
      .where('id', '=', id)
      .where('status', '=', row.status)
      .executeTakeFirstOrThrow();
    const amountCents = Number(row.amount_cents);
    const { entry } = await postEntry(trx, {
      accountId: Number(row.account_id),
      kind: 'withdrawal_release',
      amountCents,
      reference: `withdrawal:${id}:release`,
      actor,
      reason,
    });
    await writeAudit(trx, actor, {
      action: 'withdrawal.reject',
      entityType: 'withdraw_request',
      entityId: id,
      before: {
        status: row.status,
        client_id: Number(row.client_id),
        amount: centsToDollars(amountCents),
        card_last4: row.card_last4,
        ...(row.first_approved_by ? { first_approved_by: row.first_approved_by } : {}),
      },
      after: {
        status: 'rejected',
        reason,
        released: centsToDollars(amountCents),
        balance: centsToDollars(entry.balanceAfterCents),
      },
    });
    if (deps.mail) {
      await mailWithdrawalDecision(trx, deps.mail, {
        clientId: Number(row.client_id),
        amountCents,
        cardLast4: row.card_last4,
        approved: false,
        reason,
      });
    }
    return {
      account_id: Number(row.account_id),
      view: { ...(await staffView(deps, trx, actor, id)), balance: centsToDollars(entry.balanceAfterCents) },
    };
  });
  if (deps.bus) await publishBalanceChanged(deps.db, deps.bus, [result.account_id]);
  return result.view;
}

/**
 * POST /api/withdraw-requests/:id/reveal-card (D7): the full number, for a request the actor may see. The reveal is
 * written to the audit log first (who, which request, the last 4 digits — never the number); no audit row, no number.
 */
export async function revealCard(deps: WithdrawalDeps, actor: Actor, id: number): Promise<{ card_number: string }> {
  const row = await scopedRequests(deps.db, actor)
    .select(['w.id', 'w.client_id', 'w.card_last4', 'w.card_number_enc', 'w.status'])
    .where('w.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'withdraw_request_not_found');
  const number = deps.vault.decryptCard(row.card_number_enc);
  await writeAudit(deps.db, actor, {
    action: 'withdrawal.card_reveal',
    entityType: 'withdraw_request',
    entityId: id,
    after: { client_id: Number(row.client_id), card_last4: row.card_last4, status: row.status },
  });
  return { card_number: number };
}
