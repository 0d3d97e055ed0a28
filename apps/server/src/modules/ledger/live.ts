import { centsToDollars } from '@brokerage/shared';
import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';

/**
 * balance.changed for each account's user, with the balance as it is now (D11). Called after the transaction that
 * moved the money has committed; never throws (an event is a hint, the money is already right).
 */
export async function publishBalanceChanged(db: Db, bus: EventBus, accountIds: readonly number[]): Promise<void> {
  if (accountIds.length === 0) return;
  try {
    const rows = await db
      .selectFrom('trading_accounts')
      .select(['id', 'user_id', 'balance_cents'])
      .where('id', 'in', [...new Set(accountIds)])
      .execute();
    for (const r of rows) {
      if (!r.user_id) continue;
      bus.publish({
        type: 'balance.changed',
        user_id: r.user_id,
        payload: { account_id: Number(r.id), balance: centsToDollars(r.balance_cents) },
      });
    }
  } catch {
    // The screens poll while they miss events.
  }
}
