import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { LedgerKind, Trx } from '../../platform/db/types.js';
import type { Actor } from '../../platform/auth/actor.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * The ledger (decisions.md D3): every change of a trading balance is one entry — kind, signed amount, the balance
 * after it, a unique reference to its cause, who and why — written in the same transaction as the balance itself.
 * This module is the only code that writes trading_accounts.balance_cents or ledger_entries (money-door.test.ts scans
 * for any other): single postings here (postEntry), and the ledger's parts of the two set-based statements that move
 * money for many rows at once, which place-trade and settlement compose into their one statement (statement-parts.ts).
 */

export interface LedgerEntry {
  id: number;
  accountId: number;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  reference: string;
  actorId: string | null;
  reason: string | null;
  createdAt: Date;
}

export interface PostEntryInput {
  accountId: number;
  kind: LedgerKind;
  /** Signed: positive credits the account, negative debits it. */
  amountCents: number;
  /** The cause, unique across the ledger ('trade:42:stake'); posting the same reference twice has no second effect. */
  reference: string;
  actor: Pick<Actor, 'id'> | null;
  reason?: string | null;
  /** When the entry was made, if not now: only the demo seed, which dates its desk's history a day back. */
  createdAt?: Date;
}

export interface PostedEntry {
  entry: LedgerEntry;
  /** false when the reference had already been posted: the first entry is returned and nothing changed. */
  created: boolean;
}

export function toLedgerEntry(row: {
  id: string | number;
  account_id: string | number;
  kind: LedgerKind;
  amount_cents: string | number;
  balance_after_cents: string | number;
  reference: string;
  actor_id: string | null;
  reason: string | null;
  created_at: Date | string;
}): LedgerEntry {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    kind: row.kind,
    amountCents: Number(row.amount_cents),
    balanceAfterCents: Number(row.balance_after_cents),
    reference: row.reference,
    actorId: row.actor_id,
    reason: row.reason,
    createdAt: new Date(row.created_at),
  };
}

/**
 * Posts one entry and moves the balance with it, inside the caller's transaction. The balance moves first, in one
 * guarded statement (UPDATE … SET balance = balance + amount WHERE balance + amount >= 0), which also locks the
 * account row until the transaction ends: concurrent postings on one account queue up and each sees the balance the
 * previous one left. A result below 0 is refused with 409 'Недостаточно средств на торговом счете' and nothing is
 * written. A reference that is already in the ledger is a no-op returning the first entry (exactly once).
 */
export async function postEntry(trx: Trx, input: PostEntryInput): Promise<PostedEntry> {
  if (!Number.isSafeInteger(input.amountCents)) throw new RangeError(`amount is not whole cents: ${input.amountCents}`);
  const moved = await trx
    .updateTable('trading_accounts')
    // live_seq: the account's live-update sequence (migration 0026), raised with every change of the account.
    .set({
      balance_cents: sql`balance_cents + ${input.amountCents}`,
      updated_at: sql`now()`,
      live_seq: sql`live_seq + 1`,
    })
    .where('id', '=', input.accountId)
    .where(sql`balance_cents + ${input.amountCents}`, '>=', 0)
    .returning('balance_cents')
    .executeTakeFirst();
  if (!moved) {
    // An entry posted before is still a no-op, even when the balance could not take it again.
    const existing = await entryByReference(trx, input);
    if (existing) return { entry: existing, created: false };
    const account = await trx
      .selectFrom('trading_accounts')
      .select('id')
      .where('id', '=', input.accountId)
      .executeTakeFirst();
    if (!account) throw new HttpError(404, 'trading_account_not_found');
    throw new HttpError(409, 'insufficient_funds');
  }

  const row = await trx
    .insertInto('ledger_entries')
    .values({
      account_id: input.accountId,
      kind: input.kind,
      amount_cents: input.amountCents,
      balance_after_cents: moved.balance_cents,
      reference: input.reference,
      actor_id: input.actor?.id ?? null,
      reason: input.reason ?? null,
      ...(input.createdAt ? { created_at: input.createdAt } : {}),
    })
    .onConflict((oc) => oc.column('reference').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row) return { entry: toLedgerEntry(row), created: true };

  // The reference was posted already (by a concurrent transaction that committed first, or earlier): put the balance
  // back as it was — same transaction, so no one ever saw it moved — and answer with the first entry.
  await trx
    .updateTable('trading_accounts')
    .set({ balance_cents: sql`balance_cents - ${input.amountCents}` })
    .where('id', '=', input.accountId)
    .execute();
  const existing = await entryByReference(trx, input);
  if (!existing) throw new Error(`ledger reference ${input.reference} conflicted but cannot be read`);
  return { entry: existing, created: false };
}

