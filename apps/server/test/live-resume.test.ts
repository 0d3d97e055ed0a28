import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { postEntry, reconcile } from '../src/modules/ledger/service.js';
import { MAX_BACKOFF_MS, nextBackoffMs } from '../src/platform/bus/index.js';
import { openDb, type Db, type DbHandle } from '../src/platform/db/index.js';
import { createTestApp, dbKinds, testConfig, type DbKind, type TestApp } from './helpers.js';
import { connectLive, type LiveClient, type LiveFrame } from './live-helpers.js';
import { T0 } from './trading-helpers.js';

/**
 * Issue 21 §7: live updates are not lost when a socket reconnects, when the bus's listening connection is lost, or when
 * an announcement never comes. Two servers over one database (on PostgreSQL each with its own pool and LISTEN/NOTIFY,
 * as two processes; on the embedded database one server plays both), a replay feed on a controlled clock, trades
 * through the API, settlement called by the test on the server the test names.
 */
const ROWS = [
  { t: 0, symbol: 'EURUSD', price: '1.10000' },
  { t: 3000, symbol: 'EURUSD', price: '1.10020' },
  { t: 8000, symbol: 'EURUSD', price: '1.10010' },
];

interface Server {
  app: FastifyInstance;
  ws: string;
}

interface Cluster {
  /** The server the sockets use, and the one that settles ("the other process" on PostgreSQL). */
  a: Server;
  b: Server;
  t: TestApp;
  db: Db;
  clock: { set(ms: number): void };
  close(): Promise<void>;
}

async function listen(app: FastifyInstance): Promise<Server> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, ws: `ws://127.0.0.1:${port}/api/ws` };
}

