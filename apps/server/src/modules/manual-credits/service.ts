import {
  centsToDollars,
  dollarsToCents,
  formatUsd,
  type CancelManualCreditRequest,
  type ConfirmManualCreditRequest,
  type ManualCredit,
  type ManualCreditConfirmBlock,
  type ManualCreditKind,
  type ManualCreditsQuery,
  type ManualCreditsResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { secondPersonBlock } from '../../platform/access/four-eyes.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import type { Mailer } from '../mail/mailer.js';
import { mailDepositCredited } from '../mail/events.js';
import type { EventBus } from '../../platform/bus/index.js';
import { publishBalanceChanged } from '../ledger/live.js';
import { postEntry } from '../ledger/service.js';
import type { Trx } from '../../platform/db/types.js';

/**
 * Maker-checker for manual money (decisions.md D20, issue 13 item 3). Money a staff member adds that would take the
 * client's unconfirmed staff credits of the last 24 hours above MANUAL_CREDIT_SECOND_APPROVAL (window.ts, issue 20
 * finding 3) does not move when they ask: a manual_credits row records it (author, client, amount, reason) and a second
 * staff member with finance.approve who is not its author confirms it, naming the amount they saw (issue 20 finding 2),
 * which posts the money through the ledger in that transaction, or cancels it with a reason. Three kinds:
 * - balance_change: a staff balance change that raises a balance ('add', or 'set' above the current balance; a 'set'
 *   waits as the difference measured when it was asked). Confirming posts an 'adjustment' (reference manual-credit:<id>).
 * - deposit: the crediting of a CRM deposit. The deposit itself is recorded at once (type, FTD, totals, statistics,
 *   postbacks); confirming posts its 'deposit' entry (reference deposit:<deposit id>, the one every deposit crediting
 *   uses) when the client has a trading account and a confirmed identity (issue 9 finding 1); otherwise the deposit stays
 *   uncredited until both hold, and creditPendingDeposits credits it then (it skips deposits whose credit is pending
 *   or cancelled). A pending credit's amount never changes: editing the deposit's amount cancels it and asks anew.
 * - deposit_edit: the difference of an edit that raised a credited deposit above the threshold; confirming posts a
 *   'deposit_correction' (reference manual-credit:<id>).
 * The references are unique in the ledger, so no credit is ever posted twice. Confirming a confirmed credit again
 * answers 200 with its state and changes nothing; its author confirming answers 409. Staff see and act on the credits
 * of the clients in their scope only (D5). The command line and the demo seed (role 'system', or a threshold of 0)
 * are exempt.
 */

export interface ManualCreditDeps {
  db: Db;
  bus?: EventBus;
  /** Issue 22 §5: a confirmed deposit credit e-mails the client (deposit_credited). */
  mail?: Mailer;
}

export interface NewManualCredit {
  kind: ManualCreditKind;
  clientId: number;
  accountId: number | null;
  depositId: number | null;
  amountCents: number;
  requestedAction?: 'add' | 'set' | null;
  requestedAmountCents?: number | null;
  reason: string;
}

/** Records a credit that waits for confirmation, audited, in the caller's transaction. Returns its id. */
export async function requestManualCredit(trx: Trx, actor: Actor, input: NewManualCredit): Promise<number> {
  const row = await trx
    .insertInto('manual_credits')
    .values({
      kind: input.kind,
      client_id: input.clientId,
      account_id: input.accountId,
      deposit_id: input.depositId,
      amount_cents: input.amountCents,
      requested_action: input.requestedAction ?? null,
      requested_amount_cents: input.requestedAmountCents ?? null,
      reason: input.reason,
      created_by: actor.id,
      created_by_name: actor.name,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  await writeAudit(trx, actor, {
    action: 'manual_credit.request',
    entityType: 'manual_credit',
    entityId: id,
    after: {
      kind: input.kind,
      status: 'pending',
      client_id: input.clientId,
      account_id: input.accountId,
      deposit_id: input.depositId,
      amount: centsToDollars(input.amountCents),
      reason: input.reason,
    },
  });
  return id;
}

/** The pending credit of a deposit (at most one), locked; null when none waits. */
export async function pendingCreditOfDeposit(trx: Trx, depositId: number) {
  const row = await trx
    .selectFrom('manual_credits')
    .select(['id', 'kind', 'amount_cents'])
    .where('deposit_id', '=', depositId)
    .where('status', '=', 'pending')
    .forUpdate()
    .executeTakeFirst();
  return row ? { id: Number(row.id), kind: row.kind, amountCents: Number(row.amount_cents) } : null;
}

/**
 * Cancels a pending credit because its cause changed (its deposit's amount was edited, or the deposit deleted), in the
 * caller's transaction, audited (manual_credit.cancel). The actor is who changed the deposit. Issue 20 finding 2: a
 * confirmer must never confirm an amount they did not see, so an amount edit cancels the credit and the caller asks
 * anew (markReplaced names the new one, which a confirmation of the old one then points to).
 */
export async function dropPendingCredit(
  trx: Trx,
  actor: Actor,
  credit: { id: number; kind: ManualCreditKind; amountCents: number },
  reason: string,
): Promise<void> {
  await trx
    .updateTable('manual_credits')
    .set({
      status: 'cancelled',
      decided_by: actor.id,
      decided_by_name: actor.name,
      decided_at: sql`now()`,
      cancel_reason: reason,
    })
    .where('id', '=', credit.id)
    .where('status', '=', 'pending')
    .execute();
  await writeAudit(trx, actor, {
    action: 'manual_credit.cancel',
    entityType: 'manual_credit',
    entityId: credit.id,
    before: { status: 'pending', kind: credit.kind, amount: centsToDollars(credit.amountCents) },
    after: { status: 'cancelled', reason },
  });
}

/** Names the credit that replaced a cancelled one (an amount edit of its deposit, issue 20 finding 2). */
export async function markReplaced(trx: Trx, creditId: number, replacedBy: number): Promise<void> {
  await trx.updateTable('manual_credits').set({ replaced_by: replacedBy }).where('id', '=', creditId).execute();
}

function scopedCredits(db: Db, actor: Actor) {
  return scopeClients(db.selectFrom('manual_credits as mc').innerJoin('clients', 'clients.id', 'mc.client_id'), actor);
}

function withColumns(db: Db, actor: Actor) {
  return scopedCredits(db, actor).select([
    'mc.id',
    'mc.kind',
    'mc.status',
    'mc.client_id',
    'clients.name as client_name',
    'mc.account_id',
    'mc.deposit_id',
    'mc.amount_cents',
    'mc.requested_action',
    'mc.requested_amount_cents',
    'mc.reason',
    'mc.created_by',
    'mc.created_by_name',
    'mc.created_at',
    sql<string>`floor(extract(epoch from (now() - mc.created_at)))`.as('age'),
    'mc.decided_by',
    'mc.decided_by_name',
    'mc.decided_at',
    'mc.cancel_reason',
    'mc.ledger_entry_id',
    'mc.replaced_by',
  ]);
}

type CreditRow = Awaited<ReturnType<ReturnType<typeof withColumns>['executeTakeFirstOrThrow']>>;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function toCredit(r: CreditRow, actor: Actor): ManualCredit {
  const blocked = r.status === 'pending' ? confirmBlocked(actor, r.created_by) : null;
  return {
    id: Number(r.id),
    kind: r.kind,
    status: r.status,
    client_id: Number(r.client_id),
    client_name: r.client_name,
    account_id: r.account_id === null ? null : Number(r.account_id),
    deposit_id: r.deposit_id === null ? null : Number(r.deposit_id),
    amount: centsToDollars(r.amount_cents),
    requested_action: r.requested_action === 'add' || r.requested_action === 'set' ? r.requested_action : null,
    requested_amount: r.requested_amount_cents === null ? null : centsToDollars(r.requested_amount_cents),
    reason: r.reason,
    created_by: r.created_by,
    created_by_name: r.created_by_name,
    created_at: iso(r.created_at)!,
    age_seconds: Math.max(0, Number(r.age)),
    decided_by: r.decided_by,
    decided_by_name: r.decided_by_name,
    decided_at: iso(r.decided_at),
    cancel_reason: r.cancel_reason,
    ledger_entry_id: r.ledger_entry_id === null ? null : Number(r.ledger_entry_id),
    replaced_by: r.replaced_by === null ? null : Number(r.replaced_by),
    can_confirm: r.status === 'pending' && blocked === null,
    confirm_blocked: blocked,
  };
}

/** Why the actor may not confirm (or cancel) a credit: its author, or a role that may not approve (D20). */
function confirmBlocked(actor: Actor, authorId: string | null): ManualCreditConfirmBlock | null {
  const block = secondPersonBlock(actor, authorId);
  return block === 'own_request' ? 'manual_credit_own' : block === 'not_an_approver' ? 'forbidden' : null;
}

async function creditView(db: Db, actor: Actor, id: number): Promise<ManualCredit> {
  const row = await withColumns(db, actor).where('mc.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404, 'manual_credit_not_found');
  return toCredit(row, actor);
}

/** GET /api/manual-credits: the credits of the clients in scope, of one status (pending: oldest first). */
export async function listManualCredits(
  deps: ManualCreditDeps,
  actor: Actor,
  query: ManualCreditsQuery,
): Promise<ManualCreditsResponse> {
  let filtered = scopedCredits(deps.db, actor).where('mc.status', '=', query.status);
  if (query.client_id !== undefined) filtered = filtered.where('mc.client_id', '=', query.client_id);
  if (query.account_id !== undefined) filtered = filtered.where('mc.account_id', '=', query.account_id);
  let rows = withColumns(deps.db, actor).where('mc.status', '=', query.status);
  if (query.client_id !== undefined) rows = rows.where('mc.client_id', '=', query.client_id);
  if (query.account_id !== undefined) rows = rows.where('mc.account_id', '=', query.account_id);
  const order = query.status === 'pending' ? 'asc' : 'desc';
  const [{ total }, pending, items] = await Promise.all([
    filtered.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    scopedCredits(deps.db, actor)
      .where('mc.status', '=', 'pending')
      .select([sql<string>`count(*)`.as('n'), sql<string>`coalesce(sum(mc.amount_cents), 0)`.as('cents')])
      .executeTakeFirstOrThrow(),
    rows
      .orderBy('mc.created_at', order)
      .orderBy('mc.id', order)
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
  ]);
  return {
    items: items.map((r) => toCredit(r, actor)),
    total: Number(total),
    pending_count: Number(pending.n),
    pending_amount: centsToDollars(pending.cents),
  };
}

/** The pending credits of one trading account (its balance changes, and its client's deposit credits). */
export async function pendingCreditsOfAccount(db: Db, actor: Actor, accountId: number): Promise<ManualCredit[]> {
  const rows = await withColumns(db, actor)
    .where('mc.status', '=', 'pending')
    .where((eb) =>
      eb.or([
        eb('mc.account_id', '=', accountId),
        eb(
          'mc.client_id',
          '=',
          eb.selectFrom('trading_accounts').select('client_id').where('trading_accounts.id', '=', accountId),
        ),
      ]),
    )
    .orderBy('mc.created_at')
    .orderBy('mc.id')
    .execute();
  return rows.map((r) => toCredit(r, actor));
}

/**
 * The credit, if its client is in the actor's scope (404 otherwise), with its client row locked first (the order
 * every deposit write takes), then its own row.
 */
async function lockCredit(trx: Trx, actor: Actor, id: number) {
  const found = await scopedCredits(trx, actor).select('mc.client_id').where('mc.id', '=', id).executeTakeFirst();
  if (!found) throw new HttpError(404, 'manual_credit_not_found');
  const client = await trx
    .selectFrom('clients')
    .select(['id', 'identity_verified'])
    .where('id', '=', Number(found.client_id))
    .forUpdate()
    .executeTakeFirstOrThrow();
  const credit = await trx
    .selectFrom('manual_credits')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { credit, identityVerified: client.identity_verified };
}

/** 409 credit_amount_changed: the amount the confirmer saw is not the one that would be posted (issue 20 finding 2). */
function amountChanged(seenCents: number, nowCents: number): HttpError {
  return new HttpError(409, 'credit_amount_changed', { seen: formatUsd(seenCents), amount: formatUsd(nowCents) });
}

/**
 * POST /api/manual-credits/:id/confirm {amount} (finance.approve). Its author → 409; an amount other than the credit's
 * → 409 credit_amount_changed, and so is a credit cancelled because its deposit's amount was edited (naming the new
 * amount); another cancelled one → 409; a confirmed one → 200 with its state and no second effect. Otherwise exactly
 * the amount the confirmer named is posted through the ledger in this transaction.
 */
export async function confirmManualCredit(
  deps: ManualCreditDeps,
  actor: Actor,
  id: number,
  input: ConfirmManualCreditRequest,
): Promise<ManualCredit> {
  const seenCents = dollarsToCents(input.amount);
  if (seenCents === null) throw new HttpError(400, 'balance_amount_invalid');
  const result = await deps.db.transaction().execute(async (trx) => {
    const { credit, identityVerified } = await lockCredit(trx, actor, id);
    if (secondPersonBlock(actor, credit.created_by) === 'own_request') throw new HttpError(409, 'manual_credit_own');
    if (credit.status === 'cancelled' && credit.replaced_by !== null) {
      // The deposit's amount was edited while it waited: name the amount its newest credit asks for.
      let replacement: { amount_cents: string | number; replaced_by: string | number | null } = credit;
      while (replacement.replaced_by !== null) {
        replacement = await trx
          .selectFrom('manual_credits')
          .select(['amount_cents', 'replaced_by'])
          .where('id', '=', Number(replacement.replaced_by))
          .executeTakeFirstOrThrow();
      }
      throw amountChanged(seenCents, Number(replacement.amount_cents));
    }
    if (Number(credit.amount_cents) !== seenCents) throw amountChanged(seenCents, Number(credit.amount_cents));
    if (credit.status === 'confirmed') return { accountId: null, view: await creditView(trx, actor, id) };
    if (credit.status === 'cancelled') throw new HttpError(409, 'manual_credit_already_cancelled');

    const amountCents = Number(credit.amount_cents);
    let accountId: number | null = null;
    let entryId: number | null = null;
    let depositCredited: boolean | null = null;
    if (credit.kind === 'balance_change') {
      accountId = Number(credit.account_id);
      const { entry } = await postEntry(trx, {
        accountId,
        kind: 'adjustment',
        amountCents,
        reference: `manual-credit:${id}`,
        // The entry is the author's balance change; the audit row names who confirmed it.
        actor: { id: credit.created_by },
        reason: credit.reason,
      });
      entryId = entry.id;
    } else {
      const depositId = Number(credit.deposit_id);
      const deposit = await trx
        .selectFrom('deposits')
        .select(['id', 'amount_cents', 'credited_at', 'deleted_at', 'created_by', 'notes'])
        .where('id', '=', depositId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (deposit.deleted_at !== null) throw new HttpError(404, 'deposit_not_found');
      // An edit cancels a waiting credit, so the two agree; should they ever not, nothing unseen is posted.
      if (credit.kind === 'deposit' && Number(deposit.amount_cents) !== amountCents) {
        throw amountChanged(seenCents, Number(deposit.amount_cents));
      }
      const account = await trx
        .selectFrom('trading_accounts')
        .select('id')
        .where('client_id', '=', Number(credit.client_id))
        .executeTakeFirst();
      accountId = account ? Number(account.id) : null;
      if (credit.kind === 'deposit') {
        // Finding 1 still holds: without an account or a confirmed identity the deposit waits for them (D3).
        if (deposit.credited_at === null && accountId !== null && identityVerified) {
          const { entry } = await postEntry(trx, {
            accountId,
            kind: 'deposit',
            amountCents,
            reference: `deposit:${depositId}`,
            actor: deposit.created_by ? { id: deposit.created_by } : null,
            reason: deposit.notes || null,
          });
          entryId = entry.id;
          await trx
            .updateTable('deposits')
            .set({ credited_at: sql`now()` })
            .where('id', '=', depositId)
            .execute();
          if (deps.mail) await mailDepositCredited(trx, deps.mail, { clientId: Number(credit.client_id), amountCents });
        }
        depositCredited = entryId !== null || deposit.credited_at !== null;
      } else if (accountId !== null) {
        const { entry } = await postEntry(trx, {
          accountId,
          kind: 'deposit_correction',
          amountCents,
          reference: `manual-credit:${id}`,
          actor: { id: credit.created_by },
          reason: credit.reason || null,
        });
        entryId = entry.id;
      }
    }
    await trx
      .updateTable('manual_credits')
      .set({
        status: 'confirmed',
        decided_by: actor.id,
        decided_by_name: actor.name,
        decided_at: sql`now()`,
        ledger_entry_id: entryId,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'manual_credit.confirm',
      entityType: 'manual_credit',
      entityId: id,
      before: {
        status: 'pending',
        kind: credit.kind,
        client_id: Number(credit.client_id),
        amount: centsToDollars(amountCents),
        author: credit.created_by_name,
      },
      after: {
        status: 'confirmed',
        ledger_entry_id: entryId,
        ...(depositCredited === null ? {} : { deposit_id: Number(credit.deposit_id), credited: depositCredited }),
      },
    });
    return { accountId: entryId !== null ? accountId : null, view: await creditView(trx, actor, id) };
  });
  if (deps.bus && result.accountId !== null) await publishBalanceChanged(deps.db, deps.bus, [result.accountId]);
  return result.view;
}

/**
 * POST /api/manual-credits/:id/cancel {reason} (finance.approve): a pending credit is dropped; nothing moves. A
 * cancelled deposit credit leaves the deposit recorded and uncredited.
 */
export async function cancelManualCredit(
  deps: ManualCreditDeps,
  actor: Actor,
  id: number,
  input: CancelManualCreditRequest,
): Promise<ManualCredit> {
  return deps.db.transaction().execute(async (trx) => {
    const { credit } = await lockCredit(trx, actor, id);
    if (credit.status === 'confirmed') throw new HttpError(409, 'manual_credit_already_confirmed');
    if (credit.status === 'cancelled') throw new HttpError(409, 'manual_credit_already_cancelled');
    await trx
      .updateTable('manual_credits')
      .set({
        status: 'cancelled',
        decided_by: actor.id,
        decided_by_name: actor.name,
        decided_at: sql`now()`,
        cancel_reason: input.reason,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    // A refused raise of a credited deposit: the deposit goes back to what the ledger holds for it (and the client's
    // total with it), so a later edit or deletion never corrects money that was never credited.
    let revertedTo: number | null = null;
    if (credit.kind === 'deposit_edit' && credit.deposit_id !== null) {
      const reverted = await trx
        .updateTable('deposits')
        .set({
          amount_cents: sql`amount_cents - ${credit.amount_cents}::bigint`,
          revision: sql`revision + 1`,
          updated_at: sql`now()`,
        })
        .where('id', '=', Number(credit.deposit_id))
        .where('deleted_at', 'is', null)
        .returning(['client_id', 'amount_cents'])
        .executeTakeFirst();
      if (reverted) {
        revertedTo = Number(reverted.amount_cents);
        await sql`update clients set total_deposits_cents = total_deposits_cents - ${credit.amount_cents}::bigint,
                    updated_at = now()
                  where id = ${reverted.client_id}`.execute(trx);
      }
    }
    await writeAudit(trx, actor, {
      action: 'manual_credit.cancel',
      entityType: 'manual_credit',
      entityId: id,
      before: {
        status: 'pending',
        kind: credit.kind,
        client_id: Number(credit.client_id),
        amount: centsToDollars(credit.amount_cents),
        author: credit.created_by_name,
      },
      after: {
        status: 'cancelled',
        reason: input.reason,
        ...(revertedTo !== null ? { deposit_amount: centsToDollars(revertedTo) } : {}),
      },
    });
    return creditView(trx, actor, id);
  });
}
