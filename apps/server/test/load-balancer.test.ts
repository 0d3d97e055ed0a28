import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { freshDatabase } from './helpers.js';
import { resumingSocket, type ResumingSocket } from './live-helpers.js';
import { NGINX_BIN, startNginx, type Nginx } from './nginx.js';
import { feedLeaseHolder, fundUserAccount, startServerProcess, until, type ServerProcess } from './server-process.js';

/**
 * Issue 21 §8: two server processes over one PostgreSQL behind nginx, started with the example configuration the
 * repository ships (deploy/nginx.conf). The process that leads the price feed is killed (SIGKILL) while clients trade
 * through nginx: they keep trading through the other process within 5 s, every acknowledged trade exists once and
 * settles once, the ledger reconciles, and every client's socket (through nginx; reconnecting and resuming from its
 * last sequence when its process dies, as the web client does) is told of every settlement of its account.
 */
const CLIENTS = 4;

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

// PostgreSQL and nginx (`apt-get install -y nginx-light`); with REQUIRE_PG=1 (CI, which installs it) nginx must be there.
if (process.env.REQUIRE_PG === '1' && !NGINX_BIN)
  throw new Error(
    'REQUIRE_PG=1 but nginx is not installed (apt-get install -y nginx-light): the load-balancer test needs it',
  );
if (process.env.TEST_DATABASE_URL && !NGINX_BIN) console.warn('nginx is missing: the load-balancer test is skipped');

