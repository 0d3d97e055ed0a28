import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostbackWorker, RETRY_WINDOW_MS } from '../src/modules/postbacks/jobs.js';
import { enqueuePostback } from '../src/modules/postbacks/outbox.js';
import { SecretsVault } from '../src/platform/crypto/vault.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { WebhookReceiver, type Received } from './webhook-receiver.js';

const KEY = randomBytes(32).toString('base64');
const SECOND = 1000;

type Row = {
  id: number;
  event: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  next_attempt_at: Date;
  delivered_at: Date | null;
};

/**
 * Affiliate postbacks (D13, D17) against a real HTTP receiver on 127.0.0.1 that verifies the signature: the events of
 * a lead's life (REGISTRATION, PURCHASE, ADD_TO_CART, STATUS), retries with backoff driven by the worker's tick(now)
 * and a moving clock, failure after 24 h, the address rules at delivery, and one delivery per event with two workers.
 * ALLOW_PRIVATE_WEBHOOKS=1 lets the webhook be http://127.0.0.1.
 */
describe.each(dbKinds())('postbacks on %s', (kind) => {
  let t: TestApp;
  let staff: string;
  const receiver = new WebhookReceiver();
  const vault = new SecretsVault({ key: KEY, dataDir: '/nonexistent' });

  const affiliate = async (name: string) =>
    Number(
      (
        await t.db
          .insertInto('affiliates')
          .values({ name, webhook_url: null, signing_secret_enc: null, deleted_at: null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const lead = async (affiliateId: number | null, status = 'new') =>
    Number(
      (
        await t.db
          .insertInto('clients')
          .values({
            name: 'Lead',
            email: `lead.${randomBytes(4).toString('hex')}@pb.test`,
            phone: '',
            country: 'Kazakhstan',
            campaign: 'Spring',
            source: 'api',
            notes: '',
            status,
            assigned_manager: null,
            affiliate_id: affiliateId,
            user_id: null,
            registration_date: null,
            last_comment_date: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  /** Saves the webhook through the API, as the Edit modal does; the partner keeps the secret shown once. */
  const connect = async (affiliateId: number, path: string): Promise<string> => {
    const res = await t.inject({
      method: 'PUT',
      url: `/api/affiliates/${affiliateId}`,
      token: staff,
      payload: { name: `Partner ${affiliateId}`, webhook_url: receiver.url(path) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const secret = res.json().signing_secret as string;
    receiver.trust(path, secret);
    return secret;
  };
  const events = async (clientId: number): Promise<Row[]> =>
    (
      await t.db
        .selectFrom('postback_events')
        .select([
          'id',
          'event',
          'status',
          'attempts',
          'last_status_code',
          'last_error',
          'created_at',
          'next_attempt_at',
          'delivered_at',
        ])
        .where('client_id', '=', clientId)
        .orderBy('id')
        .execute()
    ).map((r) => ({
      ...r,
      id: Number(r.id),
      created_at: new Date(r.created_at),
      next_attempt_at: new Date(r.next_attempt_at),
      delivered_at: r.delivered_at === null ? null : new Date(r.delivered_at),
    }));
  const last = async (clientId: number) => (await events(clientId)).at(-1)!;
  const tick = (at: Date) => t.app.postbackWorker.tick(at);
  /**
   * A moment surely past an event just written: the database stamps it in microseconds, a JS Date has only
   * milliseconds, so `new Date()` taken in the same millisecond can fall just before the event's next_attempt_at.
   */
  const justAfterNow = () => new Date(Date.now() + 1000);
  /**
   * A moment `ms` after the event's creation. The database keeps microseconds and a JS Date milliseconds, so the
   * base is the first whole millisecond after created_at (at created_at itself, truncated, the event is not due yet).
   */
  const after = (row: { created_at: Date }, ms: number) => new Date(row.created_at.getTime() + 1 + ms);
  const bodyOf = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

  beforeAll(async () => {
    t = await createTestApp(kind, { CARD_ENCRYPTION_KEY: KEY, ALLOW_PRIVATE_WEBHOOKS: '1' });
    staff = (await t.userWithToken('superadmin')).token;
    await receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  describe('one lead of a partner whose endpoint fails twice before accepting', () => {
    let partner: number;
    let client: number;
    let secret: string;
    const path = `/hooks/${kind}/alpha`;

    beforeAll(async () => {
      partner = await affiliate('Alpha');
      client = await lead(partner);
      secret = await connect(partner, path);
    });

    it('REGISTRATION: 500, 500, then 200 — delivered at the third attempt, each attempt signed, backoff respected', async () => {
      receiver.script(path, [500, 500]);
      const reg = await t.inject({
        method: 'POST',
        url: `/api/clients/${client}/register-user`,
        token: staff,
        payload: { name: 'Lead', email: `user.${randomBytes(3).toString('hex')}@pb.test`, password: 'secret-88' },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      const row = await last(client);
      expect(row).toMatchObject({ event: 'REGISTRATION', status: 'pending', attempts: 0 });

      expect(await tick(after(row, 0))).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect(await last(client)).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_status_code: 500,
        last_error: 'HTTP 500',
      });
      expect((await last(client)).next_attempt_at.getTime()).toBe(after(row, 10 * SECOND).getTime());
      // Not due yet: nothing is sent.
      expect(await tick(after(row, 5 * SECOND))).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(receiver.to(path)).toHaveLength(1);

      expect(await tick(after(row, 10 * SECOND))).toEqual({ delivered: 0, retried: 1, failed: 0 });
      expect((await last(client)).next_attempt_at.getTime()).toBe(after(row, 30 * SECOND).getTime()); // 10 s + 20 s
      expect(await tick(after(row, 29 * SECOND))).toEqual({ delivered: 0, retried: 0, failed: 0 });
      expect(await tick(after(row, 30 * SECOND))).toEqual({ delivered: 1, retried: 0, failed: 0 });

      const done = await last(client);
      expect(done).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null });
      expect(done.delivered_at!.getTime()).toBe(after(row, 30 * SECOND).getTime());
      const got = receiver.to(path);
      expect(got).toHaveLength(3);
      expect(got.map((r) => r.signatureValid)).toEqual([true, true, true]);
      expect(got.map((r) => r.headers['x-timestamp'])).toEqual(
        [0, 10, 30].map((s) => String(Math.floor(after(row, s * SECOND).getTime() / 1000))),
      );
      for (const r of got) {
        expect(r.method).toBe('POST');
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
        expect(r.body).toBe(got[0]!.body);
      }
      expect(Object.keys(bodyOf(got[0]!))).toEqual(['event_id', 'event', 'client_id', 'status', 'ftd', 'occurred_at']);
      expect(bodyOf(got[0]!)).toMatchObject({ event: 'REGISTRATION', client_id: client, status: 'new', ftd: false });
      expect(new Date(bodyOf(got[0]!).occurred_at as string).getTime()).not.toBeNaN();
      // The secret itself never travels.
      expect(JSON.stringify(got)).not.toContain(secret);
    });

    it('the FTD deposit sends a second signed event, PURCHASE with the amount; a later one ADD_TO_CART', async () => {
      const deposit = async (amount: number) => {
        const res = await t.inject({
          method: 'POST',
          url: '/api/deposits',
          token: staff,
          headers: { 'idempotency-key': randomBytes(8).toString('hex') },
          payload: { client_id: client, amount },
        });
        expect(res.statusCode, res.body).toBe(201);
      };
      await deposit(150.5);
      const purchase = await last(client);
      expect(purchase).toMatchObject({ event: 'PURCHASE', status: 'pending' });
      expect(await tick(after(purchase, 0))).toEqual({ delivered: 1, retried: 0, failed: 0 });
      const sent = receiver.to(path).at(-1)!;
      expect(sent.signatureValid).toBe(true);
      expect(Object.keys(bodyOf(sent))).toEqual([
        'event_id',
        'event',
        'client_id',
        'status',
        'ftd',
        'amount',
        'occurred_at',
      ]);
      expect(bodyOf(sent)).toMatchObject({
        event: 'PURCHASE',
        client_id: client,
        status: 'ftd',
        ftd: true,
        amount: 150.5,
      });

      await deposit(20);
      const more = await last(client);
      expect(more.event).toBe('ADD_TO_CART');
      await tick(after(more, 0));
      expect(bodyOf(receiver.to(path).at(-1)!)).toMatchObject({
        event: 'ADD_TO_CART',
        status: 'ftd',
        ftd: true,
        amount: 20,
      });
      expect(receiver.to(path).at(-1)!.signatureValid).toBe(true);
    });

    it('a status change sends STATUS, delivered by the running worker on its own; bulk status changes too', async () => {
      const seen = receiver.next(path);
      await t.app.postbackWorker.start();
      try {
        const res = await t.inject({
          method: 'PUT',
          url: `/api/clients/${client}`,
          token: staff,
          payload: { status: 'in_progress' },
        });
        expect(res.statusCode, res.body).toBe(200);
        const got = await seen;
        expect(got.signatureValid).toBe(true);
        expect(bodyOf(got)).toMatchObject({ event: 'STATUS', client_id: client, status: 'in_progress', ftd: true });
      } finally {
        await t.app.postbackWorker.stop();
      }
      await expect.poll(async () => (await last(client)).status).toBe('delivered');

      const before = (await events(client)).length;
      const bulk = await t.inject({
        method: 'POST',
        url: '/api/clients/bulk-assign-manager',
        token: staff,
        payload: { client_ids: [client], assigned_manager: null, status: 'potential' },
      });
      expect(bulk.statusCode, bulk.body).toBe(200);
      expect((await events(client)).map((e) => e.event).slice(before)).toEqual(['STATUS']);
      // The same status again changes nothing and sends nothing; an edit of another field neither.
      await t.inject({
        method: 'POST',
        url: '/api/clients/bulk-assign-manager',
        token: staff,
        payload: { client_ids: [client], assigned_manager: null, status: 'potential' },
      });
      await t.inject({ method: 'PUT', url: `/api/clients/${client}`, token: staff, payload: { notes: 'called' } });
      expect((await events(client)).length).toBe(before + 1);
    });

    it('the Stats modal lists the deliveries, newest first', async () => {
      const res = await t.inject({ method: 'GET', url: `/api/affiliates/${partner}/stats`, token: staff });
      expect(res.statusCode).toBe(200);
      const deliveries = res.json().deliveries as { event: string; status: string; attempts: number }[];
      expect(deliveries.map((d) => d.event)).toEqual(['STATUS', 'STATUS', 'ADD_TO_CART', 'PURCHASE', 'REGISTRATION']);
      expect(deliveries.at(-1)).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
    });

    it('after a rotation the partner verifies with the new secret only', async () => {
      const res = await t.inject({ method: 'POST', url: `/api/affiliates/${partner}/rotate-secret`, token: staff });
      const fresh = res.json().signing_secret as string;
      await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
      await tick(justAfterNow());
      expect(receiver.to(path).at(-1)!.signatureValid).toBe(false); // the partner still holds the old one
      receiver.trust(path, fresh);
      await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
      await tick(justAfterNow());
      expect(receiver.to(path).at(-1)!.signatureValid).toBe(true);
    });
  });

  it('a lead whose affiliate has no webhook, or with no affiliate, makes no event', async () => {
    const quiet = await affiliate('Quiet');
    for (const clientId of [await lead(quiet), await lead(null)]) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/clients/${clientId}`,
        token: staff,
        payload: { status: 'in_progress' },
      });
      expect(res.statusCode).toBe(200);
      expect(await events(clientId)).toEqual([]);
    }
  });

  it('every event carries a stable id, the same in a retry, signed in the body and repeated in X-Event-Id', async () => {
    const path = `/hooks/${kind}/dedupe`;
    const partner = await affiliate('Dedupe');
    const client = await lead(partner);
    await connect(partner, path);
    receiver.script(path, [503]);
    await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
    await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
    const second = await last(client);
    // Both are due; the endpoint refuses the first delivery it gets, then takes the retry and the other event.
    expect(await tick(after(second, 0))).toEqual({ delivered: 1, retried: 1, failed: 0 });
    expect(await tick(after(second, 10 * SECOND))).toEqual({ delivered: 1, retried: 0, failed: 0 });
    const got = receiver.to(path);
    expect(got).toHaveLength(3);
    expect(got.map((r) => r.signatureValid)).toEqual([true, true, true]);
    const ids = got.map((r) => bodyOf(r).event_id as string);
    for (const [i, r] of got.entries()) {
      expect(ids[i]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.headers['x-event-id']).toBe(ids[i]);
    }
    // The refused delivery and its retry: one event, one id; the other event: another id.
    const refused = got[0]!;
    const retry = got.find((r, i) => i > 0 && r.body === refused.body);
    expect(retry, 'the retry sends the same body').toBeDefined();
    expect(retry!.headers['x-event-id']).toBe(refused.headers['x-event-id']);
    expect(new Set(ids).size).toBe(2);
    // Stored with the event: the one retried (two attempts) is the one whose id the refused delivery carried.
    const rows = await t.db
      .selectFrom('postback_events')
      .select(['event_id', 'status', 'attempts'])
      .where('client_id', '=', client)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    expect(rows.find((r) => r.attempts === 2)?.event_id).toBe(refused.headers['x-event-id']);
    expect(rows.map((r) => r.event_id).sort()).toEqual([...new Set(ids)].sort());
  });

  it('an endpoint that keeps failing is retried with backoff for 24 h, then the event is failed', async () => {
    const path = `/hooks/${kind}/down`;
    const partner = await affiliate('Down');
    const client = await lead(partner);
    await connect(partner, path);
    receiver.script(path, Array(100).fill(503));
    await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
    const row = await last(client);
    // The window is counted from created_at as the worker reads it (whole milliseconds).
    const deadline = row.created_at.getTime() + RETRY_WINDOW_MS;
    let at = after(row, 0);
    const waits: number[] = [];
    while (at.getTime() < deadline) {
      await tick(at);
      const now = await last(client);
      expect(now.status).toBe('pending');
      waits.push(now.next_attempt_at.getTime() - at.getTime());
      at = now.next_attempt_at;
    }
    // 10 s, doubling, capped at an hour, the last one cut to end at the 24 h mark.
    expect(waits.slice(0, 5)).toEqual([10, 20, 40, 80, 160].map((s) => s * SECOND));
    expect(Math.max(...waits)).toBe(3600 * SECOND);
    expect(at.getTime()).toBe(deadline);
    const attemptsBefore = (await last(client)).attempts;
    expect(await tick(at)).toEqual({ delivered: 0, retried: 0, failed: 1 });
    const failed = await last(client);
    expect(failed).toMatchObject({ status: 'failed', last_status_code: 503, last_error: 'HTTP 503' });
    expect(failed.attempts).toBe(attemptsBefore + 1);
    expect(receiver.to(path)).toHaveLength(failed.attempts);
    // A failed event is never sent again.
    expect(await tick(after(row, 2 * RETRY_WINDOW_MS))).toEqual({ delivered: 0, retried: 0, failed: 0 });
  });

  it('the address rules are checked again at delivery: a webhook now pointing at a private address is not called', async () => {
    const path = `/hooks/${kind}/private`;
    const partner = await affiliate('Private');
    const client = await lead(partner);
    await connect(partner, path);
    // As if saved while the rules were lifted: https to this machine.
    await t.db
      .updateTable('affiliates')
      .set({ webhook_url: `https://127.0.0.1:${receiver.port}${path}` })
      .where('id', '=', partner)
      .execute();
    await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
    const strict = new PostbackWorker({ db: t.db, vault, rules: { allowPrivate: false } });
    const row = await last(client);
    expect(await strict.tick(after(row, 0))).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(await last(client)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: 'refused: 127.0.0.1 resolves to a non-public address 127.0.0.1',
    });
    expect(receiver.to(path)).toEqual([]);
  });

  it('two workers at once deliver each event exactly once (SKIP LOCKED)', async () => {
    const path = `/hooks/${kind}/busy`;
    const partner = await affiliate('Busy');
    const client = await lead(partner);
    await connect(partner, path);
    for (let i = 0; i < 6; i++) await enqueuePostback(t.db, { clientId: client, event: 'STATUS' });
    const other = new PostbackWorker({ db: t.db, vault, rules: { allowPrivate: true } });
    const now = new Date(Date.now() + SECOND);
    const [a, b] = await Promise.all([tick(now), other.tick(now)]);
    expect(a.delivered + b.delivered).toBe(6);
    expect(receiver.to(path)).toHaveLength(6);
    expect((await events(client)).every((e) => e.status === 'delivered' && e.attempts === 1)).toBe(true);
  });
});
