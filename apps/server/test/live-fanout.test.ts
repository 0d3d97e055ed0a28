import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { EVENT_BUFFER_LIMIT, TICK_BUFFER_LIMIT } from '../src/platform/ws/gateway.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { connectLive, type LiveClient, type LiveFrame } from './live-helpers.js';
import { registerClient } from './trading-helpers.js';

/**
 * The live socket's price fan-out (issue 12 item 4) on a listening server: a tick is serialised once however many
 * sockets watch it, goes out as soon as the feed has it, and a socket that stops reading is held to a bounded buffer
 * (the latest tick per symbol waits for it) instead of queueing every tick.
 */
const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const isTick = (symbol: string) => (f: LiveFrame) => f.type === 'tick' && f.symbol === symbol;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe.each(dbKinds())('live price fan-out on %s', (kind) => {
  let t: TestApp;
  let base: string;
  const sockets: LiveClient[] = [];
  const live = async (query = '') => {
    const c = await connectLive(`${base}/api/ws${query}`);
    sockets.push(c);
    return c;
  };
  /** The server's side of every open socket (the plugin's ws server tracks them). */
  const serverSockets = () => [
    ...(t.app as unknown as { websocketServer: { clients: Set<WebSocket> } }).websocketServer.clients,
  ];

  beforeAll(async () => {
    t = await createTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    base = `ws://127.0.0.1:${port}`;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const s of sockets.splice(0)) s.close();
  });
  afterAll(() => t.close());

  it('serialises a tick of the feed once for all its sockets, and each socket gets it once', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => live()));
    for (const c of clients) c.send({ type: 'subscribe', assets: ['EURUSD', 'GBPUSD'] });
    for (const c of clients) {
      c.send({ type: 'ping' });
      await c.next((f) => f.type === 'pong');
    }
    const stringify = vi.spyOn(JSON, 'stringify');
    const at = new Date(T0 + 1000);
    // The feed's tick, once stored (issue 21 §3): this process's listeners and (the in-process bus echoing it) the bus
    // both carry it.
    t.app.engine.prices.ingest({ symbol: 'EURUSD', price: '1.10123', at });
    await t.app.engine.prices.flush();
    const serialised = stringify.mock.calls.filter(
      ([value]) => (value as LiveFrame | undefined)?.type === 'tick' && (value as LiveFrame).symbol === 'EURUSD',
    );
    expect(serialised).toHaveLength(1);
    // A later tick of another symbol: once it arrives, anything the first could still have caused has arrived too.
    t.app.engine.prices.ingest({ symbol: 'GBPUSD', price: '1.29001', at: new Date(T0 + 1500) });
    await t.app.engine.prices.flush();
    for (const c of clients) {
      await c.next(isTick('GBPUSD'), 10_000, 'GBPUSD tick');
      const eurusd = c.frames.filter((f) => isTick('EURUSD')(f) && f.at === at.toISOString());
      expect(eurusd).toEqual([{ type: 'tick', symbol: 'EURUSD', price: 1.10123, at: at.toISOString() }]);
    }
  });

  it('holds a socket that stops reading to a bounded buffer, then sends it the latest price when it reads again', async () => {
    const slow = await live();
    const fast = await live();
    for (const c of [slow, fast]) {
      c.send({ type: 'subscribe', assets: ['EURUSD'] });
      c.send({ type: 'ping' });
      await c.next((f) => f.type === 'pong');
    }
    // The slow client's process stops reading its TCP socket: the kernel's buffers fill, then the server's.
    const slowTcp = (slow.ws as unknown as { _socket: Socket })._socket;
    slowTcp.pause();
    const slowOnServer = () => serverSockets().reduce((most, s) => (s.bufferedAmount > most.bufferedAmount ? s : most));

    let n = 0;
    let price = '';
    const publish = (count: number) => {
      for (let i = 0; i < count; i++) {
        n += 1;
        price = (1 + n / 1e6).toFixed(6);
        t.app.engine.bus.publish({
          type: 'price.tick',
          symbol: 'EURUSD',
          price,
          at: new Date(T0 + 10_000 + n).toISOString(),
        });
      }
    };
    // Until the server holds ticks back for it (a few MB of frames fill the loopback buffers first).
    while (slowOnServer().bufferedAmount <= TICK_BUFFER_LIMIT && n < 400_000) {
      publish(1000);
      await turn();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(n).toBeLessThan(400_000);
    // Over the limit by at most the frames of one turn (1,000 of under 100 bytes here), and however many more ticks
    // come, it stays within that bound (the kernel may take some bytes meanwhile, letting a turn's frames in again).
    const bound = TICK_BUFFER_LIMIT + 1000 * 100;
    expect(slowOnServer().bufferedAmount).toBeLessThan(bound);
    const sentBefore = n;
    let peak = 0;
    while (n < 2 * sentBefore) {
      publish(200);
      await turn();
      peak = Math.max(peak, slowOnServer().bufferedAmount);
    }
    expect(peak).toBeLessThan(bound);
    // The reading socket gets the last tick, and its ticks in order.
    const last = await fast.next((f) => isTick('EURUSD')(f) && f.price === Number(price), 20_000, 'last tick (fast)');
    expect(last.at).toBe(new Date(T0 + 10_000 + n).toISOString());
    const fastTimes = fast.frames.filter(isTick('EURUSD')).map((f) => Date.parse(f.at as string));
    expect(fastTimes).toEqual([...fastTimes].sort((a, b) => a - b));

    // Reading again, the slow socket catches up to the latest price, having skipped what it could not take.
    slowTcp.resume();
    await slow.next((f) => isTick('EURUSD')(f) && f.price === Number(price), 20_000, 'last tick (slow)');
    const got = slow.frames.filter(isTick('EURUSD'));
    expect(got.length).toBeLessThan(n);
    expect(got.at(-1)).toEqual({ type: 'tick', symbol: 'EURUSD', price: Number(price), at: last.at });
    const times = got.map((f) => Date.parse(f.at as string));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("closes a client's socket that has stopped reading once its own events would queue past the limit", async () => {
    const client = await registerClient(t, 'Slow reader');
    const slow = await live(`?token=${client.token}`);
    slow.send({ type: 'ping' });
    await slow.next((f) => f.type === 'pong');
    (slow.ws as unknown as { _socket: Socket })._socket.pause();
    const onServer = () => serverSockets().reduce((most, s) => (s.bufferedAmount > most.bufferedAmount ? s : most));

    // Its message events (small, sent with the bus's payload) pile up: first in the kernel's buffers, then the
    // server's.
    let sent = 0;
    let peak = 0;
    let target: WebSocket | undefined;
    while (sent < 2_000_000 && (!target || target.readyState === target.OPEN)) {
      for (let i = 0; i < 2000; i++) {
        sent += 1;
        t.app.engine.bus.publish({ type: 'message.new', user_id: client.userId, payload: { id: sent } });
      }
      await turn();
      // The server's side of the slow socket: the one whose unsent bytes grow.
      if (!target && onServer().bufferedAmount > 0) target = onServer();
      if (target && target.readyState === target.OPEN) peak = Math.max(peak, target.bufferedAmount);
    }
    // The server ended it (the client reconnects and refetches) rather than hold more than the limit for it.
    expect(target?.readyState).toBe(target?.CLOSED);
    expect(peak).toBeGreaterThan(EVENT_BUFFER_LIMIT / 2);
    expect(peak).toBeLessThan(EVENT_BUFFER_LIMIT + 2000 * 200);
  });
});
