/**
 * The live socket's price fan-out (issue 12, item 4): BENCH_SOCKETS WebSocket clients (default 5,000, each from its
 * own X-Forwarded-For address, spread over BENCH_WS_PROCESSES client processes) subscribe to prices on GET /api/ws of
 * the real app (the engine's own simulator feed: one tick per asset per second, fanned out by the gateway as the feed
 * emits it, stored in its batches, published on the bus for other processes), and count the ticks they receive and
 * each tick's latency: receive time − the tick's `at`.
 * Baseline, in the same run, to the same client processes: a bare `ws` server whose ticks are due once a second, every
 * asset at the same moment, stamped `at` with that moment as the app's simulator stamps its own; it serialises each tick
 * once to a Buffer and sends it to every subscribed socket (ws's broadcast pattern). Both latencies count from when a
 * tick was due, so a server that falls behind shows it in its latency.
 *
 * Two loads: EURUSD only (1 tick/s per socket) and all 38 assets (the saturation rate). Prints
 *   ws delivered 1/s ours <n> msg/s baseline <n> msg/s ratio <ours/baseline>      (EURUSD only)
 *   ws p99 1/s ours <t> ms baseline <t> ms ratio <ours/baseline>
 *   ws delivered ours <n> msg/s baseline <n> msg/s ratio <ours/baseline>          (saturation)
 *   ws p99 ours <t> ms baseline <t> ms ratio <ours/baseline>
 * and `ws memory per socket: <n> KB` (the server's RSS growth / sockets).
 *
 *   npm run bench:ws                                              # embedded PGlite
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:ws
 *
 * BENCH_WS_SECONDS (default 10) is each measurement's length. The clients run on the same 2-core machine as the
 * server in both runs; only the ratio compares like with like.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ASSET_SYMBOLS } from '@brokerage/shared';
import pg from 'pg';
import { WebSocketServer, type WebSocket } from 'ws';
import { buildApp } from '../apps/server/src/app.js';
import { openDb, migrate, type DbHandle } from '../apps/server/src/platform/db/index.js';
import { testConfig } from '../apps/server/test/helpers.js';
import { benchSize, guardLoad, report } from './support.js';

const SOCKETS = benchSize('BENCH_SOCKETS', 5000, 60);
const PROCESSES = benchSize('BENCH_WS_PROCESSES', 2, 1);
const SECONDS = benchSize('BENCH_WS_SECONDS', 10, 2);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Reply {
  ok: boolean;
  error?: string;
  open?: number;
  received?: number;
  buckets?: [number, number][];
}

class Clients {
  private readonly children: ChildProcess[] = [];
  constructor(count: number) {
    for (let i = 0; i < count; i++) {
      this.children.push(fork(path.join(here, 'ws-client.ts'), [], { execArgv: ['--import', 'tsx'] }));
    }
  }
  private ask(child: ChildProcess, command: object): Promise<Reply> {
    return new Promise((resolve, reject) => {
      child.once('message', (reply) => {
        const r = reply as Reply;
        if (r.ok) resolve(r);
        else reject(new Error(r.error));
      });
      child.send(command);
    });
  }
  async open(url: string, total: number, offset: number): Promise<void> {
    const share = Math.ceil(total / this.children.length);
    await Promise.all(
      this.children.map((c, i) =>
        this.ask(c, { cmd: 'open', url, count: Math.min(share, total - i * share), first: offset + i * share }),
      ),
    );
  }
  async subscribe(assets: string[]): Promise<void> {
    await Promise.all(this.children.map((c) => this.ask(c, { cmd: 'subscribe', assets })));
  }
  async measure(seconds: number): Promise<{ perSecond: number; p50: number; p99: number; open: number }> {
    const replies = await Promise.all(this.children.map((c) => this.ask(c, { cmd: 'measure', seconds })));
    const hist = new Map<number, number>();
    let received = 0;
    let open = 0;
    for (const r of replies) {
      received += r.received!;
      open += r.open!;
      for (const [b, n] of r.buckets!) hist.set(b, (hist.get(b) ?? 0) + n);
    }
    const sorted = [...hist.entries()].sort((a, b) => a[0] - b[0]);
    const quantile = (q: number) => {
      let seen = 0;
      for (const [b, n] of sorted) {
        seen += n;
        if (seen >= q * received) return (b + 1) * 0.5;
      }
      return NaN;
    };
    return { perSecond: received / seconds, p50: quantile(0.5), p99: quantile(0.99), open };
  }
  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => this.ask(c, { cmd: 'close' }).catch(() => undefined)));
  }
}

async function openDatabase(): Promise<{ handle: DbHandle; drop: () => Promise<void> }> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    const handle = await openDb({ dataDir: 'memory' });
    await migrate(handle.db);
    return { handle, drop: async () => {} };
  }
  const name = `bench_ws_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDb({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 5 });
  await migrate(handle.db);
  return {
    handle,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** The baseline: a bare ws server sending each second's tick of each asset to every subscriber, serialised once. */
