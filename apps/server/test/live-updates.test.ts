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

/**
 * GET /api/ws (decisions.md D11) on a real listening server: prices from a replay file on a controlled clock, trades
 * through the API, settlement called by the test; the sockets are real `ws` clients.
 */
const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.10000' },
  { t: 0, symbol: 'GBPUSD', price: '1.29500' },
  { t: 3000, symbol: 'EURUSD', price: '1.10020' },
  { t: 3000, symbol: 'GBPUSD', price: '1.29400' },
  { t: 8000, symbol: 'EURUSD', price: '1.10010' },
];

describe.each(dbKinds())('live updates on %s', (kind) => {
  let app: TradingTestApp;
  let base: string;
  let alice: TestClient;
  let bob: TestClient;
  const sockets: LiveClient[] = [];
  const live = async (query = '', headers: Record<string, string> = {}) => {
    const c = await connectLive(`${base}/api/ws${query}`, headers);
    sockets.push(c);
    return c;
  };

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS, { WS_SESSION_CHECK_MS: '200' });
    await app.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.t.app.server.address() as { port: number };
    base = `ws://127.0.0.1:${port}`;
    alice = await registerClient(app.t, 'Alice');
    bob = await registerClient(app.t, 'Bob');
    await fund(app.t, alice.accountId, 100_000);
    await fund(app.t, bob.accountId, 100_000);
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await expectLedgerConsistent(app.t);
  });
  afterAll(() => app.close());
  const httpBase = () => base.replace(/^ws:/, 'http:');

  it('sends an anonymous socket the current price at once, then the ticks of its assets only', async () => {
    const anon = await live();
    anon.send({ type: 'subscribe', assets: ['EURUSD'] });
    const first = await anon.next((f) => f.type === 'tick', 5000, 'first tick');
    expect(first).toEqual({ type: 'tick', symbol: 'EURUSD', price: 1.1, at: new Date(T0).toISOString() });

    app.clock.set(T0 + 3000);
    await app.pump();
    const moved = await anon.next((f) => f.type === 'tick', 5000, 'tick at 3 s');
    expect(moved).toEqual({ type: 'tick', symbol: 'EURUSD', price: 1.1002, at: new Date(T0 + 3000).toISOString() });

    anon.send({ type: 'unsubscribe', assets: ['EURUSD'] });
    anon.send({ type: 'ping' });
    await anon.next((f) => f.type === 'pong');
    app.clock.set(T0 + 8000);
    await app.pump();
    anon.send({ type: 'ping' });
    await anon.next((f) => f.type === 'pong');
    // GBPUSD never asked for; EURUSD no longer.
    expect(anon.frames.filter((f) => f.type === 'tick')).toHaveLength(2);
    expect(anon.frames.some((f) => f.type === 'tick' && f.symbol === 'GBPUSD')).toBe(false);
  });

  it('answers a bad message with an error frame and keeps the socket open', async () => {
    const s = await live();
    s.send('not json');
    expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'bad_message' });
    s.send({ type: 'subscribe', assets: 'EURUSD' });
    expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'bad_message' });
    s.send({ type: 'delete-everything' });
    expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'bad_message' });
    s.send({ type: 'subscribe', assets: ['NOPE'] });
    expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'unknown_asset:NOPE' });
    s.send({ type: 'subscribe', assets: Array.from({ length: 51 }, () => 'EURUSD') });
    expect(await s.next((f) => f.type === 'error')).toEqual({ type: 'error', detail: 'bad_message' });
    s.send({ type: 'ping' });
    expect(await s.next((f) => f.type !== 'error')).toEqual({ type: 'pong' });
  });

  it("tells a client of its trade opened, its balance, then the settled result — and never another user's events", async () => {
    const mine = await live(`?token=${alice.token}`);
    const theirs = await live('', { cookie: `session=${encodeURIComponent(bob.token)}`, origin: httpBase() });
    const anon = await live();
    app.clock.set(T0 + 8000);
    await app.pump();

    const res = await placeTrade(app.t, alice.token, { direction: 'call', amount: 100, duration: 5, asset: 'EURUSD' });
    expect(res.statusCode, res.body).toBe(201);
    const tradeId = res.json().trade.id as number;
    const opened = await mine.next((f) => f.type === 'trade.opened', 5000, 'trade.opened');
    expect(opened.payload).toMatchObject({ trade: { id: tradeId, status: 'active', strike_price: 1.1001 } });
    const balance = await mine.next((f) => f.type === 'balance.changed', 5000, 'balance.changed');
    expect(balance.payload).toEqual({ account_id: alice.accountId, balance: 900 });

    // The feed moves past the expiry (the replay repeats its last prices each second) and settlement runs.
    const report = await app.settleAt(T0 + 14_000);
    expect(report.settled.map((s) => s.id)).toEqual([tradeId]);
    const settled = await mine.next((f) => f.type === 'trade.settled', 5000, 'trade.settled');
    expect(settled.payload).toMatchObject({
      trade: { id: tradeId, status: 'tie', close_price: 1.1001, profit_loss: 0 },
    });
    // The event's trade is the trade exactly as the client's own list shows it.
    const listed = await app.t.inject({ method: 'GET', url: '/api/trading/trades', token: alice.token });
    expect(settled.payload).toEqual({ trade: listed.json().items.find((t: { id: number }) => t.id === tradeId) });
    const after = await mine.next((f) => f.type === 'balance.changed', 5000, 'balance.changed after settlement');
    expect(after.payload).toMatchObject({ account_id: alice.accountId, balance: 1000 });

    // Events are delivered in order on one server, so once these pongs come back nothing else is on its way.
    theirs.send({ type: 'ping' });
    anon.send({ type: 'ping' });
    await theirs.next((f) => f.type === 'pong');
    await anon.next((f) => f.type === 'pong');
    // Besides the price log's signed heads, which every socket gets (public, D27).
    const notHeads = (frames: typeof anon.frames) => frames.filter((f) => f.type !== 'price_log_head');
    expect(notHeads(theirs.frames)).toEqual([{ type: 'pong' }]);
    expect(notHeads(anon.frames)).toEqual([{ type: 'pong' }]);
  });

  it("refuses a cookie socket opened by another site's page or naming no origin; a program's token needs none", async () => {
    const cookie = `session=${encodeURIComponent(alice.token)}`;
    // Today's attack: a page on another port of this host opened the socket with the victim's cookie.
    const foreignPort = httpBase().replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`);
    await expect(connectLive(`${base}/api/ws`, { cookie, origin: foreignPort })).rejects.toThrow(
      'upgrade refused: 403',
    );
    await expect(connectLive(`${base}/api/ws`, { cookie, origin: 'https://evil.example.net' })).rejects.toThrow(
      'upgrade refused: 403',
    );
    await expect(connectLive(`${base}/api/ws`, { cookie })).rejects.toThrow('upgrade refused: 403');
    // The refusal is audited like any 403 to a signed-in caller.
    const [row] = (await app.t.auditRows('access.denied')).slice(-1);
    expect(row).toMatchObject({ entity_id: 'GET /api/ws', after: { reason: 'bad_origin' } });

    // Our own page, and a program with ?token= or a Bearer header (no Origin), still get their events.
    const own = await live('', { cookie, origin: httpBase() });
    const byQuery = await live(`?token=${alice.token}`);
    const byBearer = await live('', { authorization: `Bearer ${alice.token}` });
    await app.pump();
    const res = await placeTrade(app.t, alice.token, { direction: 'put', amount: 10, duration: 5, asset: 'EURUSD' });
    expect(res.statusCode, res.body).toBe(201);
    for (const s of [own, byQuery, byBearer]) await s.next((f) => f.type === 'trade.opened', 5000, 'trade.opened');
    await app.settleAt(app.clock.now() + 10_000);
  });

  it('closes the socket of a session that ended, and refuses an unknown token', async () => {
    const s = await live(`?token=${bob.token}`);
    const out = await app.t.inject({ method: 'POST', url: '/api/auth/logout', token: bob.token });
    expect(out.statusCode).toBeLessThan(300);
    expect(await s.closed).toBe(4401);
    await expect(connectLive(`${base}/api/ws?token=not-a-session`)).rejects.toThrow('upgrade refused: 401');
  });
});
