import { sql } from 'kysely';

/**
 * The ledger's parts of the two set-based statements that move money (decisions.md D3, D1 as amended by issue 12):
 * placing a trade and settling a batch are each ONE statement, atomic by itself, for speed, so their money cannot be
 * moved by a separate call to postEntry. Their owner (modules/trading) composes the statement; every CTE that writes a
 * balance or a ledger entry is written here, so the ledger stays the only code that does (money-door.test.ts). Each
 * part names the CTEs it reads; the composing statement must define them under those names, before the part.
 */

/**
 * place-trade, the stake taken (`moved`): reads `chk` (the locked account row `id` and whether every check passed,
 * `placed`). Moves the balance by the stake, guarded ≥ 0, notes the activity and raises the account's live-update
 * sequence (migration 0026); returns `id`, `balance_cents` (after the stake) and `live_seq`. No row when refused.
 */
export function stakeBalanceMoved(input: { amountCents: number; now: Date }) {
  const amount = input.amountCents;
  return sql`moved as (
      update trading_accounts a
      set balance_cents = a.balance_cents - ${amount}::bigint, last_activity = ${input.now}, updated_at = now(),
          live_seq = a.live_seq + 1
      from chk
      where a.id = chk.id and chk.placed and a.balance_cents - ${amount}::bigint >= 0
      returning a.id, a.balance_cents, a.live_seq
    )`;
}

/**
 * place-trade, the stake's entry (`entry`): reads `trade` (the inserted trade's `id` and `account_id`) and `moved`
 * (above). Inserts the `trade_stake` entry, reference `trade:<id>:stake`, balance_after = the moved balance, by the
 * client; returns `account_id`, `balance_after_cents`.
 */
export function stakeEntryPosted(input: { amountCents: number; userId: string }) {
  const amount = input.amountCents;
  return sql`entry as (
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference, actor_id, reason)
      select trade.account_id, 'trade_stake', -${amount}::bigint, moved.balance_cents,
             'trade:' || trade.id || ':stake', ${input.userId}::uuid, null
      from trade join moved on moved.id = trade.account_id
      returning account_id, balance_after_cents
    )`;
}

/**
 * Settlement, the accounts locked (`locked`): reads `outcome` (`account_id` of each trade settled). Every account with
 * a trade settled, locked in id order (`ORDER BY id FOR UPDATE`: no lock-order deadlock between workers and
 * place-trade), with its balance and its next live-update sequence `seq`, which stamps its trades under the row lock,
 * so per account the sequence follows commit order (migration 0026, issue 21 §7).
 */
export function settlementAccountsLocked() {
  return sql`locked as (
      select a.id, a.balance_cents, a.live_seq + 1 as seq from trading_accounts a
      where a.id in (select account_id from outcome)
      order by a.id
      for update
    )`;
}

/**
 * Settlement, the money posted (`entries`, `totals`, `moved`): reads `credits` (per trade that pays back: `id`,
 * `account_id`, `result`, `credit` > 0) and `locked` (above). Inserts a `trade_payout` (won) or `trade_refund` (tie,
 * no_price) entry per credit, reference `trade:<id>:settle` (the one a void also uses: a stake never comes back
 * twice), balance_after chained per account in trade-id order from the locked balance; then moves each locked
 * account's balance by the sum of its credits and sets its sequence to `seq` (updated_at only where money moved).
 */
export function settlementCreditsPosted() {
  return sql`entries as (
      insert into ledger_entries (account_id, kind, amount_cents, balance_after_cents, reference)
      select c.account_id, case c.result when 'won' then 'trade_payout' else 'trade_refund' end, c.credit,
             l.balance_cents + sum(c.credit) over (partition by c.account_id order by c.id),
             'trade:' || c.id || ':settle'
      from credits c join locked l on l.id = c.account_id
      order by c.account_id, c.id
    ), totals as materialized (
      select coalesce(jsonb_object_agg(account_id::text, total), '{}') as m
      from (select account_id, sum(credit) as total from credits group by account_id) x
    ), moved as (
      update trading_accounts a
      set balance_cents = l.balance_cents + coalesce((s.m ->> l.id::text)::bigint, 0), live_seq = l.seq,
          updated_at = case when s.m ? l.id::text then now() else a.updated_at end
      from locked l cross join totals s
      where a.id = l.id
    )`;
}
