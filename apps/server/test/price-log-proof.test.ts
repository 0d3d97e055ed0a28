import { createPublicKey, sign } from 'node:crypto';
import { tradeProofSchema, TRADE_PROOFS_MAX, type TradeProof, type TradeProofsBundle } from '@brokerage/shared';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headSignatureInput } from '../src/modules/price-log/hash.js';
import { describePublicKey, parseEd25519PrivateKey } from '../src/modules/price-log/keys.js';
import { verifyFile, verifyProof, type Verdict } from '../../../packages/verifier/src/index.js';
import { dbKinds } from './helpers.js';
import { PRICE, buildScenario, clientProof, newEd25519Pem, type Scenario } from './price-log-scenario.js';
import { T0 } from './trading-helpers.js';

/**
 * Issue 30 §2 and "what it must show": a proof for every trade, checked by the independent verifier
 * (packages/verifier) — won, lost, tie, void and the gap rule — on the embedded database and PostgreSQL; a tick
 * changed in SQL after the settlement and a head signed by another key make the proof fail; the client and staff
 * out of scope cannot read another's proof; the period's file.
 */
const stepsOf = (v: Verdict) => Object.fromEntries(v.steps.map((s) => [s.id, s.ok]));

describe.each(dbKinds())('trade proofs on %s', (kind) => {
  let s: Scenario;
  /** The server's public key, as the user would take it from /api/price-log/key. */
  let serverKey: string;

  beforeAll(async () => {
    s = await buildScenario(kind);
    serverKey = describePublicKey(createPublicKey(parseEd25519PrivateKey(s.keyPem, 'test'))).raw.toString('hex');
  }, 120_000);
  afterAll(() => s?.close());

  it.each(['won', 'lost', 'tie', 'void', 'noPrice'] as const)(
    'gives a %s trade a proof that the verifier accepts under the server key',
    async (name) => {
      const id = s.trades[name];
      const doc = await clientProof(s, id);
      expect(tradeProofSchema.safeParse(doc).success).toBe(true);
      const verdict = await verifyProof(doc, { lang: 'en', publicKey: serverKey });
      expect(verdict.ok, JSON.stringify(verdict.steps, null, 1)).toBe(true);
      expect(verdict.trade_id).toBe(id);
      expect(doc.public_key).toBe(serverKey);
      const stored = await s.t.db
        .selectFrom('trades')
        .select(['strike_price', 'close_price', 'profit_cents', 'opened_log_size'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(doc.trade.opened_log_size).toBe(Number(stored.opened_log_size));
      expect(doc.trade.profit_cents).toBe(Number(stored.profit_cents));
      expect(doc.head.time_ms).toBeLessThanOrEqual(Date.parse(doc.trade.settled_at));
      expect(doc.rule).toMatchObject({ version: 1, gap_seconds: 10 });
      expect(doc.rule.text.en).toContain(doc.trade.direction === 'call' ? 'A call wins' : 'A put wins');
      expect(doc.rule.text.ru).toMatch(/^Сделка/);
      // The head is the smallest published one covering the ticks: the one before it misses at least one.
      const indexes = Object.values(doc.ticks).flatMap((tick) => (tick ? [tick.index] : []));
      const smaller = await s.t.db
        .selectFrom('price_log_heads')
        .select('tree_size')
        .where('tree_size', '<', String(doc.head.tree_size))
        .orderBy('tree_size', 'desc')
        .executeTakeFirst();
      if (smaller) expect(Number(smaller.tree_size)).toBeLessThanOrEqual(Math.max(...indexes));

      const { strike, strike_next: strikeNext, close, close_next: closeNext } = doc.ticks;
      expect(strike.price).toBe(doc.trade.strike_price);
      expect(strikeNext!.seq).toBe(strike.seq + 1);
      if (name === 'void') {
        expect(doc.trade).toMatchObject({ status: 'void', profit_cents: 0, credit_cents: 1500, close_price: null });
        expect([close, closeNext]).toEqual([null, null]);
        expect(stepsOf(verdict).result).toBeNull();
        return;
      }
      expect(closeNext!.seq).toBe(close!.seq + 1);
      const expiry = Date.parse(doc.trade.expires_at);
      expect(close!.time_ms).toBeLessThanOrEqual(expiry);
      expect(closeNext!.time_ms).toBeGreaterThan(expiry);
      const want = {
        won: { status: 'won', close_price: PRICE(15), profit_cents: 2125, credit_cents: 4625 },
        lost: { status: 'lost', close_price: PRICE(15), profit_cents: -1000, credit_cents: 0 },
        tie: { status: 'tie', close_price: PRICE(25), profit_cents: 0, credit_cents: 2000 },
        noPrice: { status: 'no_price', close_price: null, close_at: null, profit_cents: 0, credit_cents: 2000 },
      }[name];
      expect(doc.trade).toMatchObject(want);
      if (name === 'noPrice') {
        // The gap rule: the last tick at or before the expiry is 10.5 s older, the next one 25.5 s after it.
        expect(close).toMatchObject({ time_ms: T0 + 54_000, price: PRICE(54) });
        expect(closeNext).toMatchObject({ time_ms: T0 + 90_000, price: PRICE(90) });
      } else expect(close!.price).toBe(doc.trade.close_price);
    },
  );

  it('refuses an active trade and one that predates the price log with 409 and a detail', async () => {
    const active = await s.t.inject({
      method: 'GET',
      url: `/api/trading/trades/${s.trades.active}/proof`,
      token: s.alice.token,
      headers: { 'accept-language': 'en' },
    });
    expect(active.statusCode).toBe(409);
    expect(active.json()).toMatchObject({ code: 'trade_proof_active', detail: expect.stringContaining('still open') });

    const { opened_log_size: size } = await s.t.db
      .selectFrom('trades')
      .select('opened_log_size')
      .where('id', '=', s.trades.lost)
      .executeTakeFirstOrThrow();
    await sql`update trades set opened_log_size = null where id = ${s.trades.lost}`.execute(s.t.db);
    try {
      const old = await s.t.inject({
        method: 'GET',
        url: `/api/trading/trades/${s.trades.lost}/proof`,
        token: s.alice.token,
        headers: { 'accept-language': 'en' },
      });
      expect(old.statusCode).toBe(409);
      expect(old.json()).toMatchObject({
        code: 'trade_proof_predates_log',
        detail: expect.stringContaining('predates the price log'),
      });
    } finally {
      await sql`update trades set opened_log_size = ${size} where id = ${s.trades.lost}`.execute(s.t.db);
    }
  });

  it("answers 404 for another client's proof and for staff out of scope; staff in scope get the same document", async () => {
    const id = s.trades.won;
    const bob = await s.t.inject({ method: 'GET', url: `/api/trading/trades/${id}/proof`, token: s.bob.token });
    expect(bob.statusCode).toBe(404);
    expect(bob.json().code).toBe('trade_not_found');

    const staffUrl = `/api/trading/admin/accounts/${s.alice.accountId}/trades/${id}/proof`;
    const manager = await s.t.userWithToken('sales_manager');
    const out = await s.t.inject({ method: 'GET', url: staffUrl, token: manager.token });
    expect(out.statusCode).toBe(404);
    // A client cannot call the staff route at all.
    expect((await s.t.inject({ method: 'GET', url: staffUrl, token: s.alice.token })).statusCode).toBe(403);
    // Another account's path does not reach the trade either.
    const wrongAccount = await s.t.inject({
      method: 'GET',
      url: `/api/trading/admin/accounts/${s.bob.accountId}/trades/${id}/proof`,
      token: s.boss,
    });
    expect(wrongAccount.statusCode).toBe(404);

    const staff = await s.t.inject({ method: 'GET', url: staffUrl, token: s.boss });
    expect(staff.statusCode, staff.body).toBe(200);
    expect(staff.headers['content-disposition']).toBe(`attachment; filename="trade-${id}-proof.json"`);
    expect(staff.json()).toEqual(await clientProof(s, id));
    // No HEAD on a download.
    expect((await s.t.inject({ method: 'HEAD', url: staffUrl, token: s.boss })).statusCode).toBe(404);
  });

  it("fails the proof of a trade whose tick was changed in SQL after the settlement (its close tick's leaf no longer matches)", async () => {
    const before = await clientProof(s, s.trades.won);
    const index = before.ticks.close!.index;
    await sql`update price_ticks set price = price + 0.00001 where log_index = ${index}`.execute(s.t.db);
    try {
      const after = await clientProof(s, s.trades.won);
      expect(after.ticks.close!.price).not.toBe(before.ticks.close!.price);
      const verdict = await verifyProof(after, { lang: 'en', publicKey: serverKey });
      expect(verdict.ok).toBe(false);
      expect(stepsOf(verdict).inclusion).toBe(false);
      // The trade's stored close no longer equals the tick either.
      expect(stepsOf(verdict).close).toBe(false);
      // A trade that did not use the tick still verifies.
      expect((await verifyProof(await clientProof(s, s.trades.tie), { publicKey: serverKey })).ok).toBe(true);
    } finally {
      await sql`update price_ticks set price = ${before.ticks.close!.price}::numeric where log_index = ${index}`.execute(
        s.t.db,
      );
    }
    expect((await verifyProof(await clientProof(s, s.trades.won), { publicKey: serverKey })).ok).toBe(true);
  });

  it('fails a head signed with another key: a forged signature, and a forged key against the key the user trusts', async () => {
    const doc = await clientProof(s, s.trades.tie);
    const forger = parseEd25519PrivateKey(newEd25519Pem(), 'forger');
    const forgerKey = describePublicKey(createPublicKey(forger));
    const input = headSignatureInput({
      timeMs: doc.head.time_ms,
      treeSize: doc.head.tree_size,
      root: Buffer.from(doc.head.root, 'hex'),
    });
    const forged = sign(null, input, forger);
    const original = await s.t.db
      .selectFrom('price_log_heads')
      .select(['signature', 'key_id'])
      .where('tree_size', '=', String(doc.head.tree_size))
      .executeTakeFirstOrThrow();
    try {
      await sql`update price_log_heads set signature = ${forged} where tree_size = ${doc.head.tree_size}`.execute(
        s.t.db,
      );
      const bad = await verifyProof(await clientProof(s, s.trades.tie), { lang: 'en' });
      expect(bad.ok).toBe(false);
      expect(stepsOf(bad).signature).toBe(false);

      // The forger also stores their key and names it on the head: the document is consistent in itself, and only
      // the key the user trusts (the published one) catches it.
      await sql`insert into price_log_keys (key_id, public_key) values (${forgerKey.keyId}, ${forgerKey.raw})`.execute(
        s.t.db,
      );
      await sql`update price_log_heads set key_id = ${forgerKey.keyId} where tree_size = ${doc.head.tree_size}`.execute(
        s.t.db,
      );
      const selfConsistent = await clientProof(s, s.trades.tie);
      expect(selfConsistent.public_key).toBe(forgerKey.raw.toString('hex'));
      expect((await verifyProof(selfConsistent)).ok).toBe(true);
      const trusted = await verifyProof(selfConsistent, { lang: 'en', publicKey: serverKey });
      expect(trusted.ok).toBe(false);
      expect(stepsOf(trusted).signature).toBe(false);
    } finally {
      await sql`update price_log_heads set signature = ${original.signature}, key_id = ${original.key_id}
                where tree_size = ${doc.head.tree_size}`.execute(s.t.db);
      await sql`delete from price_log_keys where key_id = ${forgerKey.keyId}`.execute(s.t.db);
    }
    expect((await verifyProof(await clientProof(s, s.trades.tie), { publicKey: serverKey })).ok).toBe(true);
  });

  it("downloads the period's proofs as one file the verifier accepts; refuses bad dates and a period too long", async () => {
    const from = new Date(T0).toISOString();
    const to = new Date(T0 + 3_600_000).toISOString();
    const res = await s.t.inject({
      method: 'GET',
      url: `/api/trading/proofs?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      token: s.alice.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="proofs-${from.slice(0, 10)}-${to.slice(0, 10)}.json"`,
    );
    const bundle = res.json<TradeProofsBundle>();
    expect(bundle).toMatchObject({ format: 'brokerage-trade-proofs', version: 1, from, to });
    const ids = bundle.proofs.map((p: TradeProof) => p.trade.id);
    const { won, lost, tie, void: voided, noPrice } = s.trades;
    expect(ids).toEqual([won, lost, tie, voided, noPrice]);
    const verdicts = await verifyFile(bundle, { publicKey: serverKey });
    expect(verdicts.map((v) => [v.trade_id, v.ok])).toEqual(ids.map((id) => [id, true]));
    // The OpenAPI document describes both answers exactly (strict Ajv, as openapi-answers.test.ts checks the others).
    const doc = (await s.t.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    ajv.addVocabulary(['example', 'x-response-description']);
    const schemaOf = (route: string) => doc.paths[route].get.responses['200'].content['application/json'].schema;
    const bundleValid = ajv.compile(schemaOf('/api/trading/proofs'));
    expect(bundleValid(bundle), JSON.stringify(bundleValid.errors)).toBe(true);
    const proofValid = ajv.compile(schemaOf('/api/trading/trades/{id}/proof'));
    expect(proofValid(bundle.proofs[3]), JSON.stringify(proofValid.errors)).toBe(true);
    // Bob has none in the period.
    const bobs = await s.t.inject({
      method: 'GET',
      url: `/api/trading/proofs?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      token: s.bob.token,
    });
    expect(bobs.json().proofs).toEqual([]);

    const get = (query: string) =>
      s.t.inject({
        method: 'GET',
        url: `/api/trading/proofs?${query}`,
        token: s.alice.token,
        headers: { 'accept-language': 'en' },
      });
    const reversed = await get(`from=${encodeURIComponent(to)}&to=${encodeURIComponent(from)}`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toMatchObject({ code: 'bad_date_range', detail: expect.any(String) });
    const garbage = await get('from=yesterday&to=today');
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().detail).toEqual(expect.any(String));
    expect((await get(`from=${encodeURIComponent(from)}`)).statusCode).toBe(400);

    // More than a file takes: copies of the won trade settled in another year.
    await sql`
      insert into trades (account_id, asset, direction, amount_cents, duration_seconds, payout_percentage, strike_price,
                          strike_at, expires_at, status, close_price, close_at, profit_cents, settled_at, created_at,
                          opened_log_size)
      select account_id, asset, direction, amount_cents, duration_seconds, payout_percentage, strike_price, strike_at,
             expires_at, status, close_price, close_at, profit_cents, '2027-01-01T00:00:00Z'::timestamptz, created_at,
             opened_log_size
      from trades, generate_series(1, ${TRADE_PROOFS_MAX + 1})
      where id = ${won}`.execute(s.t.db);
    try {
      const long = await get('from=2027-01-01T00:00:00Z&to=2027-01-02T00:00:00Z');
      expect(long.statusCode).toBe(422);
      expect(long.json()).toMatchObject({ code: 'trade_proofs_too_many' });
      expect(long.json().detail).toContain(String(TRADE_PROOFS_MAX + 1));
    } finally {
      await sql`delete from trades where settled_at = '2027-01-01T00:00:00Z'::timestamptz`.execute(s.t.db);
    }
  });
  it('keeps every proof and the log provable after raw ticks are pruned (TICK_RETENTION_HOURS)', async () => {
    const count = async () =>
      Number(
        (
          await s.t.db
            .selectFrom('price_ticks')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // The replay's ticks up to 200 s: those from 131 s on lie outside every trade's audit windows.
    s.clock.set(T0 + 200_000);
    await s.t.app.engine.prices.pump();
    const before = await count();
    // Every tick is older than this: pruning keeps only what the trades' audits and the active trade need.
    const pruned = await s.t.app.engine.prices.pruneTicks(new Date(T0 + 1_000_000));
    expect(pruned).toBeGreaterThan(0);
    expect(await count()).toBe(before - pruned);
    for (const id of [s.trades.won, s.trades.lost, s.trades.tie, s.trades.void, s.trades.noPrice]) {
      const verdict = await verifyProof(await clientProof(s, id), { lang: 'en', publicKey: serverKey });
      expect(verdict.ok, JSON.stringify(verdict.steps.filter((step) => step.ok === false))).toBe(true);
    }
    // The pruned leaves stay represented by their stored subtrees: the first head still proves the log grew into the
    // head of a proof.
    const doc = await clientProof(s, s.trades.won);
    const first = await s.t.db
      .selectFrom('price_log_heads')
      .select('tree_size')
      .orderBy('tree_size')
      .executeTakeFirstOrThrow();
    expect(Number(first.tree_size)).toBeLessThan(doc.head.tree_size);
    const consistency = await s.t.inject({
      method: 'GET',
      url: `/api/price-log/consistency?first=${first.tree_size}&second=${doc.head.tree_size}`,
    });
    expect(consistency.statusCode, consistency.body).toBe(200);
    const proved = await verifyProof(doc, {
      lang: 'en',
      publicKey: serverKey,
      savedHead: consistency.json().first,
      consistency: consistency.json(),
    });
    expect(proved.steps.find((step) => step.id === 'consistency')?.ok).toBe(true);
  });
});
