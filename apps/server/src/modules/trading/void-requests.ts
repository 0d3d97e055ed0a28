import {
  centsToDollars,
  type RejectVoidRequest,
  type TradeVoidRequest,
  type VoidRequestsQuery,
  type VoidRequestStatus,
  type VoidRequestsResponse,
  type VoidTradeRequest,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { secondPersonBlock } from '../../platform/access/four-eyes.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import type { EventBus } from '../../platform/bus/index.js';
import { publishBalanceChanged } from '../ledger/live.js';
import { postEntry } from '../ledger/service.js';
import type { Trx } from '../../platform/db/types.js';

/**
 * Voids take two people (issue 20 finding 11; decisions.md D20 'Voids'; D1 keeps voiding the one thing staff may do
 * to a trade). The void call (trading.manage) records a request — trade, who asked, why, when — and moves nothing.
 * A second staff member with finance.approve who did not ask confirms it: in one transaction the trade is voided, its
 * stake returned through the ledger (trade_refund, reference trade:<id>:settle, the one settlement would use, so the
 * stake can never come back twice) and the audit row written. Or they reject it with a reason.
 *
 * Settlement never waits on a request: a request holds no lock on its trade. Confirming locks the trade (settlement
 * claims with SKIP LOCKED, so it passes over it) and voids it only while it is active and before its expiry (both guard
 * status = 'active'); a request whose trade reached its expiry first has lapsed: the confirm answers 409
 * void_request_lapsed and nothing moves. Lapsing is derived when a request is read (stored 'pending', trade expired or
 * no longer active), so reading never writes; the stored status follows, with an audit row, when a confirm, a
 * rejection or a withdrawal meets such a request. Its requester may withdraw a waiting request. Scoped by D5 (out of
 * scope = 404).
 */

export interface VoidRequestDeps {
  db: Db;
  now: () => Date;
  /** Live updates (D11): balance.changed after a confirmed void. */
  bus?: EventBus;
}

function scopedRequests(db: Db, actor: Actor) {
  return scopeClients(
    db
      .selectFrom('trade_void_requests as vr')
      .innerJoin('trades as t', 't.id', 'vr.trade_id')
      .innerJoin('trading_accounts as a', 'a.id', 't.account_id')
      .innerJoin('clients', 'clients.id', 'a.client_id'),
    actor,
  );
}

type Scoped = ReturnType<typeof scopedRequests>;

/** A stored pending request whose trade reached its expiry or closed (settled, voided): it has lapsed. */
const lapsedAt = (now: Date) =>
  sql<boolean>`(vr.status = 'pending' and (t.status <> 'active' or t.expires_at <= ${now}))`;

/** The requests that are in `status` as of `now` (lapsed ones include those derived from their trade). */
function whereStatus(query: Scoped, status: VoidRequestStatus, now: Date): Scoped {
  if (status === 'pending') {
    return query.where('vr.status', '=', 'pending').where('t.status', '=', 'active').where('t.expires_at', '>', now);
  }
  if (status === 'lapsed') return query.where((eb) => eb.or([eb('vr.status', '=', 'lapsed'), lapsedAt(now)]));
  return query.where('vr.status', '=', status);
}

/** The moment a request lapsed: its trade's expiry, or its closing if that came first. */
const LAPSED_AT = sql<Date>`least(t.expires_at, coalesce(t.settled_at, t.expires_at))`;

function withColumns(query: Scoped, now: Date) {
  return query.select([
    'vr.id',
    sql<VoidRequestStatus>`case when ${lapsedAt(now)} then 'lapsed' else vr.status end`.as('status'),
    'vr.trade_id',
    't.account_id',
    'a.client_id',
    'clients.name as client_name',
    't.asset',
    't.direction',
    't.amount_cents',
    't.expires_at',
    't.status as trade_status',
    'vr.reason',
    'vr.requested_by',
    'vr.requested_by_name',
    'vr.requested_at',
    sql<string>`floor(extract(epoch from (now() - vr.requested_at)))`.as('age'),
    'vr.decided_by',
    'vr.decided_by_name',
    sql<Date | null>`case when ${lapsedAt(now)} then ${LAPSED_AT} else vr.decided_at end`.as('decided_at'),
    'vr.reject_reason',
    'vr.ledger_entry_id',
  ]);
}

type RequestRow = Awaited<ReturnType<ReturnType<typeof withColumns>['executeTakeFirstOrThrow']>>;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function toView(r: RequestRow, actor: Actor): TradeVoidRequest {
  const block = r.status === 'pending' ? secondPersonBlock(actor, r.requested_by) : null;
  const blocked = block === 'own_request' ? 'void_request_own' : block === 'not_an_approver' ? 'forbidden' : null;
  return {
    id: Number(r.id),
    status: r.status,
    trade_id: Number(r.trade_id),
    account_id: Number(r.account_id),
    client_id: Number(r.client_id),
    client_name: r.client_name,
    asset: r.asset,
    direction: r.direction,
    amount: centsToDollars(r.amount_cents),
    expires_at: iso(r.expires_at)!,
    trade_status: r.trade_status,
    reason: r.reason,
    requested_by: r.requested_by,
    requested_by_name: r.requested_by_name,
    requested_at: iso(r.requested_at)!,
    age_seconds: Math.max(0, Number(r.age)),
    decided_by: r.decided_by,
    decided_by_name: r.decided_by_name,
    decided_at: iso(r.decided_at),
    reject_reason: r.reject_reason,
    ledger_entry_id: r.ledger_entry_id === null ? null : Number(r.ledger_entry_id),
    can_confirm: r.status === 'pending' && blocked === null,
    confirm_blocked: blocked,
  };
}

async function requestView(db: Db, actor: Actor, id: number, now: Date): Promise<TradeVoidRequest> {
  const row = await withColumns(scopedRequests(db, actor), now).where('vr.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404, 'void_request_not_found');
  return toView(row, actor);
}

/**
 * POST /api/trading/admin/accounts/:accountId/void-trade {trade_id, reason} (trading.manage): records the request and
 * answers it (202), in the caller's transaction (the route's Idempotency-Key, D3). A closed trade → 409
 * trade_not_active; one past its expiry (settled or not: its outcome is fixed, D1) → 409 void_trade_expired; a trade
 * whose void already waits → 409 void_request_pending.
 */
export async function requestVoid(
  deps: VoidRequestDeps,
  trx: Trx,
  actor: Actor,
  accountId: number,
  input: VoidTradeRequest,
): Promise<TradeVoidRequest> {
  const account = await scopeClients(
    trx.selectFrom('trading_accounts as a').innerJoin('clients', 'clients.id', 'a.client_id'),
    actor,
  )
    .select('a.id')
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new HttpError(404, 'trading_account_not_found');
  // Read, not locked: the request must never hold up settlement. A trade that settles right after this check
  // leaves a request that lapses.
  const trade = await trx
    .selectFrom('trades')
    .select(['id', 'status', 'asset', 'amount_cents', 'expires_at'])
    .where('id', '=', input.trade_id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!trade) throw new HttpError(404, 'trade_not_found');
  if (trade.status !== 'active') throw new HttpError(409, 'trade_not_active');
  const now = deps.now();
  if (new Date(trade.expires_at) <= now) throw new HttpError(409, 'void_trade_expired');
  // One waiting request per trade (the partial unique index): a second one, even at the same moment, inserts
  // nothing (the later insert waits for the first to commit) and is refused.
  const row = await trx
    .insertInto('trade_void_requests')
    .values({
      trade_id: trade.id,
      reason: input.reason,
      requested_by: actor.id,
      requested_by_name: actor.name,
    })
    .onConflict((oc) => oc.column('trade_id').where('status', '=', 'pending').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!row) throw new HttpError(409, 'void_request_pending');
  const id = Number(row.id);
  await writeAudit(trx, actor, {
    action: 'trade.void_request',
    entityType: 'trade',
    entityId: Number(trade.id),
    after: {
      void_request_id: id,
      status: 'pending',
      account_id: accountId,
      asset: trade.asset,
      amount: centsToDollars(trade.amount_cents),
      expires_at: iso(trade.expires_at),
      reason: input.reason,
    },
  });
  return requestView(trx, actor, id, now);
}

/**
 * Stores the lapse of one request that a confirm, a rejection or a withdrawal found lapsed (its trade expired or
 * closed while it waited), with an audit row; `decided_at` is the moment read-time derivation shows, so the request
 * reads the same before and after. From the expiry on, its outcome is fixed by the published rule (D1), and a void
 * confirmed after it would let two people pick the losing trades to undo.
 */
async function recordLapse(trx: Trx, now: Date, requestId: number): Promise<void> {
  const lapsed = await trx
    .updateTable('trade_void_requests as vr')
    .from('trades as t')
    .set({ status: 'lapsed', decided_at: LAPSED_AT })
    .whereRef('t.id', '=', 'vr.trade_id')
    .where('vr.id', '=', requestId)
    .where(lapsedAt(now))
    .returning(['vr.id', 'vr.trade_id', 't.status as trade_status'])
    .execute();
  for (const r of lapsed) {
    await writeAudit(trx, null, {
      action: 'trade.void_lapse',
      entityType: 'trade',
      entityId: Number(r.trade_id),
      before: { void_request_id: Number(r.id), status: 'pending' },
      after: { status: 'lapsed', trade_status: r.trade_status },
    });
  }
}

/**
 * GET /api/void-requests (finance.view): the requests of the clients in scope, of one status (pending: oldest first),
 * as of now: a request whose trade expired or closed while it waited is lapsed, derived here, nothing written.
 */
export async function listVoidRequests(
  deps: VoidRequestDeps,
  actor: Actor,
  query: VoidRequestsQuery,
): Promise<VoidRequestsResponse> {
  const now = deps.now();
  let filtered = whereStatus(scopedRequests(deps.db, actor), query.status, now);
  if (query.account_id !== undefined) filtered = filtered.where('t.account_id', '=', query.account_id);
  const order = query.status === 'pending' ? 'asc' : 'desc';
  const [{ total }, pending, items] = await Promise.all([
    filtered.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    whereStatus(scopedRequests(deps.db, actor), 'pending', now)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
    withColumns(filtered, now)
      .orderBy('vr.requested_at', order)
      .orderBy('vr.id', order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  return { items: items.map((r) => toView(r, actor)), total: Number(total), pending_count: Number(pending.n) };
}

/** The account's voids waiting for confirmation (trade active, before its expiry): the account detail, oldest first. */
export async function pendingVoidsOfAccount(
  db: Db,
  actor: Actor,
  accountId: number,
  now: Date,
): Promise<TradeVoidRequest[]> {
  const rows = await withColumns(
    whereStatus(scopedRequests(db, actor), 'pending', now).where('t.account_id', '=', accountId),
    now,
  )
    .orderBy('vr.requested_at')
    .orderBy('vr.id')
    .execute();
  return rows.map((r) => toView(r, actor));
}

/** 404 unless the request exists and its client is in the actor's scope; its trade id. */
async function findInScope(trx: Trx, actor: Actor, id: number): Promise<number> {
  const found = await scopedRequests(trx, actor).select('vr.trade_id').where('vr.id', '=', id).executeTakeFirst();
  if (!found) throw new HttpError(404, 'void_request_not_found');
  return Number(found.trade_id);
}

function lockRequest(trx: Trx, id: number) {
  return trx.selectFrom('trade_void_requests').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

function refuseDecided(status: string): void {
  if (status === 'rejected') throw new HttpError(409, 'void_request_already_rejected');
  if (status === 'lapsed') throw new HttpError(409, 'void_request_lapsed');
  if (status === 'withdrawn') throw new HttpError(409, 'void_request_withdrawn');
}

/** Whether the trade has reached its expiry or closed: a request of it has lapsed. */
const tradeOver = (trade: { status: string; expires_at: Date | string }, now: Date) =>
  trade.status !== 'active' || new Date(trade.expires_at) <= now;

/**
 * POST /api/void-requests/:id/confirm (finance.approve). Its requester → 409 void_request_own; rejected, withdrawn or
 * lapsed → 409; confirmed → 200 with its state and no second effect; a trade that reached its expiry or settled
 * meanwhile → the request's lapse is stored and 409 void_request_lapsed. Otherwise the trade is voided as D1 says, in this transaction.
 */
export async function confirmVoidRequest(deps: VoidRequestDeps, actor: Actor, id: number): Promise<TradeVoidRequest> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const tradeId = await findInScope(trx, actor, id);
    // The trade first, then the request: the order every path that takes both uses.
    const trade = await trx
      .selectFrom('trades')
      .selectAll()
      .where('id', '=', tradeId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const request = await lockRequest(trx, id);
    if (secondPersonBlock(actor, request.requested_by) === 'own_request') throw new HttpError(409, 'void_request_own');
    const now = deps.now();
    if (request.status === 'confirmed')
      return { lapsed: false, accountId: null, view: await requestView(trx, actor, id, now) };
    refuseDecided(request.status);
    if (tradeOver(trade, now)) {
      await recordLapse(trx, now, id);
      return { lapsed: true, accountId: null, view: null };
    }

    const accountId = Number(trade.account_id);
    const amountCents = Number(trade.amount_cents);
    await trx
      .updateTable('trades')
      .set({
        status: 'voided',
        void_reason: request.reason,
        // The void is the requester's (their reason); the request and the audit row name who confirmed it.
        voided_by: request.requested_by,
        settled_at: now,
        profit_cents: 0,
      })
      .where('id', '=', trade.id)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    const { entry } = await postEntry(trx, {
      accountId,
      kind: 'trade_refund',
      amountCents,
      reference: `trade:${trade.id}:settle`,
      actor: { id: request.requested_by },
      reason: request.reason,
    });
    await trx
      .updateTable('trade_void_requests')
      .set({
        status: 'confirmed',
        decided_by: actor.id,
        decided_by_name: actor.name,
        decided_at: sql`now()`,
        ledger_entry_id: entry.id,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'trade.void',
      entityType: 'trade',
      entityId: Number(trade.id),
      before: {
        status: 'active',
        account_id: accountId,
        asset: trade.asset,
        amount: centsToDollars(amountCents),
        void_request_id: id,
        requested_by: request.requested_by_name,
      },
      after: {
        status: 'voided',
        reason: request.reason,
        refunded: centsToDollars(amountCents),
        balance: centsToDollars(entry.balanceAfterCents),
      },
    });
    return { lapsed: false, accountId, view: await requestView(trx, actor, id, now) };
  });
  if (result.lapsed) throw new HttpError(409, 'void_request_lapsed');
  if (deps.bus && result.accountId !== null) await publishBalanceChanged(deps.db, deps.bus, [result.accountId]);
  return result.view!;
}

/**
 * POST /api/void-requests/:id/reject {reason} (finance.approve): nothing moves and the trade settles as usual. A
 * decided request → 409; one whose trade reached its expiry or settled meanwhile lapses (stored) → 409.
 */
export async function rejectVoidRequest(
  deps: VoidRequestDeps,
  actor: Actor,
  id: number,
  input: RejectVoidRequest,
): Promise<TradeVoidRequest> {
  return closePending(deps, actor, id, {
    status: 'rejected',
    set: { reject_reason: input.reason },
    audit: (request) => ({
      action: 'trade.void_reject',
      before: { requested_by: request.requested_by_name, reason: request.reason },
      after: { status: 'rejected', reason: input.reason },
    }),
  });
}

/**
 * POST /api/void-requests/:id/withdraw (trading.manage): its requester takes back a request that still waits; nothing
 * moves and the trade settles as usual. Anyone else → 403 void_request_withdraw_not_own; a decided request → 409; one
 * whose trade reached its expiry or settled meanwhile lapses (stored) → 409 void_request_lapsed.
 */
export async function withdrawVoidRequest(deps: VoidRequestDeps, actor: Actor, id: number): Promise<TradeVoidRequest> {
  return closePending(deps, actor, id, {
    status: 'withdrawn',
    ownOnly: true,
    audit: (request) => ({
      action: 'trade.void_withdraw',
      before: { reason: request.reason },
      after: { status: 'withdrawn' },
    }),
  });
}

/**
 * A waiting request closed without moving anything (rejected by an approver, withdrawn by its requester), under the
 * request's lock, in the caller's scope. A decided request → 409; one whose trade reached its expiry or settled
 * meanwhile lapses (stored) → 409 void_request_lapsed. `ownOnly`: only its requester may (else 403).
 */
async function closePending(
  deps: VoidRequestDeps,
  actor: Actor,
  id: number,
  close: {
    status: 'rejected' | 'withdrawn';
    ownOnly?: boolean;
    set?: { reject_reason: string };
    audit: (request: Awaited<ReturnType<typeof lockRequest>>) => {
      action: 'trade.void_reject' | 'trade.void_withdraw';
      before: Record<string, unknown>;
      after: Record<string, unknown>;
    };
  },
): Promise<TradeVoidRequest> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const tradeId = await findInScope(trx, actor, id);
    const request = await lockRequest(trx, id);
    if (close.ownOnly && (request.requested_by === null || request.requested_by !== actor.id)) {
      throw new HttpError(403, 'void_request_withdraw_not_own');
    }
    if (request.status === 'confirmed') throw new HttpError(409, 'void_request_already_confirmed');
    refuseDecided(request.status);
    const trade = await trx
      .selectFrom('trades')
      .select(['status', 'expires_at'])
      .where('id', '=', tradeId)
      .executeTakeFirstOrThrow();
    const now = deps.now();
    if (tradeOver(trade, now)) {
      await recordLapse(trx, now, id);
      return null;
    }
    await trx
      .updateTable('trade_void_requests')
      .set({
        status: close.status,
        decided_by: actor.id,
        decided_by_name: actor.name,
        decided_at: sql`now()`,
        ...close.set,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const audit = close.audit(request);
    await writeAudit(trx, actor, {
      action: audit.action,
      entityType: 'trade',
      entityId: tradeId,
      before: { void_request_id: id, status: 'pending', ...audit.before },
      after: audit.after,
    });
    return requestView(trx, actor, id, now);
  });
  if (result === null) throw new HttpError(409, 'void_request_lapsed');
  return result;
}
