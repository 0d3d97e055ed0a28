import { randomUUID } from 'node:crypto';
import {
  centsToDollars,
  dollarsToCents,
  type AccountDetailResponse,
  type AccountSettingsRequest,
  type AccountsQuery,
  type AccountsResponse,
  type AdminTrade,
  type BalanceChangeRequest,
  type LedgerEntry as LedgerEntryView,
  type TradingAccount,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import type { EventBus } from '../../platform/bus/index.js';
import { lockBalance, postEntry, type LedgerEntry } from '../ledger/service.js';
import type { Trx } from '../../platform/db/types.js';
import { pendingCreditsOfAccount, requestManualCredit } from '../manual-credits/service.js';
import { creditWaits, lockClientOfAccount } from '../manual-credits/window.js';
import { toAdminTrade } from './mappers.js';
import { openTradingAccount } from './service.js';
import { pendingVoidsOfAccount } from './void-requests.js';

/**
 * Staff administration of trading accounts (back-office.md §2.16, §2.17, §7 with decisions.md D1): list and detail,
 * change a balance through the ledger with a reason, the three settings, block and activate (a trade's void is asked
 * for and confirmed in void-requests.ts). Every call is scoped by D5 (an account of a client outside the caller's
 * scope is 404) and every change is audited in its own transaction.
 */

export interface AdminDeps {
  db: Db;
  now: () => Date;
  /** Live updates (D11). */
  bus?: EventBus;
  /** MANUAL_CREDIT_MAX in cents: the largest balance change a staff member may make at once (issue 9 finding 2). */
  manualCreditMaxCents?: number;
  /** MANUAL_CREDIT_SECOND_APPROVAL in cents (D20): a raise above it waits for confirmation; 0 or absent = off. */
  secondApprovalCents?: number;
}

/** Trading accounts joined with their clients, limited to the clients the actor may see. */
function scopedAccounts(db: Db, actor: Actor) {
  return scopeClients(db.selectFrom('trading_accounts as a').innerJoin('clients', 'clients.id', 'a.client_id'), actor);
}

function withSummary(db: Db, actor: Actor) {
  return scopedAccounts(db, actor)
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('trades as t')
          .select([
            sql<string>`coalesce(sum(t.amount_cents) filter (where t.status <> 'voided'), 0)`.as('invested'),
            sql<string>`coalesce(sum(t.profit_cents), 0)`.as('profit'),
            sql<string>`count(*)`.as('total'),
            sql<string>`count(*) filter (where t.status = 'active')`.as('active'),
          ])
          .whereRef('t.account_id', '=', 'a.id')
          .as('ts'),
      (join) => join.onTrue(),
    )
    .select([
      'a.id',
      'a.client_id',
      'a.user_id',
      'a.balance_cents',
      'a.status',
      'a.trading_enabled',
      'a.max_trade_amount_cents',
      'a.payout_percentage',
      'a.last_activity',
      'a.created_at',
      'clients.name as client_name',
      'clients.email as client_email',
      (eb) => eb.selectFrom('users as u').select('u.platform_id').whereRef('u.id', '=', 'a.user_id').as('platform_id'),
      'ts.invested',
      'ts.profit',
      'ts.total',
      'ts.active',
    ]);
}

type SummaryRow = Awaited<ReturnType<ReturnType<typeof withSummary>['executeTakeFirstOrThrow']>>;

