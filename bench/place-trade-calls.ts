/**
 * The place-trade calls the trading benches make (bench:trading, bench:profile, and bench/http-client.ts in its own
 * process): the i-th call's request body, the very statement the service sends for it (the raw baseline), and the
 * funding of a bench account through the ledger.
 */
import { MAX_PRICE_AGE_MS } from '@brokerage/shared';
import { postEntry } from '../apps/server/src/modules/ledger/service.js';
import { tradeStakeStatement } from '../apps/server/src/modules/trading/stake.js';
import type { Db } from '../apps/server/src/platform/db/index.js';

/** The i-th call's body: alternating call and put, $1–$50, 5 s on EURUSD. */
export function placeTradeBody(i: number) {
  return {
    direction: i % 2 ? ('call' as const) : ('put' as const),
    amount: 1 + (i % 50),
    duration: 5,
    asset: 'EURUSD',
  };
}

/**
 * The very statement placeTrade sends for the i-th call of `userId` (ledger's tradeStakeStatement: lock, check,
 * trade, balance, stake entry — one statement, atomic by itself; the strike is the newest stored tick, which it reads
 * itself), at the bench's clock `now`.
 */
export function stakeStatement(userId: string, i: number, now: number) {
  const body = placeTradeBody(i);
  return tradeStakeStatement({
    userId,
    allowed: true,
    amountCents: body.amount * 100,
    asset: body.asset,
    direction: body.direction,
    durationSeconds: body.duration,
    priceNotBefore: new Date(now - MAX_PRICE_AGE_MS),
    expiresAt: new Date(now + body.duration * 1000),
    now: new Date(now),
  });
}

/** $1,000,000 into a bench account, as a deposit entry of the ledger. */
export async function fundAccount(db: Db, accountId: number, reference: string): Promise<void> {
  await db
    .transaction()
    .execute((trx) => postEntry(trx, { accountId, kind: 'deposit', amountCents: 100_000_000, reference, actor: null }));
}
