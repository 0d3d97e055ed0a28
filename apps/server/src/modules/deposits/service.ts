import {
  API_ROUTE_CONDITIONS,
  can,
  dollarsToCents,
  centsToDollars,
  formatUsd,
  type Deposit,
  type DepositCreate,
  type DepositUpdate,
  type DepositWriteResponse,
  type DepositsQuery,
  type DepositFilters,
  type DepositsResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import { lockBalance, postEntry } from '../ledger/service.js';
import type { Trx } from '../../platform/db/types.js';
import { enqueuePostback } from '../postbacks/outbox.js';
import {
  dropPendingCredit,
  markReplaced,
  pendingCreditOfDeposit,
  requestManualCredit,
} from '../manual-credits/service.js';
import { creditWaits } from '../manual-credits/window.js';
import type { Mailer } from '../mail/mailer.js';
import { mailDepositCredited } from '../mail/events.js';

/**
 * Deposits recorded in the CRM (back-office.md §2.6, §2.10; decisions.md D3). A deposit credits the client's trading
 * account through the ledger (reference deposit:<id>) in the transaction that records it; editing posts a
 * deposit_correction of the difference (deposit:<id>:edit:<revision>), deleting one of −amount (deposit:<id>:delete);
 * a correction that would take the balance below 0 is refused. A client without a trading account yet keeps its
 * deposits uncredited until the account is opened (creditPendingDeposits). The type (first live deposit ftd, the
 * rest reload) and the client's ftd and total_deposits are derived here, in the same transaction, never from input.
 */

export interface DepositDeps {
  db: Db;
  timeZone: string;
  /** MANUAL_CREDIT_SECOND_APPROVAL in cents (D20); 0 or absent = off. */
  secondApprovalCents?: number;
}

/**
 * D20: how a deposit write treats the crediting of a large deposit. The routes pass MANUAL_CREDIT_SECOND_APPROVAL;
 * the demo seed passes SEED_CREDITS (it acts as the system, which the rule exempts).
 */
export interface CreditApproval {
  secondApprovalCents: number;
}
export const SEED_CREDITS: CreditApproval = { secondApprovalCents: 0 };

const iso = (d: Date | string) => new Date(d).toISOString();

/** The client, locked for the transaction, if the actor may see it (D5); 404 otherwise. */
async function lockClient(trx: Trx, actor: Actor, clientId: number) {
  const client = await scopeClients(trx.selectFrom('clients'), actor)
    .select(['clients.id', 'clients.status', 'clients.identity_verified', 'clients.assigned_manager'])
    .where('clients.id', '=', clientId)
    .forUpdate()
    .executeTakeFirst();
  if (!client) throw new HttpError(404, 'client_not_found');
  return client;
}

async function accountOf(trx: Trx, clientId: number): Promise<number | null> {
  const row = await trx
    .selectFrom('trading_accounts')
    .select('id')
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

/** Exactly the earliest live deposit is ftd; the client's ftd flag and total follow its live deposits. */
async function recompute(trx: Trx, clientId: number): Promise<void> {
  await trx
    .updateTable('deposits')
    .set({ deposit_type: 'reload' })
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .where('deposit_type', '=', 'ftd')
    .execute();
  await sql`
    update deposits set deposit_type = 'ftd'
    where id = (select id from deposits where client_id = ${clientId} and deleted_at is null order by created_at, id limit 1)`.execute(
    trx,
  );
  await sql`
    update clients set
      ftd = exists (select 1 from deposits d where d.client_id = ${clientId} and d.deleted_at is null),
      total_deposits_cents = (select coalesce(sum(d.amount_cents), 0) from deposits d where d.client_id = ${clientId} and d.deleted_at is null),
      updated_at = now()
    where id = ${clientId}`.execute(trx);
}

function selectDeposits(db: Db | Trx, actor: Actor) {
  return scopeClients(
    db
      .selectFrom('deposits as d')
      .innerJoin('clients', 'clients.id', 'd.client_id')
      .leftJoin('users as m', 'm.id', 'clients.assigned_manager'),
    actor,
  );
}

export const DEPOSIT_COLUMNS = [
  'd.id',
  'd.client_id',
  'clients.name as client_name',
  'd.deposit_type',
  'd.amount_cents',
  'd.notes',
  'd.created_at',
  'd.created_by',
  'd.created_by_name',
  'd.credited_at',
  'clients.assigned_manager',
  'm.name as assigned_manager_name',
] as const;

export type DepositRow = {
  id: string | number;
  client_id: string | number;
  client_name: string;
  deposit_type: 'ftd' | 'reload';
  amount_cents: string | number;
  notes: string;
  created_at: Date | string;
  created_by: string | null;
  created_by_name: string;
  credited_at: Date | string | null;
  assigned_manager: string | null;
  assigned_manager_name: string | null;
  credit_id?: string | number | null;
  credit_status?: 'pending' | 'confirmed' | 'cancelled' | null;
};

/** D20: the deposit's latest manual credit and its state (for the card and the write answers). */
function creditColumns() {
  return [
    sql<string | null>`(select mc.id from manual_credits mc where mc.deposit_id = d.id order by mc.id desc limit 1)`.as(
      'credit_id',
    ),
    sql<
      'pending' | 'confirmed' | 'cancelled' | null
    >`(select mc.status from manual_credits mc where mc.deposit_id = d.id order by mc.id desc limit 1)`.as(
      'credit_status',
    ),
  ] as const;
}

export function toDeposit(r: DepositRow): Deposit {
  return {
    id: Number(r.id),
    client_id: Number(r.client_id),
    client_name: r.client_name,
    deposit_type: r.deposit_type,
    amount: centsToDollars(r.amount_cents),
    notes: r.notes,
    created_at: iso(r.created_at),
    created_by: r.created_by,
    created_by_name: r.created_by_name,
    assigned_manager: r.assigned_manager,
    assigned_manager_name: r.assigned_manager_name,
    credited: r.credited_at !== null,
    credit_id: r.credit_id === null || r.credit_id === undefined ? null : Number(r.credit_id),
    credit_status: r.credit_status ?? null,
  };
}

async function answer(trx: Trx, id: number, accountId: number | null): Promise<DepositWriteResponse> {
  const row = await trx
    .selectFrom('deposits as d')
    .innerJoin('clients', 'clients.id', 'd.client_id')
    .leftJoin('users as m', 'm.id', 'clients.assigned_manager')
    .select([...DEPOSIT_COLUMNS, ...creditColumns()])
    .where('d.id', '=', id)
    .executeTakeFirstOrThrow();
  const balance =
    accountId === null
      ? null
      : centsToDollars(
          (
            await trx
              .selectFrom('trading_accounts')
              .select('balance_cents')
              .where('id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).balance_cents,
        );
  return { ...toDeposit(row as unknown as DepositRow), balance };
}

function cents(amount: number): number {
  const c = dollarsToCents(amount);
  if (c === null || c <= 0) throw new HttpError(400, 'balance_amount_invalid');
  return c;
}

/**
 * POST /api/deposits, in the caller's transaction (the route makes it idempotent). The first live deposit of a client
 * is ftd and turns a client in status new into ftd. When it would take the client's unconfirmed staff credits of the
 * last 24 hours above MANUAL_CREDIT_SECOND_APPROVAL (D20 as amended by issue 20 finding 3) the deposit is recorded
 * exactly the same way but its crediting waits for a second staff member (a pending manual credit of kind 'deposit').
 * `at`: when it was recorded, if not now (only the demo seed, which dates its desk's history a day back).
 */
export async function createDeposit(
  trx: Trx,
  actor: Actor,
  input: DepositCreate,
  approval: CreditApproval,
  options: { at?: Date; mail?: Mailer } = {},
): Promise<DepositWriteResponse> {
  const client = await lockClient(trx, actor, input.client_id);
  const amountCents = cents(input.amount);
  const waits = await creditWaits(trx, actor, input.client_id, amountCents, approval.secondApprovalCents);
  const prior = await trx
    .selectFrom('deposits')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('client_id', '=', input.client_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  // An unconfirmed link to this lead (issue 9 finding 1) keeps its deposits pending until the identity is confirmed.
  const accountId = client.identity_verified ? await accountOf(trx, input.client_id) : null;
  // D20: a large one is credited only once a second person confirmed it (and, still, the identity and the account).
  const creditNow = accountId !== null && !waits;
  const row = await trx
    .insertInto('deposits')
    .values({
      client_id: input.client_id,
      amount_cents: amountCents,
      deposit_type: 'reload',
      notes: input.notes ?? '',
      created_by: actor.id,
      created_by_name: actor.name,
      credited_at: creditNow ? (options.at ?? new Date()) : null,
      ...(options.at ? { created_at: options.at, updated_at: options.at } : {}),
      // The dashboard attributes the deposit to the manager who has the client now, for good (issue 11).
      attributed_manager: client.assigned_manager,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  const creditId = waits
    ? await requestManualCredit(trx, actor, {
        kind: 'deposit',
        clientId: input.client_id,
        accountId: await accountOf(trx, input.client_id),
        depositId: id,
        amountCents,
        reason: input.notes ?? '',
      })
    : null;
  if (creditNow) {
    await postEntry(trx, {
      accountId,
      kind: 'deposit',
      amountCents,
      reference: `deposit:${id}`,
      actor,
      reason: input.notes ?? null,
      ...(options.at ? { createdAt: options.at } : {}),
    });
    // Issue 22 §5: the client learns that the money is on the trading balance.
    if (options.mail) await mailDepositCredited(trx, options.mail, { clientId: input.client_id, amountCents });
  }
  await recompute(trx, input.client_id);
  const firstDeposit = Number(prior.n) === 0;
  if (firstDeposit && client.status === 'new') {
    await trx.updateTable('clients').set({ status: 'ftd' }).where('id', '=', input.client_id).execute();
  }
  // D13/D17: the affiliate learns of its lead's first deposit (PURCHASE) and of each later one (ADD_TO_CART).
  await enqueuePostback(trx, {
    clientId: input.client_id,
    event: firstDeposit ? 'PURCHASE' : 'ADD_TO_CART',
    amountCents,
  });
  const result = await answer(trx, id, accountId);
  await writeAudit(trx, actor, {
    action: 'deposit.create',
    entityType: 'deposit',
    entityId: id,
    after: {
      client_id: input.client_id,
      amount: result.amount,
      deposit_type: result.deposit_type,
      credited: result.credited,
      ...(creditId !== null ? { credit_id: creditId, credit_status: 'pending' } : {}),
      ...(firstDeposit && client.status === 'new' ? { client_status: 'ftd' } : {}),
    },
  });
  return result;
}

/** The live deposit with its client locked, if the actor may see the client; 404 otherwise. */
async function lockDeposit(trx: Trx, actor: Actor, id: number) {
  const found = await selectDeposits(trx, actor)
    .select('d.client_id')
    .where('d.id', '=', id)
    .where('d.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!found) throw new HttpError(404, 'deposit_not_found');
  await lockClient(trx, actor, Number(found.client_id));
  const deposit = await trx
    .selectFrom('deposits')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!deposit) throw new HttpError(404, 'deposit_not_found');
  return deposit;
}

/** Posts a correction; a negative one that the balance cannot take is refused with the numbers. */
async function correct(
  trx: Trx,
  actor: Actor,
  accountId: number,
  deltaCents: number,
  reference: string,
  refusal: 'deposit_edit_overdraws' | 'deposit_delete_overdraws',
): Promise<void> {
  if (deltaCents === 0) return;
  const balance = await lockBalance(trx, accountId);
  if (balance + deltaCents < 0) {
    throw new HttpError(409, refusal, { balance: formatUsd(balance), amount: formatUsd(-deltaCents) });
  }
  await postEntry(trx, { accountId, kind: 'deposit_correction', amountCents: deltaCents, reference, actor });
}

/**
 * PUT /api/deposits/:id: a new amount posts a correction of the difference (if the deposit was credited). D20: a raise
 * of a credited deposit that would take the client's unconfirmed staff credits of the last 24 hours above
 * MANUAL_CREDIT_SECOND_APPROVAL posts nothing yet: the difference becomes a pending 'deposit_edit' credit. Issue 20
 * finding 2: a pending credit is bound to its amount, so a new amount cancels the deposit's pending credit (audited)
 * and, where money still has to wait, asks anew: a deposit whose own crediting waited gets a new credit of the new
 * amount, a credited one a new 'deposit_edit' of the new difference. An uncredited deposit raised past the sum gets one.
 */
export async function updateDeposit(
  deps: DepositDeps,
  actor: Actor,
  id: number,
  input: DepositUpdate,
): Promise<DepositWriteResponse> {
  return deps.db.transaction().execute(async (trx) => {
    const deposit = await lockDeposit(trx, actor, id);
    const clientId = Number(deposit.client_id);
    const oldCents = Number(deposit.amount_cents);
    const newCents = cents(input.amount);
    const revision = deposit.revision + 1;
    const accountId = await accountOf(trx, clientId);
    const pending = await pendingCreditOfDeposit(trx, id);
    const threshold = deps.secondApprovalCents ?? 0;
    const reason = input.notes ?? deposit.notes;
    let creditId: number | null = null;
    if (newCents === oldCents) {
      // Only the notes: nothing moves, a waiting credit keeps waiting for the amount it was asked for.
      creditId = pending?.id ?? null;
    } else if (deposit.credited_at !== null && accountId !== null) {
      // What the ledger holds for it: the amount less a difference that still waits (and is dropped now).
      const creditedCents = oldCents - (pending?.kind === 'deposit_edit' ? pending.amountCents : 0);
      const delta = newCents - creditedCents;
      if (pending) await dropPendingCredit(trx, actor, pending, 'deposit amount edited');
      if (delta > 0 && (await creditWaits(trx, actor, clientId, delta, threshold))) {
        creditId = await requestManualCredit(trx, actor, {
          kind: 'deposit_edit',
          clientId,
          accountId,
          depositId: id,
          amountCents: delta,
          reason,
        });
      } else {
        await correct(trx, actor, accountId, delta, `deposit:${id}:edit:${revision}`, 'deposit_edit_overdraws');
      }
      if (pending && creditId !== null) await markReplaced(trx, pending.id, creditId);
    } else if (pending) {
      // Its crediting waited for someone who saw the old amount: that credit is cancelled, the new amount asked for.
      await dropPendingCredit(trx, actor, pending, 'deposit amount edited');
      creditId = await requestManualCredit(trx, actor, {
        kind: 'deposit',
        clientId,
        accountId,
        depositId: id,
        amountCents: newCents,
        reason,
      });
      await markReplaced(trx, pending.id, creditId);
    } else if (
      newCents > oldCents &&
      (await creditWaits(trx, actor, clientId, newCents, threshold, { exceptDepositId: id }))
    ) {
      creditId = await requestManualCredit(trx, actor, {
        kind: 'deposit',
        clientId,
        accountId,
        depositId: id,
        amountCents: newCents,
        reason,
      });
    }
    await trx
      .updateTable('deposits')
      .set({ amount_cents: newCents, notes: input.notes ?? deposit.notes, revision, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    await recompute(trx, clientId);
    await writeAudit(trx, actor, {
      action: 'deposit.update',
      entityType: 'deposit',
      entityId: id,
      before: { client_id: clientId, amount: centsToDollars(oldCents), notes: deposit.notes },
      after: {
        client_id: clientId,
        amount: centsToDollars(newCents),
        notes: input.notes ?? deposit.notes,
        ...(creditId !== null ? { credit_id: creditId, credit_status: 'pending' } : {}),
      },
    });
    return answer(trx, id, accountId);
  });
}

/** DELETE /api/deposits/:id: a correction of −amount (refused if the balance cannot take it); the types are recomputed. */
export async function deleteDeposit(deps: DepositDeps, actor: Actor, id: number): Promise<DepositWriteResponse> {
  return deps.db.transaction().execute(async (trx) => {
    const deposit = await lockDeposit(trx, actor, id);
    const clientId = Number(deposit.client_id);
    const amountCents = Number(deposit.amount_cents);
    const accountId = await accountOf(trx, clientId);
    const pending = await pendingCreditOfDeposit(trx, id);
    if (pending) await dropPendingCredit(trx, actor, pending, 'deposit deleted');
    if (deposit.credited_at !== null && accountId !== null) {
      // A difference that was still waiting (D20) never reached the ledger, so it is not taken back.
      const creditedCents = amountCents - (pending?.kind === 'deposit_edit' ? pending.amountCents : 0);
      await correct(trx, actor, accountId, -creditedCents, `deposit:${id}:delete`, 'deposit_delete_overdraws');
    }
    await trx
      .updateTable('deposits')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    await recompute(trx, clientId);
    await writeAudit(trx, actor, {
      action: 'deposit.delete',
      entityType: 'deposit',
      entityId: id,
      before: {
        client_id: clientId,
        amount: centsToDollars(amountCents),
        deposit_type: deposit.deposit_type,
        notes: deposit.notes,
      },
      ...(pending ? { after: { cancelled_credit_id: pending.id } } : {}),
    });
    return answer(trx, id, accountId);
  });
}

/**
 * The live deposits of the clients in scope (D5) matching the history's filters (§2.10): shared by the list and the
 * Excel export (modules/exports). Without client_id (the history) the caller needs finance.view (403); checks the
 * Manager filter's permission and a client_id's scope (404).
 */
export async function filteredDeposits(deps: DepositDeps, actor: Actor, query: DepositFilters) {
  const tz = deps.timeZone;
  const role = actor.role === 'system' ? null : actor.role;
  // Without client_id this is the whole history (§2.10): History is finance.view (§6), not every clients.view role.
  // The 403 is audited as access.denied by the guard's onError hook, like any refusal.
  if (query.client_id === undefined && !can(role, API_ROUTE_CONDITIONS['GET /api/deposits'].requires)) {
    throw new HttpError(403, 'forbidden');
  }
  if (query.created_by?.length && !can(role, 'deposits.manager_filter')) {
    throw new HttpError(403, 'forbidden');
  }
  if (query.client_id !== undefined) {
    const client = await scopeClients(deps.db.selectFrom('clients'), actor)
      .select('clients.id')
      .where('clients.id', '=', query.client_id)
      .executeTakeFirst();
    if (!client) throw new HttpError(404, 'client_not_found');
  }
  let q = selectDeposits(deps.db, actor).where('d.deleted_at', 'is', null);
  if (query.client_id !== undefined) q = q.where('d.client_id', '=', query.client_id);
  if (query.deposit_type?.length) q = q.where('d.deposit_type', 'in', query.deposit_type);
  if (query.created_by?.length) q = q.where('d.created_by', 'in', query.created_by);
  if (query.date_from)
    q = q.where('d.created_at', '>=', sql<Date>`(${query.date_from}::date)::timestamp at time zone ${tz}`);
  if (query.date_to)
    q = q.where('d.created_at', '<', sql<Date>`(${query.date_to}::date + 1)::timestamp at time zone ${tz}`);
  if (query.search) q = q.where('clients.name', 'ilike', `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return q;
}

/**
 * GET /api/deposits (§2.6 card with client_id, §2.10 history; D4, D5): the live deposits of the clients in scope,
 * filtered and paged, with the summary cards over the filtered list. Without client_id it needs finance.view; the
 * Manager filter (created_by) needs deposits.manager_filter. A client_id outside the scope answers 404 like a missing client.
 */
export async function listDeposits(deps: DepositDeps, actor: Actor, query: DepositsQuery): Promise<DepositsResponse> {
  const q = await filteredDeposits(deps, actor, query);

  const [summary, rows] = await Promise.all([
    q
      .select([
        sql<string>`count(*)`.as('count'),
        sql<string>`coalesce(sum(d.amount_cents), 0)`.as('total'),
        sql<string>`count(*) filter (where d.deposit_type = 'ftd')`.as('ftd'),
        sql<string>`count(*) filter (where d.deposit_type = 'reload')`.as('reload'),
      ])
      .executeTakeFirstOrThrow(),
    q
      .select([...DEPOSIT_COLUMNS, ...creditColumns()])
      .orderBy('d.created_at', query.order)
      .orderBy('d.id', query.order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  return {
    items: (rows as unknown as DepositRow[]).map(toDeposit),
    total: Number(summary.count),
    summary: {
      count: Number(summary.count),
      total_amount: centsToDollars(summary.total),
      ftd_count: Number(summary.ftd),
      reload_count: Number(summary.reload),
    },
  };
}
