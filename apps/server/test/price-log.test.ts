import { createHash, createPublicKey, verify } from 'node:crypto';
import { wsServerMessageSchema } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headSignatureInput, leafHash } from '../src/modules/price-log/hash.js';
import { publishHead } from '../src/modules/price-log/publisher.js';
import { storeTicks } from '../src/modules/prices/feed-store.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { connectLive, type LiveClient } from './live-helpers.js';
import {
  T0,
  createTradingApp,
  fund,
  placeTrade,
  publishLogHead,
  registerClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * The price log's write side (issue 30 §1, decisions.md D27): every stored tick becomes a leaf in the statement that
 * stores it, heads are signed over RFC 6962's input and published (HTTP and the live stream), a consistency proof
 * between two heads verifies by RFC 9162's algorithm (written out here, independent of the server's tree code), and a
 * trade settles only once a head published at or before the settlement covers the next tick after its expiry.
 */

const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const node = (l: Uint8Array, r: Uint8Array) => sha(Buffer.of(1), l, r);

/** RFC 6962 MTH over leaf hashes, the reference the server's roots must equal. */
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return d[0]!;
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return node(mth(d.slice(0, k)), mth(d.slice(k)));
}

/** RFC 9162 §2.1.4.2: verify a consistency proof between (first, firstRoot) and (second, secondRoot). */
function verifyConsistency(first: number, second: number, firstRoot: Buffer, secondRoot: Buffer, proof: Buffer[]) {
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first === 0 || first > second || proof.length === 0) return false;
  const path = [...proof];
  if ((first & (first - 1)) === 0) path.unshift(firstRoot);
  let fn = first - 1;
  let sn = second - 1;
  while (fn & 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn & 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (!(fn & 1)) {
        do {
          fn >>= 1;
          sn >>= 1;
        } while (!(fn & 1) && fn !== 0);
      }
    } else {
      sr = node(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && fr.equals(firstRoot) && sr.equals(secondRoot);
}

interface LeafRow {
  log_index: string;
  symbol: string;
  symbol_seq: string;
  time_ms: string;
  price: string;
  hash: Buffer;
}

/** Every stored tick with its leaf, in leaf order. */
async function leaves(t: TestApp): Promise<LeafRow[]> {
  const { rows } = await sql<LeafRow>`
    select p.log_index, p.symbol, p.symbol_seq, floor(extract(epoch from p.at) * 1000)::bigint as time_ms,
           p.price::text as price, n.hash
    from price_ticks p left join price_log_nodes n on n.level = 0 and n.idx = p.log_index
    order by p.log_index`.execute(t.db);
  return rows.map((r) => ({ ...r, hash: Buffer.from(r.hash) }));
}

const tick = (symbol: string, ms: number, price: string) => ({ symbol, price, at: new Date(ms) });

describe.each(dbKinds())('price log on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('appends each stored tick as a leaf in the statement that stores it, hashed in SQL as leafHash does', async () => {
    const latest = await t.inject({ method: 'GET', url: '/api/price-log/heads/latest' });
    expect(latest.statusCode).toBe(404);
    expect(latest.json().detail).toBeTruthy();
    const base = Number((await t.db.selectFrom('price_log_state').select('size').executeTakeFirstOrThrow()).size);
    expect(base).toBe(0);

    // D27's example leaf first (EURUSD's tick 1), trailing zero kept; then a mixed write.
    const w1 = await storeTicks(t.db, {
      ticks: [
        tick('EURUSD', 1767225600000, '1.08520'),
        tick('BTCUSDT', 1767225600000, '97000.50'),
        tick('EURUSD', 1767225600500, '1.08530'),
      ],
      watermark: new Date(1767225601000),
      fence: null,
    });
    expect(w1).toMatchObject({ leased: true, stored: 3 });
    // A tick at or before the watermark is refused and takes no index; a refused fence appends nothing.
    const refusedFence = await storeTicks(t.db, {
      ticks: [tick('EURUSD', 1767225605000, '1.1')],
      watermark: new Date(1767225605000),
      fence: '987654321',
    });
    expect(refusedFence).toMatchObject({ leased: false, stored: 0 });
    const w2 = await storeTicks(t.db, {
      ticks: [
        tick('EURUSD', 1767225600900, '1.08000'),
        tick('GBPUSD', 1767225601500, '1.27000'),
        tick('EURUSD', 1767225602000, '1.08540'),
        tick('BTCUSDT', 1767225602000, '97001'),
      ],
      watermark: new Date(1767225602000),
      fence: null,
    });
    expect(w2).toMatchObject({ leased: true, stored: 3 });

    const rows = await leaves(t);
    expect(rows.map((r) => Number(r.log_index))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.map((r) => `${r.symbol}#${r.symbol_seq}`)).toEqual([
      'EURUSD#1',
      'BTCUSDT#1',
      'EURUSD#2',
      'GBPUSD#1',
      'EURUSD#3',
      'BTCUSDT#2',
    ]);
    expect(rows[0]!.price).toBe('1.08520');
    for (const r of rows)
      expect(r.hash.toString('hex'), `leaf ${r.log_index}`).toBe(
        leafHash({ symbol: r.symbol, seq: r.symbol_seq, timeMs: r.time_ms, price: r.price }).toString('hex'),
      );
    // The example of D27, spelled out: its bytes and hash.
    expect(rows[0]!.hash.toString('hex')).toBe(
      sha(Buffer.of(0), Buffer.from('v1\nEURUSD\n1\n1767225600000\n1.08520', 'utf8')).toString('hex'),
    );
    const state = await t.db.selectFrom('price_log_state').selectAll().executeTakeFirstOrThrow();
    expect(Number(state.size)).toBe(6);
    const symbols = await t.db.selectFrom('price_log_symbols').selectAll().orderBy('symbol').execute();
    expect(symbols.map((s) => [s.symbol, Number(s.last_seq)])).toEqual([
      ['BTCUSDT', 2],
      ['EURUSD', 3],
      ['GBPUSD', 1],
    ]);
  });

  it('signs heads over RFC 6962 input with the published key; roots are the MTH of the leaves', async () => {
    const key = await t.inject({ method: 'GET', url: '/api/price-log/key' });
    expect(key.statusCode).toBe(200);
    expect(key.headers['cache-control']).toMatch(/public/);
    const { public_key, key_id, pem, algorithm } = key.json();
    expect(algorithm).toBe('Ed25519');
    expect(key_id).toBe(sha(Buffer.from(public_key, 'hex')).toString('hex').slice(0, 16));
    const publicKey = createPublicKey(pem);
    expect(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex')).toBe(public_key);

    const signer = t.app.engine.priceLogSigner;
    const first = (await publishHead(t.db, signer, 1767225603000))!;
    expect(first.treeSize).toBe(6);
    const leafHashes = (await leaves(t)).map((r) => r.hash);
    expect(first.root.equals(mth(leafHashes))).toBe(true);
    expect(first.keyId).toBe(key_id);
    expect(verify(null, headSignatureInput(first), publicKey, first.signature)).toBe(true);
    // Nothing new: no head (a head is keyed by its size).
    expect(await publishHead(t.db, signer, 1767225613000)).toBeNull();
    const keys = await t.db.selectFrom('price_log_keys').selectAll().execute();
    expect(keys.map((k) => [k.key_id, Buffer.from(k.public_key).toString('hex')])).toEqual([[key_id, public_key]]);

    // 31 more leaves: the next head hashes only what is new (from the frontier) and still equals the full MTH.
    const more = Array.from({ length: 31 }, (_, i) => tick(i % 2 ? 'EURUSD' : 'USDJPY', 1767225603000 + i * 10, '1.5'));
    await storeTicks(t.db, { ticks: more, watermark: new Date(1767225604000), fence: null });
    const second = (await publishHead(t.db, signer, 1767225604000))!;
    expect(second.treeSize).toBe(37);
    expect(second.root.equals(mth((await leaves(t)).map((r) => r.hash)))).toBe(true);
    expect(verify(null, headSignatureInput(second), publicKey, second.signature)).toBe(true);
    const state = await t.db.selectFrom('price_log_state').selectAll().executeTakeFirstOrThrow();
    expect(Number(state.hashed_size)).toBe(37);
    // Every complete perfect subtree above the leaves is stored once: ⌊37/2⌋ + ⌊37/4⌋ + … = 34.
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from price_log_nodes where level >= 1`.execute(t.db);
    expect(rows[0]!.n).toBe(18 + 9 + 4 + 2 + 1);
  });

  it('serves the heads paged and cacheable, the latest, and consistency proofs that verify (RFC 9162)', async () => {
    await storeTicks(t.db, {
      ticks: [tick('EURUSD', 1767225605000, '1.2'), tick('GBPUSD', 1767225605000, '1.3')],
      watermark: new Date(1767225605000),
      fence: null,
    });
    await publishHead(t.db, t.app.engine.priceLogSigner, 1767225606000);

    const all = await t.inject({ method: 'GET', url: '/api/price-log/heads' });
    expect(all.statusCode).toBe(200);
    expect(all.json().heads.map((h: { tree_size: number }) => h.tree_size)).toEqual([6, 37, 39]);
    expect(all.json().next_from).toBeNull();
    const page = await t.inject({ method: 'GET', url: '/api/price-log/heads?limit=1' });
    expect(page.json()).toMatchObject({ heads: [{ tree_size: 6 }], next_from: 37 });
    expect(page.headers['cache-control']).toMatch(/^public/);
    const next = await t.inject({ method: 'GET', url: '/api/price-log/heads?from=37&to=38&limit=5' });
    expect(next.json()).toEqual({ heads: [expect.objectContaining({ tree_size: 37 })], next_from: null });
    const latest = await t.inject({ method: 'GET', url: '/api/price-log/heads/latest' });
    expect(latest.json()).toMatchObject({ tree_size: 39, time_ms: 1767225606000 });

    const publicKey = createPublicKey((await t.inject({ method: 'GET', url: '/api/price-log/key' })).json().pem);
    for (const [a, b] of [
      [6, 37],
      [6, 39],
      [37, 39],
      [39, 39],
    ] as const) {
      const res = await t.inject({ method: 'GET', url: `/api/price-log/consistency?first=${a}&second=${b}` });
      expect(res.statusCode, res.body).toBe(200);
      const { first, second, proof } = res.json();
      expect([first.tree_size, second.tree_size]).toEqual([a, b]);
      for (const h of [first, second]) {
        const input = headSignatureInput({
          timeMs: h.time_ms,
          treeSize: h.tree_size,
          root: Buffer.from(h.root, 'hex'),
        });
        expect(verify(null, input, publicKey, Buffer.from(h.signature, 'hex'))).toBe(true);
      }
      const hashes = (proof as string[]).map((p) => Buffer.from(p, 'hex'));
      const rootA = Buffer.from(first.root, 'hex');
      const rootB = Buffer.from(second.root, 'hex');
      expect(verifyConsistency(a, b, rootA, rootB, hashes), `${a} → ${b}`).toBe(true);
      // A rewritten history (another first root) does not verify.
      if (a !== b) {
        const forged = Buffer.from(rootA);
        forged[0]! ^= 1;
        expect(verifyConsistency(a, b, forged, rootB, hashes)).toBe(false);
      }
    }

    const missing = await t.inject({ method: 'GET', url: '/api/price-log/consistency?first=5&second=39' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toMatch(/5/);
    const reversed = await t.inject({ method: 'GET', url: '/api/price-log/consistency?first=39&second=6' });
    expect(reversed.statusCode).toBe(422);
    expect(reversed.json().detail).toBeTruthy();
    for (const url of [
      '/api/price-log/consistency?first=abc&second=6',
      '/api/price-log/consistency?first=6',
      '/api/price-log/heads?limit=0',
      '/api/price-log/heads?limit=501',
      '/api/price-log/heads?from=-1',
      '/api/price-log/heads?size=3',
    ]) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().detail, url).toBeTruthy();
    }
  });
});

describe.each(dbKinds())('settlement waits for a head on %s (D27)', (kind) => {
  let app: TradingTestApp;
  let live: LiveClient;

  beforeAll(async () => {
    app = await createTradingApp(kind, [
      { t: 0, symbol: 'EURUSD', price: '1.10000' },
      { t: 1000, symbol: 'EURUSD', price: '1.10020' },
      { t: 2000, symbol: 'EURUSD', price: '1.10030' },
    ]);
    await app.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.t.app.server.address() as { port: number };
    live = await connectLive(`ws://127.0.0.1:${port}/api/ws`);
  });
  afterAll(async () => {
    live.close();
    await app.close();
  });

  it('keeps a trade whose next tick no head covers active, settles it once one published by then does', async () => {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 100_000);
    app.clock.set(T0 + 1500);
    await app.pump();
    const placed = await placeTrade(app.t, client.token, {
      asset: 'EURUSD',
      direction: 'call',
      amount: 10,
      duration: 5,
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const id = placed.json().trade.id as number;
    app.clock.set(T0 + 2500);
    await app.pump(); // the 2 s tick, and a head over it
    // The trade recorded the log's size when it opened: its strike (1 s) is a leaf below it, the next tick is not.
    const trade = await app.t.db.selectFrom('trades').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const strike = await app.t.db
      .selectFrom('price_ticks')
      .select('log_index')
      .where('symbol', '=', 'EURUSD')
      .where('at', '=', new Date(T0 + 1000))
      .executeTakeFirstOrThrow();
    expect(Number(strike.log_index)).toBeLessThan(Number(trade.opened_log_size));
    expect(Number(trade.opened_log_size)).toBe(Number(strike.log_index) + 1);

    // Expires at 6.5 s. The next tick after it (7 s) is stored with the watermark past it, but no head covers it yet.
    await storeTicks(app.t.db, {
      ticks: [tick('EURUSD', T0 + 7000, '1.10050')],
      watermark: new Date(T0 + 7500),
      fence: null,
    });
    let report = await app.t.app.engine.settleDueTrades({ now: new Date(T0 + 8000) });
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    expect(report.waiting).toBe(1);
    // A head dated after the settlement's moment does not count: it was not published by then.
    const head = await publishLogHead(app.t, T0 + 9000);
    expect(head?.treeSize).toBe(Number(strike.log_index) + 3);
    report = await app.t.app.engine.settleDueTrades({ now: new Date(T0 + 8000) });
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    const still = await app.t.db.selectFrom('trades').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(still.status).toBe('active');
    // Published by then: it settles at the last tick at or before the expiry, the 2 s one (1.10030): the call won.
    report = await app.t.app.engine.settleDueTrades({ now: new Date(T0 + 9000) });
    expect(report.settled.find((s) => s.id === id)).toMatchObject({ status: 'won' });
    const row = await app.t.db.selectFrom('trades').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.close_price).toBe('1.10030');
  });

  it('the feed publishes heads at most once a second by its clock, on the bus and to every socket', async () => {
    const seen: number[] = [];
    const off = app.t.app.engine.bus.subscribe((e) => {
      if (e.type === 'price_log.head') seen.push(e.head.tree_size);
    });
    const sizeBefore = Number(
      (await app.t.db.selectFrom('price_log_state').select('size').executeTakeFirstOrThrow()).size,
    );
    const prices = app.t.app.engine.prices;
    app.clock.set(T0 + 20_000);
    await app.pump(); // the replay repeats EURUSD each second: ticks up to 20 s, a head
    app.clock.set(T0 + 20_600);
    prices.ingest({ symbol: 'EURUSD', price: '1.2', at: new Date(T0 + 20_500) });
    await app.pump(); // a new tick, but less than a second after the last head: no head
    app.clock.set(T0 + 21_600);
    await app.pump(); // the 21 s tick, 1.6 s after the last head: a head
    off();
    const size = Number((await app.t.db.selectFrom('price_log_state').select('size').executeTakeFirstOrThrow()).size);
    expect(seen.length).toBe(2);
    expect(seen.at(-1)).toBe(size);
    const frame = await live.next(
      (f) => f.type === 'price_log_head' && (f.head as { tree_size: number }).tree_size === size,
    );
    expect(wsServerMessageSchema.safeParse(frame).success).toBe(true);
    const sizes = (list: typeof live.frames) =>
      list.filter((f) => f.type === 'price_log_head').map((f) => (f.head as { tree_size: number }).tree_size);
    // Every head once, in order (the earlier test's heads came before these).
    expect(sizes(live.frames).filter((n) => n > sizeBefore)).toEqual(seen);
    // A clean stop leaves a head over everything stored.
    app.clock.set(T0 + 21_900);
    prices.ingest({ symbol: 'EURUSD', price: '1.3', at: new Date(T0 + 21_800) });
    await prices.stop();
    const latest = await app.t.inject({ method: 'GET', url: '/api/price-log/heads/latest' });
    expect(latest.json().tree_size).toBe(size + 1);
  });
});