function toAccount(row: SummaryRow): TradingAccount {
  return {
    id: Number(row.id),
    client_id: Number(row.client_id),
    client_name: row.client_name,
    client_email: row.client_email,
    user_id: row.user_id,
    platform_id: row.platform_id ?? null,
    balance: centsToDollars(row.balance_cents),
    total_invested: centsToDollars(row.invested ?? 0),
    total_profit: centsToDollars(row.profit ?? 0),
    total_trades: Number(row.total ?? 0),
    active_trades_count: Number(row.active ?? 0),
    status: row.status,
    trading_enabled: row.trading_enabled,
    max_trade_amount: centsToDollars(row.max_trade_amount_cents),
    payout_percentage: row.payout_percentage,
    last_activity: row.last_activity === null ? null : new Date(row.last_activity).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export async function accountSummary(db: Db, actor: Actor, accountId: number): Promise<TradingAccount> {
  const row = await withSummary(db, actor).where('a.id', '=', accountId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'trading_account_not_found');
  return toAccount(row);
}

/** 404 unless the account exists and its client is in the actor's scope. */
async function assertInScope(db: Db, actor: Actor, accountId: number): Promise<void> {
  const row = await scopedAccounts(db, actor).select('a.id').where('a.id', '=', accountId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'trading_account_not_found');
}

const LIKE_ESCAPE = /[\\%_]/g;

/** GET /api/trading/admin/accounts: filtered, sorted and paged on the server (D4), with the five cards' figures. */
export async function listAccounts(deps: AdminDeps, actor: Actor, query: AccountsQuery): Promise<AccountsResponse> {
  const { db } = deps;
  let filtered = withSummary(db, actor);
  let counted = scopedAccounts(db, actor);
  const filters: ((q: typeof counted) => typeof counted)[] = [];
  if (query.search) {
    const like = `%${query.search.replace(LIKE_ESCAPE, (c) => `\\${c}`)}%`;
    const id = /^\d{1,15}$/.test(query.search) ? Number(query.search) : null;
    filters.push((q) =>
      q.where((eb) =>
        eb.or([
          eb('clients.name', 'ilike', like),
          eb('clients.email', 'ilike', like),
          ...(id !== null ? [eb('clients.id', '=', id), eb('a.id', '=', id)] : []),
        ]),
      ),
    );
  }
  if (query.status) filters.push((q) => q.where('a.status', '=', query.status!));
  switch (query.balance) {
    case 'zero':
      filters.push((q) => q.where('a.balance_cents', '=', 0));
      break;
    case 'low':
      filters.push((q) => q.where('a.balance_cents', '>', 0).where('a.balance_cents', '<=', 10_000));
      break;
    case 'medium':
      filters.push((q) => q.where('a.balance_cents', '>', 10_000).where('a.balance_cents', '<=', 100_000));
      break;
    case 'high':
      filters.push((q) => q.where('a.balance_cents', '>', 100_000));
      break;
  }
  for (const f of filters) {
    counted = f(counted);
    filtered = f(filtered as unknown as typeof counted) as unknown as typeof filtered;
  }

  const sortColumn = {
    id: 'a.id',
    balance: 'a.balance_cents',
    last_activity: 'a.last_activity',
    created_at: 'a.created_at',
  } as const;
  const [{ total }, rows, stats, tradeStats] = await Promise.all([
    counted.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    filtered
      .orderBy(sql.ref(sortColumn[query.sort]), (ob) =>
        query.order === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast(),
      )
      .orderBy('a.id', query.order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    scopedAccounts(db, actor)
      .select([
        sql<string>`count(*)`.as('accounts'),
        sql<string>`count(*) filter (where a.status = 'active')`.as('active'),
        sql<string>`coalesce(sum(a.balance_cents), 0)`.as('balance'),
      ])
      .executeTakeFirstOrThrow(),
    scopeClients(
      db
        .selectFrom('trades as t')
        .innerJoin('trading_accounts as a', 'a.id', 't.account_id')
        .innerJoin('clients', 'clients.id', 'a.client_id'),
      actor,
    )
      .select([
        sql<string>`coalesce(sum(t.profit_cents), 0)`.as('profit'),
        sql<string>`count(*) filter (where t.status = 'active')`.as('active'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    accounts: rows.map(toAccount),
    total: Number(total),
    stats: {
      totalAccounts: Number(stats.accounts),
      activeAccounts: Number(stats.active),
      totalBalance: centsToDollars(stats.balance),
      totalProfit: centsToDollars(tradeStats.profit),
      activeTrades: Number(tradeStats.active),
    },
  };
}

function tradesWithVoider(db: Db, accountId: number) {
  return db
    .selectFrom('trades')
    .leftJoin('users', 'users.id', 'trades.voided_by')
    .leftJoin('trade_void_requests as vr', (join) =>
      join.onRef('vr.trade_id', '=', 'trades.id').on('vr.status', '=', 'confirmed'),
    )
    .selectAll('trades')
    .select(['users.name as voided_by_name', 'vr.decided_by_name as void_confirmed_by_name'])
    .where('trades.account_id', '=', accountId);
}

export async function activeTrades(deps: AdminDeps, actor: Actor, accountId: number): Promise<AdminTrade[]> {
  await assertInScope(deps.db, actor, accountId);
  const rows = await tradesWithVoider(deps.db, accountId)
    .where('trades.status', '=', 'active')
    .orderBy('trades.expires_at')
    .orderBy('trades.id')
    .execute();
  return rows.map(toAdminTrade);
}

/** GET /api/trading/admin/accounts/:accountId: the account, its active trades and its 50 newest closed trades. */
export async function accountDetail(deps: AdminDeps, actor: Actor, accountId: number): Promise<AccountDetailResponse> {
  const account = await accountSummary(deps.db, actor, accountId);
  const [active, history, pendingCredits, pendingVoids] = await Promise.all([
    tradesWithVoider(deps.db, accountId)
      .where('trades.status', '=', 'active')
      .orderBy('trades.expires_at')
      .orderBy('trades.id')
      .execute(),
    tradesWithVoider(deps.db, accountId)
      .where('trades.status', '!=', 'active')
      .orderBy('trades.created_at', 'desc')
      .orderBy('trades.id', 'desc')
      .limit(50)
      .execute(),
    pendingCreditsOfAccount(deps.db, actor, accountId),
    pendingVoidsOfAccount(deps.db, actor, accountId, deps.now()),
  ]);
  return {
    account,
    activeTrades: active.map(toAdminTrade),
    tradeHistory: history.map(toAdminTrade),
    pendingCredits,
    pendingVoids,
  };
}

function toEntryView(e: LedgerEntry, actorName: string | null): LedgerEntryView {
  return {
    id: e.id,
    kind: e.kind,
    amount: centsToDollars(e.amountCents),
    balance_after: centsToDollars(e.balanceAfterCents),
    reference: e.reference,
    actor_id: e.actorId,
    actor_name: actorName,
    reason: e.reason,
    created_at: e.createdAt.toISOString(),
  };
}

/** The account's ledger, newest first: every balance change with its cause, author and reason. */
export async function accountLedger(
  deps: AdminDeps,
  actor: Actor,
  accountId: number,
  page: { page: number; per_page: number },
): Promise<{ items: LedgerEntryView[]; total: number }> {
  await assertInScope(deps.db, actor, accountId);
  const base = deps.db.selectFrom('ledger_entries as e').where('e.account_id', '=', accountId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    base
      .leftJoin('users', 'users.id', 'e.actor_id')
      .selectAll('e')
      .select('users.name as actor_name')
      .orderBy('e.id', 'desc')
      .limit(page.per_page)
      .offset((page.page - 1) * page.per_page)
      .execute(),
  ]);
  return {
    total: Number(total),
    items: rows.map((r) =>
      toEntryView(
        {
          id: Number(r.id),
          accountId: Number(r.account_id),
          kind: r.kind,
          amountCents: Number(r.amount_cents),
          balanceAfterCents: Number(r.balance_after_cents),
          reference: r.reference,
          actorId: r.actor_id,
          reason: r.reason,
          createdAt: new Date(r.created_at),
        },
        r.actor_name,
      ),
    ),
  };
}

/** A balance change that waits for a second staff member (D20): nothing moved. */
export interface AwaitingBalanceChange {
  status: 'awaiting_confirmation';
  credit_id: number;
  amount: number;
}

/**
 * 'Изменить баланс' (back-office.md §2.17): set, add or subtract, with a required reason, as one 'adjustment' entry
 * (none when setting the balance it already has). A result below 0 is refused. Runs in the caller's transaction so
 * the route can make it idempotent. A raise that would take the client's unconfirmed staff credits of the last 24 hours
 * above MANUAL_CREDIT_SECOND_APPROVAL (D20, amended by issue 20 finding 3) posts nothing: it becomes a pending manual
 * credit of the difference, answered as `awaiting_confirmation`.
 */
export async function changeBalance(
  deps: AdminDeps,
  trx: Trx,
  actor: Actor,
  accountId: number,
  input: BalanceChangeRequest,
): Promise<{ account: TradingAccount; entry: LedgerEntryView | null } | AwaitingBalanceChange> {
  await assertInScope(trx, actor, accountId);
  const amountCents = dollarsToCents(input.amount);
  if (amountCents === null || amountCents < 0 || (input.action !== 'set' && amountCents === 0)) {
    throw new HttpError(400, 'balance_amount_invalid');
  }
  // The client first, then the account (the order of deposit writes): credits to one client are summed one at a time.
  const clientId = await lockClientOfAccount(trx, accountId);
  const before = await lockBalance(trx, accountId);
  const delta = input.action === 'set' ? amountCents - before : input.action === 'add' ? amountCents : -amountCents;
  // Recorded deposits are not bounded by it; a change by hand is, however it is phrased (a 'set' counts its difference).
  const max = deps.manualCreditMaxCents;
  if (max !== undefined && Math.abs(delta) > max) {
    throw new HttpError(400, 'balance_change_too_large', { max: centsToDollars(max).toFixed(2) });
  }
  if (delta > 0 && (await creditWaits(trx, actor, clientId, delta, deps.secondApprovalCents ?? 0))) {
    const creditId = await requestManualCredit(trx, actor, {
      kind: 'balance_change',
      clientId,
      accountId,
      depositId: null,
      amountCents: delta,
      requestedAction: input.action === 'set' ? 'set' : 'add',
      requestedAmountCents: amountCents,
      reason: input.reason,
    });
    return { status: 'awaiting_confirmation', credit_id: creditId, amount: centsToDollars(delta) };
  }
  let entry: LedgerEntry | null = null;
  if (delta !== 0) {
    ({ entry } = await postEntry(trx, {
      accountId,
      kind: 'adjustment',
      amountCents: delta,
      reference: `adjustment:${randomUUID()}`,
      actor,
      reason: input.reason,
    }));
  }
  await writeAudit(trx, actor, {
    action: 'trading_account.balance_change',
    entityType: 'trading_account',
    entityId: accountId,
    before: { balance: centsToDollars(before) },
    after: {
      balance: centsToDollars(before + delta),
      action: input.action,
      amount: input.amount,
      reason: input.reason,
      ledger_entry_id: entry?.id ?? null,
    },
  });
  return { account: await accountSummary(trx, actor, accountId), entry: entry ? toEntryView(entry, actor.name) : null };
}

export async function updateSettings(
  deps: AdminDeps,
  actor: Actor,
  accountId: number,
  input: AccountSettingsRequest,
): Promise<TradingAccount> {
  await assertInScope(deps.db, actor, accountId);
  return deps.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('trading_accounts')
      .select(['trading_enabled', 'max_trade_amount_cents', 'payout_percentage'])
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const maxCents = input.max_trade_amount === undefined ? undefined : dollarsToCents(input.max_trade_amount);
    if (maxCents === null) throw new HttpError(400, 'balance_amount_invalid');
    const after = await trx
      .updateTable('trading_accounts')
      .set({
        ...(input.trading_enabled !== undefined ? { trading_enabled: input.trading_enabled } : {}),
        ...(maxCents !== undefined ? { max_trade_amount_cents: maxCents } : {}),
        ...(input.payout_percentage !== undefined ? { payout_percentage: input.payout_percentage } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', accountId)
      .returning(['trading_enabled', 'max_trade_amount_cents', 'payout_percentage'])
      .executeTakeFirstOrThrow();
    const view = (r: typeof before) => ({
      trading_enabled: r.trading_enabled,
      max_trade_amount: centsToDollars(r.max_trade_amount_cents),
      payout_percentage: r.payout_percentage,
    });
    await writeAudit(trx, actor, {
      action: 'trading_account.settings_update',
      entityType: 'trading_account',
      entityId: accountId,
      before: view(before),
      after: view(after),
    });
    return accountSummary(trx, actor, accountId);
  });
}

/** block: active → blocked; activate: any other status → active. Repeating one is a no-op without an audit row. */
export async function setAccountStatus(
  deps: AdminDeps,
  actor: Actor,
  accountId: number,
  action: 'block' | 'activate',
): Promise<TradingAccount> {
  await assertInScope(deps.db, actor, accountId);
  return deps.db.transaction().execute(async (trx) => {
    const { status } = await trx
      .selectFrom('trading_accounts')
      .select('status')
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const next = action === 'block' ? (status === 'active' ? 'blocked' : status) : 'active';
    if (next !== status) {
      await trx
        .updateTable('trading_accounts')
        .set({ status: next, updated_at: sql`now()` })
        .where('id', '=', accountId)
        .execute();
      await writeAudit(trx, actor, {
        action: action === 'block' ? 'trading_account.block' : 'trading_account.activate',
        entityType: 'trading_account',
        entityId: accountId,
        before: { status },
        after: { status: next },
      });
    }
    return accountSummary(trx, actor, accountId);
  });
}

/**
 * PUT /api/trading/admin/balance/:clientId {balance: 0} (back-office.md §7, §8 'Register: detail exactly Email already
 * registered'): opens the trading account of a registered client that has none, with balance 0. An existing account
 * is returned unchanged.
 */
export async function openAccountForClient(
  deps: AdminDeps,
  actor: Actor,
  clientId: number,
): Promise<{ account: TradingAccount; created: boolean }> {
  return deps.db.transaction().execute(async (trx) => {
    const client = await scopeClients(trx.selectFrom('clients').leftJoin('users', 'users.id', 'clients.user_id'), actor)
      .select(['clients.id', 'clients.user_id', 'users.role', 'users.deleted_at'])
      .where('clients.id', '=', clientId)
      .forUpdate('clients')
      .executeTakeFirst();
    if (!client) throw new HttpError(404, 'client_not_found');
    if (!client.user_id || client.role !== 'client' || client.deleted_at !== null)
      throw new HttpError(409, 'client_not_registered');
    const existing = await trx
      .selectFrom('trading_accounts')
      .select('id')
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (existing) return { account: await accountSummary(trx, actor, Number(existing.id)), created: false };
    const accountId = await openTradingAccount(trx, { clientId, userId: client.user_id });
    await writeAudit(trx, actor, {
      action: 'trading_account.create',
      entityType: 'trading_account',
      entityId: accountId,
      after: { client_id: clientId, user_id: client.user_id, balance: 0 },
    });
    return { account: await accountSummary(trx, actor, accountId), created: true };
  });
}
