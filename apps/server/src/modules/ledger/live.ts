import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';

/**
 * A hint to each account's user's sockets that the account changed (D11; issue 21 §7), with the sequence it has
 * reached: the sockets read the balance (and any trade that changed) from the database. Called after the transaction
 * that moved the money has committed; never throws (a lost hint is caught up by the sockets' periodic resync).
 */
export async function publishBalanceChanged(db: Db, bus: EventBus, accountIds: readonly number[]): Promise<void> {
  if (accountIds.length === 0) return;
  try {
    const rows = await db
      .selectFrom('trading_accounts')
      .select(['id', 'user_id', 'live_seq'])
      .where('id', 'in', [...new Set(accountIds)])
      .execute();
    for (const r of rows) {
      if (!r.user_id) continue;
      bus.publish({ type: 'account.changed', user_id: r.user_id, account_id: Number(r.id), seq: Number(r.live_seq) });
    }
  } catch {
    // The sockets' periodic resync finds the change anyway.
  }
}