async function entryByReference(trx: Trx, input: PostEntryInput): Promise<LedgerEntry | undefined> {
  const row = await trx
    .selectFrom('ledger_entries')
    .selectAll()
    .where('reference', '=', input.reference)
    .executeTakeFirst();
  if (!row) return undefined;
  if (Number(row.account_id) !== input.accountId)
    throw new Error(`ledger reference ${input.reference} belongs to another account`);
  return toLedgerEntry(row);
}

/** The balance of an account, locked for the rest of the transaction (to compute a change from it). */
export async function lockBalance(trx: Trx, accountId: number): Promise<number> {
  const row = await trx
    .selectFrom('trading_accounts')
    .select('balance_cents')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'trading_account_not_found');
  return Number(row.balance_cents);
}

export interface LedgerMismatch {
  accountId: number;
  balanceCents: number;
  /** The sum of the account's entries. */
  ledgerCents: number;
  /** The balance_after of the account's newest entry (null without entries). */
  lastBalanceAfterCents: number | null;
  /** Entries whose balance_after is not the running sum of the entries up to them. */
  badEntryIds: number[];
}

/**
 * Recomputes every account from its entries: the balance must equal the sum of the entries and the newest entry's
 * balance_after, and each entry's balance_after must be the running sum. Returns the accounts that disagree
 * (an empty list is the money invariant holding).
 */
export async function reconcile(db: Db): Promise<LedgerMismatch[]> {
  const accounts = await db
    .selectFrom('trading_accounts as a')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('ledger_entries')
          .select(['account_id', sql<string>`sum(amount_cents)`.as('total')])
          .groupBy('account_id')
          .as('s'),
      (join) => join.onRef('s.account_id', '=', 'a.id'),
    )
    .select([
      'a.id',
      'a.balance_cents',
      sql<string>`coalesce(s.total, 0)`.as('ledger'),
      (eb) =>
        eb
          .selectFrom('ledger_entries as e')
          .select('e.balance_after_cents')
          .whereRef('e.account_id', '=', 'a.id')
          .orderBy('e.id', 'desc')
          .limit(1)
          .as('last_after'),
    ])
    .execute();

  const badEntries = await sql<{ id: string; account_id: string }>`
    select id, account_id from (
      select id, account_id, balance_after_cents,
             sum(amount_cents) over (partition by account_id order by id) as running
      from ledger_entries
    ) e where e.balance_after_cents <> e.running`.execute(db);
  const badByAccount = new Map<number, number[]>();
  for (const r of badEntries.rows) {
    const list = badByAccount.get(Number(r.account_id)) ?? [];
    list.push(Number(r.id));
    badByAccount.set(Number(r.account_id), list);
  }

  const mismatches: LedgerMismatch[] = [];
  for (const a of accounts) {
    const accountId = Number(a.id);
    const balance = Number(a.balance_cents);
    const ledger = Number(a.ledger);
    const lastAfter = a.last_after === null || a.last_after === undefined ? null : Number(a.last_after);
    const bad = badByAccount.get(accountId) ?? [];
    if (balance !== ledger || (lastAfter !== null && lastAfter !== balance) || bad.length > 0) {
      mismatches.push({
        accountId,
        balanceCents: balance,
        ledgerCents: ledger,
        lastBalanceAfterCents: lastAfter,
        badEntryIds: bad,
      });
    }
  }
  return mismatches;
}
