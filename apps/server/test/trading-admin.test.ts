import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import {
  T0,
  balanceCents,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

/** Staff administration of trading accounts (back-office.md §2.16, §2.17, §7; D1, D5, D9). */
describe.each(dbKinds())('trading administration on %s', (kind) => {
  let app: TradingTestApp;
  let admin: { id: string; token: string };
  let manager: { id: string; token: string };
  let otherManager: { id: string; token: string };
  let alice: TestClient;
  let bob: TestClient;

  const api = (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    token: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    app.t.inject({
      method,
      url,
      token,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  beforeAll(async () => {
    app = await createTradingApp(kind, [
      { t: 0, symbol: 'EURUSD', price: '1.08500' },
      { t: 4000, symbol: 'EURUSD', price: '1.08600' },
    ]);
    admin = await app.t.userWithToken('superadmin');
    manager = await app.t.userWithToken('sales_manager');
    otherManager = await app.t.userWithToken('sales_manager');
    alice = await registerClient(app.t, 'Alice Trader');
    bob = await registerClient(app.t, 'Bob Trader');
    await app.t.db
      .updateTable('clients')
      .set({ assigned_manager: manager.id })
      .where('id', '=', alice.clientId)
      .execute();
    await app.t.db
      .updateTable('clients')
      .set({ assigned_manager: otherManager.id })
      .where('id', '=', bob.clientId)
      .execute();
    await fund(app.t, alice.accountId, 50_000);
    app.clock.set(T0 + 1000);
    await app.pump();
    // Alice: one trade that will be won, one left open.
    expect(
      (await placeTrade(app.t, alice.token, { direction: 'call', amount: 100, duration: 5, asset: 'EURUSD' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await placeTrade(app.t, alice.token, { direction: 'put', amount: 40, duration: 300, asset: 'EURUSD' }))
        .statusCode,
    ).toBe(201);
    await app.settleAt(T0 + 7000);
  });
  afterAll(() => app.close());
  // D3: after every test that moves money, each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(app.t));

  it('lists accounts with their figures and the five cards, paged and filtered on the server', async () => {
    const res = await api('GET', '/api/trading/admin/accounts?per_page=1&sort=balance&order=desc', admin.token);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(2);
    expect(body.accounts).toHaveLength(1);
    expect(body.accounts[0]).toMatchObject({
      id: alice.accountId,
      client_id: alice.clientId,
      client_name: 'Alice Trader',
      client_email: alice.email,
      balance: 500 - 140 + 185,
      total_invested: 140,
      total_profit: 85,
      total_trades: 2,
      active_trades_count: 1,
      status: 'active',
      trading_enabled: true,
      max_trade_amount: 1000,
      payout_percentage: 85,
    });
    expect(body.accounts[0].last_activity).toBe(new Date(T0 + 1000).toISOString());
    expect(body.stats).toEqual({
      totalAccounts: 2,
      activeAccounts: 2,
      totalBalance: 545,
      totalProfit: 85,
      activeTrades: 1,
    });

    const search = await api('GET', `/api/trading/admin/accounts?search=${encodeURIComponent('bob')}`, admin.token);
    expect(search.json().accounts.map((a: { id: number }) => a.id)).toEqual([bob.accountId]);
    const byId = await api('GET', `/api/trading/admin/accounts?search=${alice.clientId}`, admin.token);
    expect(byId.json().accounts.map((a: { id: number }) => a.id)).toContain(alice.accountId);
    const zero = await api('GET', '/api/trading/admin/accounts?balance=zero', admin.token);
    expect(zero.json().accounts.map((a: { id: number }) => a.id)).toEqual([bob.accountId]);
    const medium = await api('GET', '/api/trading/admin/accounts?balance=medium', admin.token);
    expect(medium.json().accounts.map((a: { id: number }) => a.id)).toEqual([alice.accountId]);
    expect((await api('GET', '/api/trading/admin/accounts?status=blocked', admin.token)).json().total).toBe(0);
  });

  it("shows a manager only their clients' accounts, and answers 404 for the others", async () => {
    const list = await api('GET', '/api/trading/admin/accounts', manager.token);
    expect(list.json().accounts.map((a: { id: number }) => a.id)).toEqual([alice.accountId]);
    expect(list.json().stats.totalAccounts).toBe(1);
    const paths: ['GET' | 'POST' | 'PUT', string, unknown][] = [
      ['GET', `/api/trading/admin/accounts/${bob.accountId}`, undefined],
      ['GET', `/api/trading/admin/accounts/${bob.accountId}/active-trades`, undefined],
      ['GET', `/api/trading/admin/accounts/${bob.accountId}/ledger`, undefined],
      ['POST', `/api/trading/admin/accounts/${bob.accountId}/balance`, { action: 'add', amount: 10, reason: 'x' }],
      ['PUT', `/api/trading/admin/accounts/${bob.accountId}/settings`, { payout_percentage: 99 }],
      ['POST', `/api/trading/admin/accounts/${bob.accountId}/block`, undefined],
      ['POST', `/api/trading/admin/accounts/${bob.accountId}/void-trade`, { trade_id: 1, reason: 'x' }],
      ['PUT', `/api/trading/admin/balance/${bob.clientId}`, { balance: 0 }],
    ];
    for (const [method, url, payload] of paths) {
      const res = await api(method, url, manager.token, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await balanceCents(app.t, bob.accountId)).toBe(0);
    // A role without trading.manage is refused outright.
    const retention = await app.t.userWithToken('admin');
    expect((await api('GET', '/api/trading/admin/accounts', retention.token)).statusCode).toBe(403);
  });

  it('shows an account with its active trades and its history with strike and close prices', async () => {
    const res = await api('GET', `/api/trading/admin/accounts/${alice.accountId}`, manager.token);
    expect(res.statusCode, res.body).toBe(200);
    const { account, activeTrades, tradeHistory } = res.json();
    expect(account.id).toBe(alice.accountId);
    expect(activeTrades).toHaveLength(1);
    expect(activeTrades[0]).toMatchObject({
      direction: 'put',
      amount: 40,
      duration: 300,
      status: 'active',
      strike_price: 1.085,
      expected_payout: 34,
    });
    expect(tradeHistory).toHaveLength(1);
    expect(tradeHistory[0]).toMatchObject({
      status: 'won',
      strike_price: 1.085,
      close_price: 1.086,
      close_at: new Date(T0 + 6000).toISOString(), // the feed repeats 1.08600 each second after 4 s; expiry is 6 s
      profit: 85,
      duration: 5,
    });
    const active = await api('GET', `/api/trading/admin/accounts/${alice.accountId}/active-trades`, manager.token);
    expect(active.json().activeTrades.map((x: { id: number }) => x.id)).toEqual(
      activeTrades.map((x: { id: number }) => x.id),
    );
    expect((await api('GET', '/api/trading/admin/accounts/999999', admin.token)).statusCode).toBe(404);
  });

  it('changes a balance only through the ledger, with a reason, never below 0, audited', async () => {
    const url = `/api/trading/admin/accounts/${bob.accountId}/balance`;
    const noReason = await api('POST', url, admin.token, { action: 'add', amount: 10, reason: '' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().detail).toContain('reason');

    const add = await api('POST', url, admin.token, { action: 'add', amount: 120.5, reason: 'Бонус по акции' });
    expect(add.statusCode, add.body).toBe(200);
    expect(add.json().account.balance).toBe(120.5);
    expect(add.json().entry).toMatchObject({
      kind: 'adjustment',
      amount: 120.5,
      balance_after: 120.5,
      reason: 'Бонус по акции',
      actor_id: admin.id,
    });

    const sub = await api('POST', url, admin.token, { action: 'subtract', amount: 20.5, reason: 'Корректировка' });
    expect(sub.json().account.balance).toBe(100);
    const tooMuch = await api('POST', url, admin.token, {
      action: 'subtract',
      amount: 100.01,
      reason: 'Слишком много',
    });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json().detail).toBe('Недостаточно средств на торговом счете');
    const set = await api('POST', url, admin.token, {
      action: 'set',
      amount: 42,
      reason: 'Сверка с платёжной системой',
    });
    expect(set.json()).toMatchObject({ account: { balance: 42 }, entry: { amount: -58, balance_after: 42 } });
    const same = await api('POST', url, admin.token, { action: 'set', amount: 42, reason: 'Без изменений' });
    expect(same.json().entry).toBeNull();
    const zeroAdd = await api('POST', url, admin.token, { action: 'add', amount: 0, reason: 'Ноль' });
    expect(zeroAdd.statusCode).toBe(400);
    expect(zeroAdd.json().detail).toBe('Введите корректную сумму');

    const audit = (await app.t.auditRows('trading_account.balance_change')).filter(
      (r) => r.entity_id === String(bob.accountId),
    );
    expect(audit).toHaveLength(4);
    expect(audit[0]).toMatchObject({
      actor_id: admin.id,
      before: { balance: 0 },
      after: { balance: 120.5, action: 'add', reason: 'Бонус по акции' },
    });

    const ledger = await api('GET', `/api/trading/admin/accounts/${bob.accountId}/ledger`, admin.token);
    expect(ledger.json().total).toBe(3);
    expect(ledger.json().items.map((e: { amount: number }) => e.amount)).toEqual([-58, -20.5, 120.5]);
    expect(ledger.json().items[0].actor_name).toBeTruthy();
    await expectLedgerConsistent(app.t);
  });

  it('applies an Idempotency-Key to a balance change', async () => {
    const url = `/api/trading/admin/accounts/${bob.accountId}/balance`;
    const body = { action: 'add', amount: 8, reason: 'Повтор запроса' };
    const first = await api('POST', url, admin.token, body, { 'idempotency-key': 'adj-1' });
    const second = await api('POST', url, admin.token, body, { 'idempotency-key': 'adj-1' });
    expect(second.json()).toEqual(first.json());
    expect(await balanceCents(app.t, bob.accountId)).toBe(5_000);
    await expectLedgerConsistent(app.t);
  });

  it('saves the three settings, validated and audited', async () => {
    const url = `/api/trading/admin/accounts/${bob.accountId}/settings`;
    for (const bad of [
      { payout_percentage: 0 },
      { payout_percentage: 101 },
      { payout_percentage: 50.5 },
      { max_trade_amount: -1 },
      {},
      { profit_enabled: false },
    ]) {
      expect((await api('PUT', url, admin.token, bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
    const res = await api('PUT', url, admin.token, {
      trading_enabled: false,
      max_trade_amount: 300,
      payout_percentage: 75,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ trading_enabled: false, max_trade_amount: 300, payout_percentage: 75 });
    const audit = (await app.t.auditRows('trading_account.settings_update')).at(-1)!;
    expect(audit.before).toEqual({ trading_enabled: true, max_trade_amount: 1000, payout_percentage: 85 });
    expect(audit.after).toEqual({ trading_enabled: false, max_trade_amount: 300, payout_percentage: 75 });
    const s = (await app.t.inject({ method: 'GET', url: '/api/trading/client-settings', token: bob.token })).json();
    expect(s).toMatchObject({ trading_enabled: false, max_trade_amount: 300, payout_percentage: 75 });
    await api('PUT', url, admin.token, { trading_enabled: true });
  });

  it('blocks and activates an account, audited once per change', async () => {
    const block = await api('POST', `/api/trading/admin/accounts/${bob.accountId}/block`, admin.token);
    expect(block.json().status).toBe('blocked');
    await api('POST', `/api/trading/admin/accounts/${bob.accountId}/block`, admin.token, {});
    expect(
      (await app.t.auditRows('trading_account.block')).filter((r) => r.entity_id === String(bob.accountId)),
    ).toHaveLength(1);
    expect(
      (await placeTrade(app.t, bob.token, { direction: 'call', amount: 1, duration: 300, asset: 'EURUSD' })).json()
        .detail,
    ).toBe('Торговля по счету приостановлена');
    const s = (await app.t.inject({ method: 'GET', url: '/api/trading/client-settings', token: bob.token })).json();
    expect(s.trading_enabled).toBe(false);
    const activate = await api('POST', `/api/trading/admin/accounts/${bob.accountId}/activate`, admin.token);
    expect(activate.json().status).toBe('active');
    expect(await app.t.auditRows('trading_account.activate')).toHaveLength(1);
  });

  it('opens the account of a registered client that has none, and refuses one without a user', async () => {
    // A client user from before trading accounts existed: user and CRM record, no account.
    const user = await app.t.createUser('client');
    const client = await app.t.db
      .insertInto('clients')
      .values({
        name: 'Old Client',
        email: user.email,
        phone: '',
        country: '',
        campaign: '',
        source: '',
        notes: '',
        status: 'new',
        assigned_manager: null,
        affiliate_id: null,
        user_id: user.id,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const url = `/api/trading/admin/balance/${client.id}`;
    expect((await api('PUT', url, admin.token, { balance: 100 })).statusCode).toBe(400);
    const created = await api('PUT', url, admin.token, { balance: 0 });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      client_id: Number(client.id),
      balance: 0,
      status: 'active',
      payout_percentage: 85,
    });
    const again = await api('PUT', url, admin.token, { balance: 0 });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(created.json().id);
    expect(await app.t.auditRows('trading_account.create')).toHaveLength(1);

    const lead = await app.t.db
      .insertInto('clients')
      .values({
        name: 'Lead',
        email: 'lead@test.local',
        phone: '',
        country: '',
        campaign: '',
        source: '',
        notes: '',
        status: 'new',
        assigned_manager: null,
        affiliate_id: null,
        user_id: null,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const noUser = await api('PUT', `/api/trading/admin/balance/${lead.id}`, admin.token, { balance: 0 });
    expect(noUser.statusCode).toBe(409);
    expect((await api('PUT', '/api/trading/admin/balance/999999', admin.token, { balance: 0 })).statusCode).toBe(404);
  });
});