async function cluster(kind: DbKind, env: Record<string, string>): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'live-resume-'));
  const file = path.join(dir, 'ticks.csv');
  fs.writeFileSync(file, ['t_ms,symbol,price', ...ROWS.map((r) => `${r.t},${r.symbol},${r.price}`)].join('\n'));
  const settings = {
    PRICE_SOURCE: `replay:${file}`,
    TRADE_DURATIONS: '5,300',
    LOGIN_RATE_PER_MINUTE: '100000',
    ...env,
  };
  const t = await createTestApp(kind, settings);
  let now = T0;
  const apps: FastifyInstance[] = [];
  let second: DbHandle | null = null;
  if (kind === 'pglite') apps.push(t.app);
  else {
    // Two servers, each with its own pool and its own listening connection (DATABASE_URL set: PgBus).
    await t.app.close();
    const config = testConfig({ ...settings, DATABASE_URL: t.url! });
    const a = await buildApp({ config, database: { db: t.db, kind: 'postgres', close: async () => {} } });
    second = await openDb({ databaseUrl: t.url!, dataDir: 'memory', poolSize: 5 });
    const b = await buildApp({ config, database: second });
    apps.push(a, b);
  }
  for (const app of apps) {
    await app.ready();
    app.engine.useClock(() => new Date(now));
  }
  // One feed, on the first server (the leader's); the other settles from the stored ticks.
  await apps[0]!.engine.startPriceFeed({ timers: false });
  const servers = await Promise.all(apps.map(listen));
  return {
    a: servers[0]!,
    b: servers.at(-1)!,
    t,
    db: t.db,
    clock: { set: (ms) => void (now = ms) },
    async close() {
      for (const app of apps.slice(1)) await app.close();
      await second?.close();
      await apps[0]!.close();
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Client {
  userId: string;
  accountId: number;
  token: string;
}

async function registerClient(c: Cluster): Promise<Client> {
  const res = await c.a.app.inject({
    method: 'POST',
    url: '/api/auth/register-client',
    payload: { name: 'Trader', email: `resume.${randomBytes(4).toString('hex')}@test.local`, password: 'secret-123' },
    remoteAddress: `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`,
  });
  if (res.statusCode !== 201) throw new Error(`register-client: ${res.statusCode} ${res.body}`);
  const { access_token: token, user } = res.json() as { access_token: string; user: { id: string } };
  const account = await c.db
    .selectFrom('trading_accounts')
    .select('id')
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  await deposit(c.db, Number(account.id), 1_000_000);
  return { userId: user.id, accountId: Number(account.id), token };
}

/** Money moved straight through the ledger: committed, and announced to no one. */
function deposit(db: Db, accountId: number, cents: number) {
  return db.transaction().execute((trx) =>
    postEntry(trx, {
      accountId,
      kind: 'deposit',
      amountCents: cents,
      reference: `test:${randomUUID()}`,
      actor: null,
    }),
  );
}

async function place(server: Server, client: Client, direction: 'call' | 'put', duration = 5): Promise<number> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/trading/place-trade',
    headers: { authorization: `Bearer ${client.token}` },
    payload: { direction, amount: 10, duration, asset: 'EURUSD' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().trade.id as number;
}

const stream = (client: Client) => `account:${client.accountId}`;
const tradeOf = (f: LiveFrame) => (f.payload as { trade: { id: number; status: string } }).trade;
const settledIds = (frames: LiveFrame[]) =>
  new Set(frames.filter((f) => f.type === 'trade.settled').map((f) => tradeOf(f).id));
/** The last sequence a socket saw of a stream: what it sends back in `resume`. */
const lastSeq = (frames: LiveFrame[], key: string) =>
  Math.max(...frames.filter((f) => f.stream === key && typeof f.seq === 'number').map((f) => f.seq as number));

async function liveSeq(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('trading_accounts')
    .select('live_seq')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.live_seq);
}

/** Waits until the socket has been sent the account's state as the database has it now. */
async function caughtUp(db: Db, socket: LiveClient, client: Client): Promise<void> {
  const seq = await liveSeq(db, client.accountId);
  await socket.next(
    (f) => f.type === 'balance.changed' && f.stream === stream(client) && f.seq === seq,
    10_000,
    'caught up',
  );
}

it('the bus retries its listening connection and its publishing with a backoff of at most 1 s', () => {
  const waits: number[] = [];
  let wait = 0;
  for (let i = 0; i < 8; i++) waits.push((wait = nextBackoffMs(wait)));
  expect(waits).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  expect(MAX_BACKOFF_MS).toBe(1000);
});

describe.each(dbKinds())('live streams resume on %s', (kind) => {
  let c: Cluster;
  const sockets: LiveClient[] = [];
  const live = async (server: Server, token: string) => {
    const s = await connectLive(`${server.ws}?token=${token}`);
    sockets.push(s);
    return s;
  };

  beforeAll(async () => {
    // A long resync: what these tests see comes from the resume and the hints, not from the periodic read.
    c = await cluster(kind, { LIVE_RESYNC_MS: '300000' });
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    expect(await reconcile(c.db)).toEqual([]);
  });
  afterAll(() => c.close());

  it('a socket that reconnects with its last sequence is sent every settlement it missed, settled on the other server', async () => {
    const client = await registerClient(c);
    c.clock.set(T0 + 1000);
    await c.a.app.engine.prices.pump();
    const first = await live(c.a, client.token);
    const ids = [];
    for (const direction of ['call', 'put', 'call', 'put'] as const) ids.push(await place(c.a, client, direction));
    await caughtUp(c.db, first, client);
    expect(new Set(first.frames.filter((f) => f.type === 'trade.opened').map((f) => tradeOf(f).id))).toEqual(
      new Set(ids),
    );
    const seen = lastSeq(first.frames, stream(client));
    first.close();
    await first.closed;

    // While it is away: one more trade (on the other server), then every trade settles there.
    const late = await place(c.b, client, 'call');
    const report = await (async () => {
      c.clock.set(T0 + 14_000);
      await c.a.app.engine.prices.pump();
      return c.b.app.engine.settleDueTrades({ now: new Date(T0 + 14_000) });
    })();
    expect(report.settled.map((s) => s.id).sort((x, y) => x - y)).toEqual([...ids, late].sort((x, y) => x - y));

    const again = await live(c.a, client.token);
    again.send({ type: 'resume', streams: { [stream(client)]: seen } });
    const resumed = await again.next((f) => f.type === 'resumed', 10_000, 'resumed');
    const replayed = again.frames.slice(0, again.frames.indexOf(resumed));
    // Every settlement, each as the database has it; the opening only of the trade it had not seen open.
    expect(settledIds(replayed)).toEqual(new Set([...ids, late]));
    const rows = await c.db
      .selectFrom('trades')
      .select(['id', 'status'])
      .where('id', 'in', [...ids, late])
      .execute();
    for (const frame of replayed.filter((f) => f.type === 'trade.settled'))
      expect(tradeOf(frame).status).toBe(rows.find((r) => Number(r.id) === tradeOf(frame).id)!.status);
    expect(replayed.filter((f) => f.type === 'trade.opened').map((f) => tradeOf(f).id)).toEqual([late]);
    expect(replayed.every((f) => f.replay === true && f.stream === stream(client))).toBe(true);
    const balance = replayed.at(-1)!;
    expect(balance.type).toBe('balance.changed');
    const now = await c.db
      .selectFrom('trading_accounts')
      .select('balance_cents')
      .where('id', '=', client.accountId)
      .executeTakeFirstOrThrow();
    expect(balance.payload).toEqual({ account_id: client.accountId, balance: Number(now.balance_cents) / 100 });
    expect((resumed.streams as Record<string, number>)[stream(client)]).toBe(await liveSeq(c.db, client.accountId));
    expect(balance.seq).toBe(await liveSeq(c.db, client.accountId));

    // Caught up: a resume from there replays nothing.
    again.send({ type: 'resume', streams: { [stream(client)]: balance.seq } });
    const twice = await again.next((f) => f.type === 'resumed', 10_000, 'second resumed');
    expect(again.frames.slice(again.frames.indexOf(resumed) + 1, again.frames.indexOf(twice))).toEqual([]);
  });

  it('replays a staff watch and the messages from the sequences given, and says refetch when it cannot', async () => {
    const client = await registerClient(c);
    const staff = await c.t.createUser('superadmin');
    const login = await c.a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: staff.email, password: 'correct-horse-1' },
    });
    const staffToken = login.json().access_token as string;
    c.clock.set(T0 + 20_000);
    await c.a.app.engine.prices.pump();

    const watcher = await live(c.a, staffToken);
    watcher.send({ type: 'watch_account', account_id: client.accountId });
    const watching = await watcher.next((f) => f.type === 'watching', 10_000, 'watching');
    expect(watching).toMatchObject({ account_id: client.accountId, stream: stream(client) });
    const mine = await live(c.a, client.token);
    mine.send({ type: 'resume', streams: {} });
    const hello = await mine.next((f) => f.type === 'resumed', 10_000, 'resumed');
    const streams = hello.streams as Record<string, number>;
    expect(Object.keys(streams).sort()).toEqual([stream(client), 'messages'].sort());
    watcher.close();
    mine.close();
    await Promise.all([watcher.closed, mine.closed]);

    // Away: a trade opened and settled, and a message from staff.
    const id = await place(c.b, client, 'put');
    c.clock.set(T0 + 30_000);
    await c.a.app.engine.prices.pump();
    await c.b.app.engine.settleDueTrades({ now: new Date(T0 + 30_000) });
    const clientRow = await c.db
      .selectFrom('trading_accounts')
      .select('client_id')
      .where('id', '=', client.accountId)
      .executeTakeFirstOrThrow();
    const sent = await c.b.app.inject({
      method: 'POST',
      url: '/api/client-messages',
      headers: { authorization: `Bearer ${staffToken}` },
      payload: { client_id: Number(clientRow.client_id), content: 'Hello' },
    });
    expect(sent.statusCode, sent.body).toBe(201);

    const watcher2 = await live(c.a, staffToken);
    watcher2.send({ type: 'watch_account', account_id: client.accountId, seq: watching.seq });
    const rewatched = await watcher2.next((f) => f.type === 'watching', 10_000, 'watching again');
    const replayed = watcher2.frames.slice(0, watcher2.frames.indexOf(rewatched));
    expect(replayed.map((f) => [f.type, f.type === 'balance.changed' ? null : tradeOf(f).id])).toEqual([
      ['trade.opened', id],
      ['trade.settled', id],
      ['balance.changed', null],
    ]);
    expect(rewatched.seq).toBe(await liveSeq(c.db, client.accountId));

    // The client: its messages from its sequence, and a refetch for an account sequence the database never reached.
    const mine2 = await live(c.a, client.token);
    mine2.send({
      type: 'resume',
      streams: { messages: streams.messages!, [stream(client)]: (await liveSeq(c.db, client.accountId)) + 100 },
    });
    const resumed = await mine2.next((f) => f.type === 'resumed', 10_000, 'resumed');
    const frames = mine2.frames.slice(0, mine2.frames.indexOf(resumed));
    expect(frames.filter((f) => f.type === 'message.new')).toEqual([
      { type: 'message.new', payload: { id: sent.json().id }, stream: 'messages', seq: sent.json().id, replay: true },
    ]);
    expect(frames.filter((f) => f.type === 'refetch')).toEqual([
      { type: 'refetch', stream: stream(client), seq: await liveSeq(c.db, client.accountId) },
    ]);
  });

  it('a message announced on the bus brings the earlier ones whose announcements were lost, and moves no cursor past them', async () => {
    const client = await registerClient(c);
    const socket = await live(c.a, client.token);
    socket.send({ type: 'resume', streams: {} });
    const hello = await socket.next((f) => f.type === 'resumed', 10_000, 'resumed');
    const since = (hello.streams as Record<string, number>).messages!;
    const { client_id: clientId } = await c.db
      .selectFrom('trading_accounts')
      .select('client_id')
      .where('id', '=', client.accountId)
      .executeTakeFirstOrThrow();
    // Three committed and never announced (a server killed between commit and NOTIFY), then one that is.
    const ids: number[] = [];
    for (const content of ['one', 'two', 'three', 'four']) {
      const row = await c.db
        .insertInto('client_messages')
        .values({ client_id: clientId, user_id: client.userId, content })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    c.a.app.engine.bus.publish({ type: 'message.new', user_id: client.userId, payload: { id: ids.at(-1) } });

    const messageIds = () =>
      socket.frames.filter((f) => f.type === 'message.new').map((f) => (f.payload as { id: number }).id);
    await socket.next(() => ids.every((id) => messageIds().includes(id)), 10_000, 'every message');
    expect([...messageIds()].sort((x, y) => x - y)).toEqual(ids);
    // The announced one went out at once, with the sequence the socket had (not its own id, past the missing ones).
    const direct = socket.frames.find((f) => f.type === 'message.new' && f.replay === undefined && f.seq === since);
    expect(direct?.payload).toEqual({ id: ids.at(-1) });

    // Every frame's sequence is a promise that the socket has every message up to it (what it resumes from).
    const messages = socket.frames.filter((f) => f.type === 'message.new');
    messages.forEach((frame, i) => {
      const told = messages.slice(0, i + 1).map((f) => (f.payload as { id: number }).id);
      expect(ids.filter((id) => id <= (frame.seq as number) && !told.includes(id))).toEqual([]);
    });
  });

  it('an open socket is sent a change whose announcement never came, at the periodic resync', async () => {
    const quick = await cluster(kind, { LIVE_RESYNC_MS: '300' });
    try {
      const client = await registerClient(quick);
      const socket = await connectLive(`${quick.a.ws}?token=${client.token}`);
      sockets.push(socket);
      socket.send({ type: 'resume', streams: {} });
      await socket.next((f) => f.type === 'resumed', 10_000, 'resumed');
      // Committed, never published: what a server killed between its commit and its NOTIFY leaves behind.
      await deposit(quick.db, client.accountId, 12_345);
      const frame = await socket.next((f) => f.type === 'balance.changed', 10_000, 'balance.changed at the resync');
      expect(frame.payload).toEqual({ account_id: client.accountId, balance: (1_000_000 + 12_345) / 100 });

      // A void written by any path (here by hand) is stamped by the database (trades_stamp_void) and reaches the socket.
      quick.clock.set(T0 + 1000);
      await quick.a.app.engine.prices.pump();
      const id = await place(quick.a, client, 'call', 300);
      await caughtUp(quick.db, socket, client);
      await quick.db
        .updateTable('trades')
        .set({ status: 'voided', void_reason: 'test', settled_at: new Date(T0 + 2000), profit_cents: 0 })
        .where('id', '=', id)
        .execute();
      const voided = await socket.next((f) => f.type === 'trade.settled', 10_000, 'the void at the resync');
      expect(tradeOf(voided)).toMatchObject({ id, status: 'voided' });
      socket.close();
    } finally {
      await quick.close();
    }
  });

  // Two listening connections to terminate: PostgreSQL only.
  if (kind === 'postgres')
    it('every still-open socket gets every settlement of its account when the listening connections are terminated meanwhile', async () => {
      const clients = [await registerClient(c), await registerClient(c), await registerClient(c)];
      c.clock.set(T0 + 40_000);
      await c.a.app.engine.prices.pump();
      // Sockets on both servers: the first client's on A, the second's on B, the third's on both.
      const watched: { socket: LiveClient; client: Client }[] = [];
      for (const [i, client] of clients.entries()) {
        for (const server of i === 0 ? [c.a] : i === 1 ? [c.b] : [c.a, c.b])
          watched.push({ socket: await live(server, client.token), client });
      }
      const ids = new Map<Client, number[]>();
      for (const client of clients) {
        const mine: number[] = [];
        for (let i = 0; i < 4; i++) mine.push(await place(i % 2 ? c.a : c.b, client, i % 2 ? 'call' : 'put'));
        ids.set(client, mine);
      }
      for (const { socket, client } of watched) await caughtUp(c.db, socket, client);

      // Both servers' listening connections go (a PostgreSQL restart, a failover): settled while they are gone.
      const killed = await sql<{ pid: number }>`
        with victims as materialized (
          select pid from pg_stat_activity where datname = current_database() and application_name = 'brokerage-bus'
        )
        select pid from victims where pg_terminate_backend(pid)`.execute(c.db);
      expect(killed.rows).toHaveLength(2);
      const pids = killed.rows.map((r) => r.pid);
      for (;;) {
        const left = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where pid = any(${pids}::int[])`.execute(c.db);
        if (left.rows[0]!.n === 0) break;
      }
      c.clock.set(T0 + 50_000);
      await c.a.app.engine.prices.pump();
      const report = await c.b.app.engine.settleDueTrades({ now: new Date(T0 + 50_000) });
      expect(report.settled).toHaveLength(12);

      for (const { socket, client } of watched) {
        const want = new Set(ids.get(client));
        await socket.next(() => [...want].every((id) => settledIds(socket.frames).has(id)), 15_000, 'every settlement');
        expect([...settledIds(socket.frames)].filter((id) => !want.has(id))).toEqual([]);
      }
    }, 60_000);
});
