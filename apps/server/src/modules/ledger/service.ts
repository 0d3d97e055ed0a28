import type { Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Database, LedgerKind, TradeRow, TradingAccountRow } from '../../platform/db/types.js';
import type { Actor } from '../../platform/auth/actor.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * The ledger (decisions.md D3): every change of a trading balance is one entry — kind, signed amount, the balance
 * after it, a unique reference to its cause, who and why — written in the same transaction as the balance itself.
 * This module is the only code that writes trading_accounts.balance_cents.
 */

export type Trx = Transaction<Database>;

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

/**
 * Posts many entries at once, inside the caller's transaction, with a constant number of statements (bulk work such
 * as settling a burst of expiring trades). The same rules as postEntry, entry by entry in the order given:
 * the accounts are locked first in id order (SELECT … ORDER BY id FOR UPDATE, so two batch posters and the single
 * postings never lock accounts crosswise); a reference already in the ledger is a no-op returning the first entry;
 * each new entry's balance_after is the locked balance plus the entries before it on that account, computed here;
 * a result below 0 anywhere refuses the whole batch with 409 'insufficient_funds' before anything is written. Then
 * one INSERT of all new entries (their ids ascend in the order given, so the balance_after chain runs by id) and one
 * UPDATE of the balances. Returns one result per input, in the order given.
 */
