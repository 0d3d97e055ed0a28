import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../../platform/db/types.js';
import { postEntry } from './service.js';

/*
 * Crediting the deposits a client had before their trading account existed. It lives beside the ledger, not in
 * modules/deposits, because opening an account (modules/trading, and the back office's open-account in trading/admin,
 * client-account's registration) needs it, and the trading module must not import the deposits module: both build on
 * the ledger (docs/architecture.md, "Module order").
 */

/**
 * Credits the live deposits recorded before the client had a trading account (D3), in the transaction that opens the
 * account. The client row is locked first, so a deposit recorded at the same moment is either seen here or sees the
 * account. D20: a deposit whose crediting waits for a second person (or was cancelled) is not credited here; one whose
 * crediting was confirmed is. Answers how many and how much were credited.
 */
export async function creditPendingDepositsTotal(
  trx: Db,
  clientId: number,
  accountId: number,
): Promise<{ count: number; cents: number }> {
  const client = await trx
    .selectFrom('clients')
    .select('identity_verified')
    .where('id', '=', clientId)
    .forUpdate()
    .executeTakeFirst();
  // A registration linked to an existing lead gets its deposits only once a person confirmed who it is (finding 1).
  if (!client?.identity_verified) return { count: 0, cents: 0 };
  const pending = await trx
    .selectFrom('deposits')
    .select(['id', 'amount_cents', 'created_by', 'notes'])
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .where('credited_at', 'is', null)
    .where(
      sql<boolean>`coalesce((select mc.status from manual_credits mc where mc.deposit_id = deposits.id order by mc.id desc limit 1), 'confirmed') = 'confirmed'`,
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const d of pending) {
    await postEntry(trx as Trx, {
      accountId,
      kind: 'deposit',
      amountCents: Number(d.amount_cents),
      reference: `deposit:${d.id}`,
      actor: d.created_by ? { id: d.created_by } : null,
      reason: d.notes || null,
    });
    await trx
      .updateTable('deposits')
      .set({ credited_at: sql`now()` })
      .where('id', '=', d.id)
      .execute();
  }
  return { count: pending.length, cents: pending.reduce((sum, d) => sum + Number(d.amount_cents), 0) };
}

/** creditPendingDepositsTotal, answering how many deposits were credited. */
export async function creditPendingDeposits(trx: Db, clientId: number, accountId: number): Promise<number> {
  return (await creditPendingDepositsTotal(trx, clientId, accountId)).count;
}
