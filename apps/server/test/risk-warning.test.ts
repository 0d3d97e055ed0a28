import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeRiskFigure } from '../src/modules/site-content/risk.js';
import { dbKinds } from './helpers.js';
import {
  T0,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  voidTradeByTwo,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * The true risk warning (issue 14, item 4): the share of client accounts with a settled trade in the last 12 months
 * whose net result (payouts + refunds − stakes) is negative, checked against a count made by hand.
 *
 * EURUSD rises every second (a call wins, a put loses); GBPUSD never moves (a tie).
 */
const ROWS = Array.from({ length: 601 }, (_, s) => [
  { t: s * 1000, symbol: 'EURUSD', price: (1.1 + s * 0.0001).toFixed(5) },
  { t: s * 1000, symbol: 'GBPUSD', price: '1.29500' },
]).flat();

type Plan = ('win' | 'loss' | 'tie' | 'void')[];
const DAY = 86_400_000;

describe.each(dbKinds())('risk warning on %s', (kind) => {
  let app: TradingTestApp;
  let staff: { token: string };
  /** The second person a void needs (finance.approve). */
  let approver: { token: string };
  let round = 0;

  const facts = async () => {
    const res = await app.t.inject({ method: 'GET', url: '/api/site/facts' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      losing_accounts_percent: number | null;
      losing_accounts_as_of: string;
      accounts_traded: number;
    };
  };

  /** Opens an account and plays its plan (win $10 → +$8.50, loss/void/tie by their amounts), settled on the replayed clock. */
  async function account(plan: Plan, amounts: number[] = []): Promise<TestClient> {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 100_000);
    app.clock.set(T0 + 1000 + round * 10_000);
    await app.pump();
    for (const [i, step] of plan.entries()) {
      const amount = amounts[i] ?? 10;
      const res = await placeTrade(app.t, client.token, {
        asset: step === 'tie' ? 'GBPUSD' : 'EURUSD',
        direction: step === 'loss' ? 'put' : 'call',
        amount,
        duration: 5,
      });
      expect(res.statusCode, res.body).toBe(201);
      if (step === 'void') {
        await voidTradeByTwo(app.t, client.accountId, res.json().trade.id, 'test void', staff.token, approver.token);
      }
    }
    await app.settleAt(T0 + 1000 + round * 10_000 + 7000);
    round += 1;
    return client;
  }

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    staff = await app.t.userWithToken('superadmin');
    approver = await app.t.userWithToken('admin');
  });
  afterAll(() => app.close());

  it('below 20 accounts that traded: no percentage, the count and the date; demo, untraded and voided-only accounts do not count', async () => {
    await account(['loss']); // losing
    await account(['loss', 'loss']); // losing
    await account(['win', 'loss'], [10, 20]); // +8.50 − 20 → losing
    await account(['win']); // winning
    await account(['win', 'loss'], [30, 10]); // +25.50 − 10 → winning
    await account(['tie']); // net 0: traded, not losing
    await account([]); // no trades
    await account(['void']); // only a voided trade: not traded
    const demo = await account(['loss']); // a demo account does not count
    await app.t.db.updateTable('trading_accounts').set({ status: 'demo' }).where('id', '=', demo.accountId).execute();
    await expectLedgerConsistent(app.t);

    const statuses = await app.t.db.selectFrom('trades').select('status').execute();
    expect(new Set(statuses.map((s) => s.status))).toEqual(new Set(['won', 'lost', 'tie', 'voided']));
    const f = await facts();
    expect(f).toMatchObject({ losing_accounts_percent: null, accounts_traded: 6 });
    expect(f.losing_accounts_as_of).toBe(new Date(app.clock.now()).toISOString().slice(0, 10));
  });

  it('from 20 accounts: the percentage equals the hand count; it is recomputed once a day', async () => {
    // 6 traded so far, 3 of them losing. 16 more: 11 losing, 5 winning → 22 traded, 14 losing → 64%.
    for (let i = 0; i < 11; i++) await account(i % 3 === 0 ? ['win', 'loss'] : ['loss'], [5, 20]);
    for (let i = 0; i < 5; i++) await account(['win', 'tie']);
    const byHand = Math.round((14 * 100) / 22);
    expect(byHand).toBe(64);
    expect(await computeRiskFigure(app.t.db, new Date(app.clock.now()))).toMatchObject({
      losing_accounts_percent: byHand,
      accounts_traded: 22,
    });
    // The same day, the published figure is still the morning's; the next day it is the new one.
    expect((await facts()).losing_accounts_percent).toBeNull();
    app.clock.set(app.clock.now() + DAY);
    const next = await facts();
    expect(next).toMatchObject({ losing_accounts_percent: 64, accounts_traded: 22 });
    expect(next.losing_accounts_as_of).toBe(new Date(app.clock.now()).toISOString().slice(0, 10));
  });

  it('trades settled more than 12 months ago fall out of the window', async () => {
    const later = new Date(T0 + 367 * DAY);
    expect(await computeRiskFigure(app.t.db, later)).toEqual({
      losing_accounts_percent: null,
      losing_accounts_as_of: later.toISOString().slice(0, 10),
      accounts_traded: 0,
    });
  });
});
