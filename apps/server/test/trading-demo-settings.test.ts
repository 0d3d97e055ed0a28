import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import { createTradingApp, registerClient, type TradingTestApp } from './trading-helpers.js';

/**
 * GET /api/trading/demo-settings (D16): demo mode's offer for anonymous visitors — the server's durations and a new
 * account's defaults — and nothing of any real account, even when asked with a session whose account differs.
 */
describe.each(dbKinds())('demo settings on %s', (kind) => {
  let app: TradingTestApp;

  beforeAll(async () => {
    app = await createTradingApp(kind, [{ t: 0, symbol: 'EURUSD', price: '1.08500' }]);
  });
  afterAll(() => app.close());

  it('answers anonymous visitors with the offered durations and the default payout and limits', async () => {
    const res = await app.t.inject({ method: 'GET', url: '/api/trading/demo-settings' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      payout_percentage: 85,
      trading_enabled: true,
      max_trade_amount: 1000,
      min_trade_amount: 1,
      durations: [5, 10, 300],
    });
  });

  it("never shows a signed-in client's own settings", async () => {
    const client = await registerClient(app.t);
    const staff = await app.t.userWithToken('superadmin');
    const put = await app.t.inject({
      method: 'PUT',
      url: `/api/trading/admin/accounts/${client.accountId}/settings`,
      token: staff.token,
      payload: { payout_percentage: 70, max_trade_amount: 50 },
    });
    expect(put.statusCode).toBe(200);
    const res = await app.t.inject({ method: 'GET', url: '/api/trading/demo-settings', token: client.token });
    expect(res.json()).toMatchObject({ payout_percentage: 85, max_trade_amount: 1000 });
    const own = await app.t.inject({ method: 'GET', url: '/api/trading/client-settings', token: client.token });
    expect(own.json()).toMatchObject({ payout_percentage: 70, max_trade_amount: 50 });
  });
});
