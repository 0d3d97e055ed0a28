import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import { connectLive, type LiveClient } from './live-helpers.js';
import {
  T0,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.10000' },
  { t: 8000, symbol: 'EURUSD', price: '1.10010' },
];

/**
 * Staff watch a client's trading account over GET /api/ws (the account detail screen, decisions.md D11 with the D5
 * scope): they hear its trade and balance events while watching, only for accounts in their scope, never its messages.
 */
describe.each(dbKinds())('staff watching a client account on %s', (kind) => {
  let app: TradingTestApp;
  let base: string;
  let alice: TestClient;
  let superadmin: string;
  let otherManager: string;
  const sockets: LiveClient[] = [];
  const live = async (token: string) => {
    const c = await connectLive(`${base}/api/ws?token=${token}`, {});
    sockets.push(c);
    return c;
  };

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    await app.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.t.app.server.address() as { port: number };
    base = `ws://127.0.0.1:${port}`;
    alice = await registerClient(app.t, 'Alice');
    await fund(app.t, alice.accountId, 100_000);
    superadmin = (await app.t.userWithToken('superadmin')).token;
    // A retention manager with trading.manage whose scope holds none of Alice (she is unassigned).
    otherManager = (await app.t.userWithToken('retention_manager')).token;
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await expectLedgerConsistent(app.t);
  });
  afterAll(() => app.close());

  it('a superadmin watching the account hears the trade open and the balance change, and stops on unwatch', async () => {
    const staff = await live(superadmin);
    staff.send({ type: 'watch_account', account_id: alice.accountId });
    expect(await staff.next((f) => f.type === 'watching')).toMatchObject({
      type: 'watching',
      account_id: alice.accountId,
    });

    app.clock.set(T0 + 8000);
    await app.pump();
    const res = await placeTrade(app.t, alice.token, { direction: 'put', amount: 10, duration: 5, asset: 'EURUSD' });
    expect(res.statusCode, res.body).toBe(201);
    const opened = await staff.next((f) => f.type === 'trade.opened', 5000, 'trade.opened to staff');
    expect(opened.payload).toMatchObject({ trade: { id: res.json().trade.id, status: 'active' } });
    await staff.next((f) => f.type === 'balance.changed', 5000, 'balance.changed to staff');

    staff.send({ type: 'unwatch_account', account_id: alice.accountId });
    staff.send({ type: 'ping' });
    await staff.next((f) => f.type === 'pong');
    const before = staff.frames.length;
    const second = await placeTrade(app.t, alice.token, {
      direction: 'call',
      amount: 10,
      duration: 5,
      asset: 'EURUSD',
    });
    expect(second.statusCode).toBe(201);
    staff.send({ type: 'ping' });
    await staff.next((f) => f.type === 'pong');
    expect(staff.frames.slice(before).some((f) => f.type === 'trade.opened')).toBe(false);
  });

  it('refuses an account outside the scope like a missing one, and refuses clients', async () => {
    const manager = await live(otherManager);
    manager.send({ type: 'watch_account', account_id: alice.accountId });
    expect(await manager.next((f) => f.type === 'error')).toEqual({
      type: 'error',
      detail: `account_not_found:${alice.accountId}`,
    });
    manager.send({ type: 'watch_account', account_id: 987654 });
    expect(await manager.next((f) => f.type === 'error')).toEqual({
      type: 'error',
      detail: 'account_not_found:987654',
    });
    const client = await live(alice.token);
    client.send({ type: 'watch_account', account_id: alice.accountId });
    expect(await client.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'forbidden' });
  });

  it('drops a watch at once when the client is reassigned out of scope or the watcher loses the role (finding 4)', async () => {
    const bob = await registerClient(app.t, 'Bob');
    await fund(app.t, bob.accountId, 100_000);
    const admin = (await app.t.userWithToken('superadmin')).token;
    const manager = await app.t.userWithToken('retention_manager');
    const colleague = await app.t.userWithToken('retention_manager');
    const assign = (managerId: string) =>
      app.t.inject({
        method: 'PUT',
        url: `/api/clients/${bob.clientId}`,
        token: admin,
        payload: { assigned_manager: managerId },
      });
    expect((await assign(manager.id)).statusCode).toBe(200);

    const staff = await live(manager.token);
    staff.send({ type: 'watch_account', account_id: bob.accountId });
    expect(await staff.next((f) => f.type === 'watching')).toMatchObject({
      type: 'watching',
      account_id: bob.accountId,
    });

    // Today's attack: after the reassignment GET of the account answered 404, but the socket kept hearing it.
    expect((await assign(colleague.id)).statusCode).toBe(200);
    const revoked = await staff.next((f) => f.type === 'error', 1000, 'watch revoked within 1 s');
    expect(revoked).toEqual({ type: 'error', detail: `watch_revoked:${bob.accountId}` });
    await app.pump();
    const res = await placeTrade(app.t, bob.token, { direction: 'call', amount: 10, duration: 5, asset: 'EURUSD' });
    expect(res.statusCode, res.body).toBe(201);
    staff.send({ type: 'ping' });
    await staff.next((f) => f.type === 'pong');
    expect(staff.frames.some((f) => f.type === 'trade.opened' || f.type === 'balance.changed')).toBe(false);

    // The colleague watches; a role change to one without trading.manage ends it just as fast.
    const other = await live(colleague.token);
    other.send({ type: 'watch_account', account_id: bob.accountId });
    await other.next((f) => f.type === 'watching');
    const demoted = await app.t.inject({
      method: 'PUT',
      url: `/api/users/${colleague.id}`,
      token: admin,
      payload: { name: 'Colleague', email: colleague.email, role: 'admin' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(await other.next((f) => f.type === 'error', 1000, 'watch revoked after the role change')).toEqual({
      type: 'error',
      detail: `watch_revoked:${bob.accountId}`,
    });
    await app.settleAt(app.clock.now() + 10_000);
  });
});
