import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { WebhookReceiver } from './webhook-receiver.js';

const KEY = 'sk_live_partner_key_0123456789';

/** A port on 127.0.0.1 with nothing listening (taken, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * POST /api/integration/test-connection (back-office.md §2.11 'API integration'): the server GETs the partner's URL with
 * the Bearer key and reports status and time; nothing stored, the key never in the audit log; the webhook address
 * rules of D17 apply (lifted in the first app by ALLOW_PRIVATE_WEBHOOKS=1 to reach a receiver on 127.0.0.1).
 */
describe.each(dbKinds())('API integration test-connection on %s', (kind) => {
  let t: TestApp;
  let strict: TestApp;
  let admin: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    t = await createTestApp(kind, { ALLOW_PRIVATE_WEBHOOKS: '1' });
    strict = await createTestApp(kind);
    admin = (await t.userWithToken('admin')).token;
    await receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await strict.close();
    await receiver.stop();
  });

  const test = (payload: object, app = t, token = admin) =>
    app.inject({
      method: 'POST',
      url: '/api/integration/test-connection',
      token,
      payload,
      headers: { 'accept-language': 'en' },
    });

  it('GETs the URL with the Bearer key and reports the status and the time', async () => {
    const res = await test({ api_url: receiver.url('/v1/leads?limit=1'), api_key: KEY });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, status: 200, detail: 'Connected: HTTP 200' });
    expect(Number.isInteger(body.time_ms) && body.time_ms >= 0).toBe(true);
    const got = receiver.to('/v1/leads').at(-1)!;
    expect(got.method).toBe('GET');
    expect(got.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('a refusal of the partner is reported, not raised; no answer at all too', async () => {
    receiver.script('/v1/denied', [401]);
    const denied = (await test({ api_url: receiver.url('/v1/denied'), api_key: 'wrong' })).json();
    expect(denied).toMatchObject({ ok: false, status: 401, detail: 'The server answered HTTP 401' });

    const port = await closedPort();
    const res = await test({ api_url: `http://127.0.0.1:${port}/v1`, api_key: KEY });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, status: null });
    expect(res.json().detail).toMatch(/^Connection refused/);
  });

  it('bad input is a 400 naming the field; only integration.manage may call it', async () => {
    const missing = await test({ api_url: receiver.url('/v1') });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/api_key/);
    const bad = await test({ api_url: 'not a url', api_key: KEY });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toBe('api_url: not a valid URL');
    const lead = (await t.userWithToken('team_lead_retention')).token;
    expect((await test({ api_url: receiver.url('/v1'), api_key: KEY }, t, lead)).statusCode).toBe(403);
  });

  it('the webhook address rules apply: https only, no private or loopback address', async () => {
    const token = (await strict.userWithToken('superadmin')).token;
    const plain = await test({ api_url: 'http://93.184.215.14/v1', api_key: KEY }, strict, token);
    expect(plain.statusCode).toBe(400);
    expect(plain.json().detail).toBe('api_url: the address must start with https://');
    const local = await test({ api_url: `https://127.0.0.1:${receiver.port}/v1`, api_key: KEY }, strict, token);
    expect(local.statusCode).toBe(400);
    expect(local.json().detail).toMatch(/^api_url: 127\.0\.0\.1 resolves to a private, loopback or link-local address/);
    // Refused before any connection: the receiver never saw these calls.
    expect(receiver.to('/v1')).toEqual([]);
  });

  it('is audited without the key or the URL’s query; nothing else is stored', async () => {
    const rows = await t.auditRows('integration.test_connection');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(rows)).not.toContain(KEY);
    expect(JSON.stringify(rows)).not.toContain('limit=1');
    expect(rows[0]!.after).toEqual({ api_url: receiver.url('/v1/leads'), ok: true, status: 200 });
  });
});