export async function postEntries(trx: Trx, inputs: readonly PostEntryInput[]): Promise<PostedEntry[]> {
  if (inputs.length === 0) return [];
  const seen = new Set<string>();
  for (const input of inputs) {
    if (!Number.isSafeInteger(input.amountCents))
      throw new RangeError(`amount is not whole cents: ${input.amountCents}`);
    if (seen.has(input.reference)) throw new Error(`ledger reference ${input.reference} given twice in one batch`);
    seen.add(input.reference);
  }
  const accountIds = [...new Set(inputs.map((i) => i.accountId))].sort((a, b) => a - b);
  const locked = await sql<{ id: string | number; balance_cents: string | number }>`
    select id, balance_cents from trading_accounts
    where id in (${sql.join(accountIds)})
    order by id
    for update`.execute(trx);
  const balances = new Map(locked.rows.map((r) => [Number(r.id), Number(r.balance_cents)]));
  if (balances.size !== accountIds.length) throw new HttpError(404, 'trading_account_not_found');

  // Under the account locks no one else can post to these accounts, so what is in the ledger now stays as it is.
  const existingRows = await trx
    .selectFrom('ledger_entries')
    .selectAll()
    .where('reference', '=', sql<string>`any(${inputs.map((i) => i.reference)}::text[])`)
    .execute();
  const existing = new Map(existingRows.map((r) => [r.reference, toLedgerEntry(r)]));

  const fresh: { index: number; input: PostEntryInput; balanceAfter: number }[] = [];
  inputs.forEach((input, index) => {
    const before = existing.get(input.reference);
    if (before) {
      if (before.accountId !== input.accountId)
        throw new Error(`ledger reference ${input.reference} belongs to another account`);
      return;
    }
    const balanceAfter = balances.get(input.accountId)! + input.amountCents;
    if (balanceAfter < 0) throw new HttpError(409, 'insufficient_funds');
    if (!Number.isSafeInteger(balanceAfter)) throw new RangeError(`balance out of range on ${input.accountId}`);
    balances.set(input.accountId, balanceAfter);
    fresh.push({ index, input, balanceAfter });
  });

  const results: (PostedEntry | undefined)[] = inputs.map((input) => {
    const before = existing.get(input.reference);
    return before ? { entry: before, created: false } : undefined;
  });
  if (fresh.length > 0) {
    // Arrays unnested into rows (seven parameters whatever the batch size), inserted in the order given.
    const column = <T>(f: (x: (typeof fresh)[number]) => T) => fresh.map(f);
    const inserted = await sql<Parameters<typeof toLedgerEntry>[0]>`
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference, actor_id, reason)
      select account_id, kind, amount_cents, balance_after_cents, reference, actor_id, reason
      from unnest(${column((f) => f.input.accountId)}::bigint[], ${column((f) => f.input.kind)}::text[],
                  ${column((f) => f.input.amountCents)}::bigint[], ${column((f) => f.balanceAfter)}::bigint[],
                  ${column((f) => f.input.reference)}::text[], ${column((f) => f.input.actor?.id ?? null)}::uuid[],
                  ${column((f) => f.input.reason ?? null)}::text[])
        with ordinality as v(account_id, kind, amount_cents, balance_after_cents, reference, actor_id, reason, n)
      order by n
      returning *`.execute(trx);
    const rows = inserted.rows;
    const byReference = new Map(rows.map((r) => [r.reference, toLedgerEntry(r)]));
    for (const { index, input } of fresh) {
      const entry = byReference.get(input.reference);
      if (!entry) throw new Error(`ledger reference ${input.reference} was not written`);
      results[index] = { entry, created: true };
    }
    // id = any(…): the accounts by primary key, not a scan of every account.
    const moved = [...new Set(fresh.map((f) => f.input.accountId))].sort((a, b) => a - b);
    await sql`
      update trading_accounts a set balance_cents = v.balance, updated_at = now(), live_seq = a.live_seq + 1
      from unnest(${moved}::bigint[], ${moved.map((id) => balances.get(id)!)}::bigint[]) as v(id, balance)
      where a.id = v.id and a.id = any(${moved}::bigint[])`.execute(trx);
  }
  return results as PostedEntry[];
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

export interface TradeStakeInput {
  userId: string;
  /**
   * false when a check that needs no account row already failed (amount below the minimum, unknown asset, no fresh
   * price, duration not offered): the account is still read, locked, so the caller can answer with the first failed
   * check in its documented order; nothing is written.
   */
  allowed: boolean;
  /** The stake, positive whole cents (0 when the amount is not a sum of money: then `allowed` is false). */
  amountCents: number;
  asset: string;
  direction: 'call' | 'put';
  durationSeconds: number;
  /**
   * The strike is the newest stored tick of the asset at or before `now`, read by the statement itself (issue 21 §3:
   * a trade opens only at a stored price); one older than this is no price (D1's 5 s).
   */
  priceNotBefore: Date;
  expiresAt: Date;
  now: Date;
}

/**
 * The account as locked by the statement (before the stake), whether a fresh stored price was there, and the trade with
 * the balance after its stake.
 */
export interface TradeStakeResult {
  account: Pick<TradingAccountRow, 'id' | 'status' | 'trading_enabled' | 'max_trade_amount_cents' | 'balance_cents'>;
  priced: boolean;
  placed: { trade: TradeRow; balanceAfterCents: number } | null;
}

type TradeStakeRow = TradeRow & {
  acct_id: string;
  acct_status: TradingAccountRow['status'];
  acct_trading_enabled: boolean;
  acct_max_cents: string;
  acct_balance_cents: string;
  acct_priced: boolean;
  balance_after_cents: string | null;
};

/**
 * The statement that opens a trade and posts its stake (D1, D3), atomic by itself, so it needs no explicit
 * transaction: lock the user's account row (SELECT … FOR UPDATE — concurrent stakes on one account queue here and
 * each sees the balance the previous one left), read the strike — the newest stored tick of the asset at or before
 * now, if not older than `priceNotBefore` (one descent of price_ticks_symbol_at; a stored tick is one the feed wrote
 * with its watermark, so it can no longer change: D22, issue 21 §3) — check on the locked row that the account is
 * active with trading enabled and that the stake is within its limit and its balance; only then move the balance
 * (guarded ≥ 0, noting the activity), insert the trade at that strike with the account's payout, and insert the
 * stake's ledger entry (`trade:<id>:stake`, balance_after = the moved balance). One row back: the locked account (and
 * whether a price was found) and, when placed, the trade and the balance after; no row when the user has no account.
 * Exported so the bench can run the very same SQL.
 */
export function tradeStakeStatement(input: TradeStakeInput) {
  const amount = input.amountCents;
  return sql<TradeStakeRow>`
    with acc as (
      select * from trading_accounts where user_id = ${input.userId} for update
    ), quote as (
      select p.price, p.at from price_ticks p
      where p.symbol = ${input.asset} and p.at <= ${input.now}::timestamptz
        and p.at >= ${input.priceNotBefore}::timestamptz
      order by p.at desc, p.id desc limit 1
    ), chk as (
      select acc.*, exists (select 1 from quote) as priced,
             (${input.allowed} and acc.status = 'active' and acc.trading_enabled
              and ${amount}::bigint <= acc.max_trade_amount_cents
              and ${amount}::bigint <= acc.balance_cents and exists (select 1 from quote)) as placed
      from acc
    ), moved as (
      update trading_accounts a
      set balance_cents = a.balance_cents - ${amount}::bigint, last_activity = ${input.now}, updated_at = now(),
          live_seq = a.live_seq + 1
      from chk
      where a.id = chk.id and chk.placed and a.balance_cents - ${amount}::bigint >= 0
      returning a.id, a.balance_cents, a.live_seq
    ), trade as (
      insert into trades (account_id, asset, direction, amount_cents, duration_seconds, payout_percentage,
                          strike_price, strike_at, expires_at, created_at, opened_seq, live_seq)
      select moved.id, ${input.asset}, ${input.direction}, ${amount}::bigint, ${input.durationSeconds}::int,
             chk.payout_percentage, quote.price, quote.at,
             ${input.expiresAt}::timestamptz, ${input.now}::timestamptz, moved.live_seq, moved.live_seq
      from moved join chk on chk.id = moved.id cross join quote
      returning *
    ), entry as (
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference, actor_id, reason)
      select trade.account_id, 'trade_stake', -${amount}::bigint, moved.balance_cents,
             'trade:' || trade.id || ':stake', ${input.userId}::uuid, null
      from trade join moved on moved.id = trade.account_id
      returning account_id, balance_after_cents
    )
    select trade.*, chk.id as acct_id, chk.status as acct_status, chk.trading_enabled as acct_trading_enabled,
           chk.max_trade_amount_cents as acct_max_cents, chk.balance_cents as acct_balance_cents,
           chk.priced as acct_priced, entry.balance_after_cents
    from chk left join trade on trade.account_id = chk.id left join entry on entry.account_id = chk.id`;
}

/** Runs tradeStakeStatement (see there); null when the user has no trading account. */
export async function postTradeStake(db: Db, input: TradeStakeInput): Promise<TradeStakeResult | null> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 0)
    throw new RangeError(`stake is not whole cents: ${input.amountCents}`);
  const { rows } = await tradeStakeStatement(input).execute(db);
  const row = rows[0];
  if (!row) return null;
  const {
    acct_id,
    acct_status,
    acct_trading_enabled,
    acct_max_cents,
    acct_balance_cents,
    acct_priced,
    balance_after_cents,
    ...trade
  } = row;
  return {
    account: {
      id: acct_id,
      status: acct_status,
      trading_enabled: acct_trading_enabled,
      max_trade_amount_cents: acct_max_cents,
      balance_cents: acct_balance_cents,
    },
    priced: acct_priced,
    placed:
      trade.id === null || balance_after_cents === null
        ? null
        : { trade: trade as TradeRow, balanceAfterCents: Number(balance_after_cents) },
  };
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
