import { SETTLEMENT_GAP_SECONDS, settleAtExpiry, type TradeDirection } from '@brokerage/shared';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { storeTicks } from '../src/modules/prices/feed-store.js';
import { OUTCOME_SQL, settleDueTrades } from '../src/modules/trading/settlement.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { fund, publishLogHead, registerClient, type TestClient } from './trading-helpers.js';

/**
 * D1 as amended by issue 12, and D22: settlement decides outcomes in SQL (OUTCOME_SQL) for speed, as a second
 * implementation of the one published rule, settleAtExpiry (settleTrade with the gap rule). These properties prove on
 * each database that the two agree on every case: equal prices written differently (1.1 vs 1.10000), prices one digit
 * apart at any scale, both directions, every payout, stakes up to a billion dollars, close prices just inside and just
 * outside the gap bound and none at all; and that a whole settlement run leaves, trade by trade, exactly what
 * settleAtExpiry says — status, profit, one payout or refund entry of the credit, none for a loss — never touching a
 * voided trade.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);

/** A decimal price as text: up to 6 integer digits and up to 8 decimals, sometimes with trailing zeros. */
const price = fc
  .tuple(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 8 }))
  .map(([whole, frac, scale]) => {
    const f = String(frac).padStart(8, '0').slice(0, scale);
    return scale === 0 ? String(Math.max(1, whole)) : `${whole}.${f}`;
  })
  .filter((p) => Number(p) > 0);

/**
 * How long before the expiry the close tick was stored, in ms (null: none at or before the expiry): mostly within the
 * gap bound, often right at it or one millisecond past it (D22).
 */
const BOUND = SETTLEMENT_GAP_SECONDS * 1000;
const closeAge = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: BOUND }) },
  { weight: 1, arbitrary: fc.constantFrom(0, BOUND - 1, BOUND, BOUND + 1) },
  { weight: 1, arbitrary: fc.integer({ min: BOUND + 1, max: 3_600_000 }) },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** A close price: often the strike itself (maybe written with more zeros), else a neighbour, else anything. */
const caseArb = fc
  .record({
    direction: fc.constantFrom<TradeDirection>('call', 'put'),
    strike: price,
    amountCents: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 100_000_000_000 })),
    payout: fc.integer({ min: 1, max: 100 }),
    how: fc.constantFrom('same', 'padded', 'up', 'down', 'any'),
    other: price,
    age: closeAge,
  })
  .map((c) => {
    const step = (p: string, sign: 1 | -1) => {
      const [w, f = ''] = p.split('.');
      const scale = Math.max(1, f.length);
      const units = BigInt(`${w}${f.padEnd(scale, '0')}`) + BigInt(sign);
      if (units <= 0n) return p;
      const text = units.toString().padStart(scale + 1, '0');
      return `${text.slice(0, -scale)}.${text.slice(-scale)}`;
    };
    const close =
      c.how === 'same'
        ? c.strike
        : c.how === 'padded'
          ? c.strike.includes('.')
            ? `${c.strike}000`
            : `${c.strike}.000`
          : c.how === 'up'
            ? step(c.strike, 1)
            : c.how === 'down'
              ? step(c.strike, -1)
              : c.other;
    return {
      direction: c.direction,
      strike: c.strike,
      close,
      amountCents: c.amountCents,
      payout: c.payout,
      age: c.age,
    };
  });

const EXPIRY = Date.UTC(2026, 10, 23, 12, 0, 0);