async function bareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const bySymbol = new Map<string, Set<WebSocket>>();
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; assets?: string[] };
      if (message.type !== 'subscribe') return;
      for (const symbol of message.assets ?? []) {
        let set = bySymbol.get(symbol);
        if (!set) bySymbol.set(symbol, (set = new Set()));
        set.add(socket);
      }
    });
    socket.on('close', () => {
      for (const set of bySymbol.values()) set.delete(socket);
    });
  });
  // Ticks are due once a second, all assets at the same moment, and stamped with that moment, as the app's simulator
  // makes them (a tick's latency counts from when it was due, in both servers); each tick is serialised once, to a
  // Buffer, and that Buffer is sent to every subscriber (ws's own broadcast pattern).
  let price = 1.1;
  let nextAt = Date.now() + 1000;
  let timer: NodeJS.Timeout;
  const pass = () => {
    const at = new Date(nextAt).toISOString();
    nextAt += 1000;
    for (const symbol of ASSET_SYMBOLS) {
      const subscribers = bySymbol.get(symbol);
      if (!subscribers) continue;
      price = Math.round((price + (Math.random() - 0.5) * 0.0002) * 1e5) / 1e5;
      const frame = Buffer.from(JSON.stringify({ type: 'tick', symbol, price, at }));
      for (const socket of subscribers) if (socket.readyState === socket.OPEN) socket.send(frame, { binary: false });
    }
    timer = setTimeout(pass, Math.max(0, nextAt - Date.now()));
  };
  timer = setTimeout(pass, 1000);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    async close() {
      clearTimeout(timer);
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * The saturation lines carry the bare names the format asks for: `ws delivered …`, `ws p99 …`; the EURUSD-only
 * lines are `ws delivered 1/s …`, `ws p99 1/s …`.
 */
const LOADS: { label: string; suffix: string; assets: readonly string[] }[] = [
  { label: '1 tick/s (EURUSD)', suffix: ' 1/s', assets: ['EURUSD'] },
  { label: `saturation (all ${ASSET_SYMBOLS.length} assets)`, suffix: '', assets: ASSET_SYMBOLS },
];

async function main(): Promise<void> {
  guardLoad();
  console.log(`${SOCKETS} sockets over ${PROCESSES} client processes, ${SECONDS} s per measurement`);
  const ours: Record<string, Awaited<ReturnType<Clients['measure']>>> = {};
  const base: Record<string, Awaited<ReturnType<Clients['measure']>>> = {};

  // Ours: the real app with its engine (simulator feed, tick batches, bus, gateway).
  const { handle, drop } = await openDatabase();
  const app = await buildApp({
    config: testConfig({ TRUST_PROXY: 'loopback', API_RATE_PER_MINUTE: '1000000', PRICE_SOURCE: 'simulator' }),
    database: handle,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.start();
  const port = (app.server.address() as AddressInfo).port;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let clients = new Clients(PROCESSES);
  await clients.open(`ws://127.0.0.1:${port}/api/ws`, SOCKETS, 0);
  await new Promise((r) => setTimeout(r, 1000));
  global.gc?.();
  const perSocket = (process.memoryUsage().rss - rssBefore) / SOCKETS;
  for (const load of LOADS) {
    await clients.subscribe([...load.assets]);
    await new Promise((r) => setTimeout(r, 1500));
    ours[load.label] = await clients.measure(SECONDS);
  }
  await clients.close();
  await app.close();
  await handle.close();
  await drop();

  // Baseline: the bare ws server, fresh client processes.
  const bare = await bareServer();
  clients = new Clients(PROCESSES);
  await clients.open(bare.url, SOCKETS, 0);
  for (const load of LOADS) {
    await clients.subscribe([...load.assets]);
    await new Promise((r) => setTimeout(r, 1500));
    base[load.label] = await clients.measure(SECONDS);
  }
  await clients.close();
  await bare.close();

  for (const load of LOADS) {
    const o = ours[load.label]!;
    const b = base[load.label]!;
    console.log(
      `\n${load.label}: ours ${o.open} sockets open, p50 ${o.p50.toFixed(1)} ms; baseline ${b.open} open, p50 ${b.p50.toFixed(1)} ms`,
    );
    report(`ws delivered${load.suffix}`, o.perSecond, b.perSecond, 'msg/s', 0);
    report(`ws p99${load.suffix}`, o.p99, b.p99, 'ms', 1);
  }
  // No baseline figure: the bare server runs in this process after ours closed, so its RSS growth reuses freed pages.
  console.log(
    `\nws memory per socket: ${(perSocket / 1024).toFixed(1)} KB (server RSS growth over ${SOCKETS} open sockets, before any subscription)`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
