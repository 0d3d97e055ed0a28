import { MIN_TRADE_DOLLARS, tradeCheck } from '@brokerage/shared';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradeCheckSql, tradeStakeStatement } from '../src/modules/trading/stake.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/**
 * Issue 29 §1: the place-trade checks on the account have one definition, the shared `tradeCheck`; the place-trade
 * statement repeats them in SQL (`tradeCheckSql`) so that checking and taking the stake are one atomic step. These
 * properties prove on each database that the SQL passes exactly the stakes tradeCheck passes — any account status,
 * trading on or off, stakes at, one cent below and above the limit and the balance, up to a billion dollars — and that
 * the statement the server sends is built on that very expression. (A stake under the minimum never reaches it: the
 * service decides that before the statement, with the shared `tradeAmountTooSmall`.)
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const MIN = MIN_TRADE_DOLLARS * 100;

const caseArb = fc
  .record({
    status: fc.constantFrom('active', 'blocked', 'demo') as fc.Arbitrary<'active' | 'blocked' | 'demo'>,
    tradingEnabled: fc.boolean(),
    amountCents: fc.oneof(fc.integer({ min: MIN, max: 10_000 }), fc.integer({ min: MIN, max: 100_000_000_000 })),
    max: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000_000_000 })),
    balance: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000_000_000 })),
    // Often right at a bound, or one cent either side of it.
    near: fc.constantFrom('none', 'max', 'balance'),
    offset: fc.constantFrom(-1, 0, 1),
  })
  .map((c) => {
    const bound = c.near === 'max' ? c.max : c.near === 'balance' ? c.balance : null;
    const amountCents = bound === null ? c.amountCents : Math.max(MIN, bound + c.offset);
    return { status: c.status, tradingEnabled: c.tradingEnabled, amountCents, max: c.max, balance: c.balance };
  });

describe.each(dbKinds())('the place-trade check in SQL agrees with the shared tradeCheck on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('tradeCheckSql passes exactly the stakes tradeCheck passes', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 40 }), async (cases) => {
        // One select per case (the stake is the expression's parameter, as in the statement), in one round trip.
        const selects = cases.map(
          (c, i) => sql`select ${i}::int as n, (${tradeCheckSql(c.amountCents)}) as ok
            from (values (${c.status}::text, ${c.tradingEnabled}::boolean, ${c.max}::bigint, ${c.balance}::bigint))
              as acc(status, trading_enabled, max_trade_amount_cents, balance_cents)`,
        );
        const result = await sql<{ n: number; ok: boolean }>`${sql.join(selects, sql` union all `)} order by n`.execute(
          t.db,
        );
        expect(result.rows).toHaveLength(cases.length);
        cases.forEach((c, i) => {
          const expected = tradeCheck({
            accountActive: c.status === 'active',
            tradingEnabled: c.tradingEnabled,
            amountCents: c.amountCents,
            maxCents: c.max,
            balanceCents: c.balance,
          });
          expect(result.rows[i]!.ok, `${JSON.stringify(c)} → ${expected}`).toBe(expected === null);
        });
        checked += cases.length;
      }),
      { numRuns: RUNS, seed: 20261129 },
    );
    expect(checked).toBeGreaterThan(RUNS);
  });

  it('the place-trade statement decides with that expression', () => {
    const input = {
      userId: '00000000-0000-0000-0000-000000000001',
      allowed: true,
      amountCents: 2500,
      asset: 'EURUSD',
      direction: 'call' as const,
      durationSeconds: 300,
      priceNotBefore: new Date(0),
      expiresAt: new Date(300_000),
      now: new Date(0),
    };
    const statement = tradeStakeStatement(input).compile(t.db).sql.replace(/\s+/g, ' ');
    const check = tradeCheckSql(2500).compile(t.db).sql.replace(/\s+/g, ' ').replace(/\$\d+/g, '\\$\\d+');
    expect(statement).toMatch(new RegExp(`\\(\\$\\d+ and ${check} and exists \\(select 1 from quote\\)\\) as placed`));
  });
});