describe.each(dbKinds())('settlement in SQL agrees with settleAtExpiry on %s', (kind) => {
  let t: TestApp;
  let clients: TestClient[];

  beforeAll(async () => {
    t = await createTestApp(kind);
    clients = [];
    for (let i = 0; i < 3; i++) {
      const c = await registerClient(t, `Prop ${i}`);
      await fund(t, c.accountId, 1_000_000_00);
      clients.push(c);
    }
  });
  afterAll(() => t.close());

  it('the outcome, profit and credit expressions equal settleAtExpiry for every input', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 40 }), async (cases) => {
        const rows = sql.join(
          cases.map(
            (c) =>
              sql`(${c.direction}::text, ${c.strike}::numeric, ${c.age === null ? null : c.close}::numeric,
                   ${c.age === null ? null : new Date(EXPIRY - c.age).toISOString()}::timestamptz,
                   ${new Date(EXPIRY).toISOString()}::timestamptz, ${c.amountCents}::bigint, ${c.payout}::int)`,
          ),
        );
        const result = await sql<{ result: string; profit: string; credit: string }>`
          select ${OUTCOME_SQL.result} as result, ${OUTCOME_SQL.profit}::text as profit, ${OUTCOME_SQL.credit}::text as credit
          from (values ${rows})
            as v(direction, strike_price, close_price, close_at, expires_at, amount_cents, payout_percentage)`.execute(
          t.db,
        );
        cases.forEach((c, i) => {
          const expected = settleAtExpiry({
            direction: c.direction,
            strikePrice: c.strike,
            close: c.age === null ? null : { price: c.close, at: EXPIRY - c.age },
            expiresAt: EXPIRY,
            amountCents: c.amountCents,
            payoutPercentage: c.payout,
          });
          const got = result.rows[i]!;
          expect(
            { status: got.result, profitCents: Number(got.profit), creditCents: Number(got.credit) },
            JSON.stringify(c),
          ).toEqual(expected);
        });
        checked += cases.length;
      }),
      { numRuns: RUNS, seed: 20261125 },
    );
    expect(checked).toBeGreaterThan(RUNS);
  });

  it('a settlement run leaves on every trade and in the ledger what settleAtExpiry says, and never touches a voided one', async () => {
    const expiry = new Date(EXPIRY);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ c: caseArb, who: fc.integer({ min: 0, max: 2 }), voided: fc.boolean() }), {
          minLength: 1,
          maxLength: 25,
        }),
        async (trades) => {
          run += 1;
          // Each run its own asset name and expiry, so runs never see each other's prices or trades.
          const asset = `PROP${run}`;
          const at = new Date(expiry.getTime() + run * 60_000);
          const ids: number[] = [];
          const before = new Map<number, number>();
          for (const c of clients) {
            const a = await t.db
              .selectFrom('trading_accounts')
              .select('balance_cents')
              .where('id', '=', c.accountId)
              .executeTakeFirstOrThrow();
            before.set(c.accountId, Number(a.balance_cents));
          }
          // One close price per run, stored as long before the expiry as the first trade's case says (or none): every
          // trade gets its own strike. Stored as the feed stores them, with the watermark past the expiry, and a tick
          // after it.
          const { close, age } = trades[0]!.c;
          const closeAt = age === null ? null : new Date(at.getTime() - age);
          await storeTicks(t.db, {
            ticks: [
              ...(closeAt ? [{ symbol: asset, price: close, at: closeAt }] : []),
              { symbol: asset, price: '999', at: new Date(at.getTime() + 1000) },
            ],
            watermark: new Date(at.getTime() + 1000),
            fence: null,
          });
          // D27: a head covers the tick after the expiry, so the run may settle.
          await publishLogHead(t, at.getTime() + 1000);
          for (const { c, who, voided } of trades) {
            const row = await t.db
              .insertInto('trades')
              .values({
                account_id: clients[who]!.accountId,
                asset,
                direction: c.direction,
                amount_cents: c.amountCents,
                duration_seconds: 60,
                payout_percentage: c.payout,
                strike_price: c.strike,
                strike_at: new Date(at.getTime() - 60_000),
                expires_at: at,
                ...(voided ? { status: 'voided' as const, settled_at: at, void_reason: 'test' } : {}),
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            ids.push(Number(row.id));
          }
          const report = await settleDueTrades({ db: t.db }, { now: new Date(at.getTime() + 2000), batchSize: 7 });
          expect(report.failed).toBe(0);
          const stored = await t.db
            .selectFrom('trades')
            .select(['id', 'status', 'profit_cents', 'close_price', 'close_at'])
            .where('id', 'in', ids)
            .orderBy('id')
            .execute();
          const credits = new Map<number, number>();
          for (const [i, { c, who, voided }] of trades.entries()) {
            const s = stored[i]!;
            const entries = await t.db
              .selectFrom('ledger_entries')
              .select(['kind', 'amount_cents'])
              .where('reference', '=', `trade:${ids[i]}:settle`)
              .execute();
            if (voided) {
              expect(s.status).toBe('voided');
              expect(entries).toEqual([]);
              continue;
            }
            const want = settleAtExpiry({
              direction: c.direction,
              strikePrice: c.strike,
              close: closeAt ? { price: close, at: closeAt } : null,
              expiresAt: at,
              amountCents: c.amountCents,
              payoutPercentage: c.payout,
            });
            expect({ status: s.status, profit: Number(s.profit_cents) }).toEqual({
              status: want.status,
              profit: want.profitCents,
            });
            // The close tick is kept on the trade, except by the gap rule: no price decided it.
            if (want.status === 'no_price') expect([s.close_price, s.close_at]).toEqual([null, null]);
            else expect(new Date(s.close_at!).getTime()).toBe(closeAt!.getTime());
            expect(entries.map((e) => [e.kind, Number(e.amount_cents)])).toEqual(
              want.creditCents > 0 ? [[want.status === 'won' ? 'trade_payout' : 'trade_refund', want.creditCents]] : [],
            );
            const account = clients[who]!.accountId;
            credits.set(account, (credits.get(account) ?? 0) + want.creditCents);
          }
          for (const c of clients) {
            const a = await t.db
              .selectFrom('trading_accounts')
              .select('balance_cents')
              .where('id', '=', c.accountId)
              .executeTakeFirstOrThrow();
            expect(Number(a.balance_cents)).toBe(before.get(c.accountId)! + (credits.get(c.accountId) ?? 0));
          }
          // A second run finds nothing left to settle and changes nothing.
          const again = await settleDueTrades({ db: t.db }, { now: new Date(at.getTime() + 3000) });
          expect(again.settled.filter((x) => ids.includes(x.id))).toEqual([]);
        },
      ),
      { numRuns: Math.max(10, Math.round(RUNS / 3)), seed: 20261126 },
    );
    expect(await reconcile(t.db)).toEqual([]);
  });
});