describe.runIf(process.env.TEST_DATABASE_URL && NGINX_BIN)('two server processes behind nginx', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let dir: string;
  const procs: ServerProcess[] = [];
  let nginx: Nginx | undefined;

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-lb-'));
    const ticks = path.join(dir, 'ticks.csv');
    // One constant price: every trade is a tie, so each settles with exactly one refund entry to count.
    fs.writeFileSync(ticks, 't_ms,symbol,price\n0,EURUSD,1.10000\n');
    const env = {
      DATABASE_URL: database.url!,
      PRICE_SOURCE: `replay:${ticks}`,
      TRADE_DURATIONS: '2,300',
      SETTLEMENT_INTERVAL_MS: '200',
      FEED_LEADER_RETRY_MS: '500',
      WEB_DIST: '/nonexistent',
      DEMO_DATA: '0',
      LOGIN_RATE_PER_MINUTE: '100000',
      TRUST_PROXY: '127.0.0.1',
      // One audit chain key for every process (docs/operations.md): without it the second one refuses audited writes.
      AUDIT_CHAIN_KEY: randomBytes(32).toString('base64'),
    };
    procs.push(await startServerProcess(env, { tmpPrefix: 'brokerage-lb-' }));
    procs.push(await startServerProcess(env, { tmpPrefix: 'brokerage-lb-' }));
    nginx = await startNginx(procs.map((p) => new URL(p.url).host));
  }, 180_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const p of procs) await p.kill();
    await database?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps clients trading through the other process within 5 s of killing the leader', async () => {
    const base = nginx!.url;
    const clients: { token: string; socket: ResumingSocket }[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const res = await fetch(`${base}/api/auth/register-client`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Trader', email: `lb.${randomUUID()}@test.local`, password: 'secret-123' }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const body = await json<{ access_token: string; user: { id: string } }>(res);
      await fundUserAccount(database.db, body.user.id, 10_000_000);
      clients.push({ token: body.access_token, socket: resumingSocket(`${nginx!.ws}?token=${body.access_token}`) });
    }

    // Each client places a 2-second trade every ~100 ms through nginx, retrying a failed call under the same key
    // (what the trading screen does), and notes when each call was acknowledged.
    const acknowledged: { id: number; at: number; client: number }[] = [];
    const failures: { status: number; at: number }[] = [];
    let running = true;
    const place = async (token: string, client: number) => {
      const key = randomUUID();
      for (let attempt = 0; attempt < 50 && running; attempt++) {
        const res = await fetch(`${base}/api/trading/place-trade`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
          body: JSON.stringify({ direction: 'call', amount: 1, duration: 2, asset: 'EURUSD' }),
        }).catch(() => null);
        if (res?.status === 201) {
          const body = await json<{ trade: { id: number } }>(res);
          acknowledged.push({ id: body.trade.id, at: Date.now(), client });
          return;
        }
        failures.push({ status: res?.status ?? 0, at: Date.now() });
        await res?.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const loops = clients.map(async (c, i) => {
      while (running) {
        await place(c.token, i);
        await new Promise((r) => setTimeout(r, 100));
      }
    });

    await until('trades acknowledged through nginx', async () => acknowledged.length >= 20, 30_000);
    // The process that holds the feed's lease (feed, settlement, postbacks): its loss is the one that costs most.
    const leader = await until('the feed leader', () => feedLeaseHolder(database.db, procs));
    const survivor = procs.find((p) => p !== leader)!;
    const killedAt = Date.now();
    await leader.kill();
    await until(
      'trading to go on after the kill',
      async () => acknowledged.some((a) => a.at > killedAt + 3000),
      30_000,
    );
    running = false;
    await Promise.all(loops);

    // Clients keep trading through the other process within 5 s: from the last trade acknowledged before the kill
    // to the end, no two acknowledged trades are 5 s or more apart.
    const times = acknowledged.map((a) => a.at).sort((x, y) => x - y);
    const lastBefore = times.filter((at) => at <= killedAt).at(-1) ?? killedAt;
    const after = times.filter((at) => at > killedAt);
    const gaps = after.map((at, i) => at - (i === 0 ? lastBefore : after[i - 1]!));
    const firstAfter = after[0]! - killedAt;
    console.log(
      `load balancer: feed leader killed; first trade acknowledged through nginx ${(firstAfter / 1000).toFixed(2)} s ` +
        `after, longest gap between acknowledged trades ${(Math.max(...gaps) / 1000).toFixed(2)} s`,
    );
    expect(Math.max(...gaps)).toBeLessThan(5000);
    expect(survivor.child.exitCode).toBeNull();
    expect(await feedLeaseHolder(database.db, procs)).toBe(survivor);

    // Every acknowledged trade exists once and settles once (the survivor took over the feed and settlement).
    const ids = acknowledged.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    await until(
      'every acknowledged trade settled',
      async () => {
        const rows = await database.db.selectFrom('trades').select('status').where('id', 'in', ids).execute();
        return rows.length === ids.length && rows.every((r) => r.status !== 'active');
      },
      30_000,
    );
    const settles = await database.db
      .selectFrom('ledger_entries')
      .select('reference')
      .where('reference', 'like', 'trade:%:settle')
      .execute();
    const counts = new Map<string, number>();
    for (const s of settles) counts.set(s.reference, (counts.get(s.reference) ?? 0) + 1);
    for (const id of ids) expect(counts.get(`trade:${id}:settle`), `trade ${id}`).toBe(1);
    expect(await reconcile(database.db)).toEqual([]);

    // Every client's socket was told of every settlement of its account, across the kill (the sockets that were on
    // the killed process came back through nginx and resumed).
    for (const [i, c] of clients.entries()) {
      const mine = acknowledged.filter((a) => a.client === i).map((a) => a.id);
      await until(
        'every settlement on its socket',
        async () => mine.every((id) => c.socket.settled().has(id)),
        20_000,
      ).catch(() => undefined);
      const missed = mine.filter((id) => !c.socket.settled().has(id));
      expect(missed, `client ${i} missed settlements`).toEqual([]);
      expect(c.socket.frames.filter((f) => f.type === 'refetch')).toEqual([]);
    }
    expect(clients.some((c) => c.socket.reconnects() > 0)).toBe(true);
    for (const c of clients) await c.socket.stop();
  }, 180_000);
});
