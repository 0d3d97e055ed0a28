import { createHash, randomBytes } from 'node:crypto';
import type { AffiliateToken } from '@brokerage/shared';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** Every log line the apps of this file write: the server's own logger settings, into buildApp's `logStream`. */
const logLines: string[] = [];
const logStream = { write: (line: string) => void logLines.push(line) };

/** The rate limit of this suite's app: small enough to pass in a test, large enough for every other token here. */
const RATE = 30;

describe.each(dbKinds())('the external API and affiliate tokens on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  /** Every full token this suite was given, to prove none of them is stored or logged anywhere. */
  const issued: string[] = [];

  beforeAll(async () => {
    logLines.length = 0;
    // A reverse proxy on this machine: its X-Forwarded-For is believed, anyone else's is not.
    t = await createTestApp(
      kind,
      {
        LOG_LEVEL: 'info',
        EXTERNAL_RATE_PER_MINUTE: String(RATE),
        TRUST_PROXY: '127.0.0.1',
      },
      { logStream },
    );
    admin = (await t.userWithToken('admin')).token;
  });
  afterAll(() => t.close());

  async function createToken(name: string, as = admin): Promise<AffiliateToken> {
    const res = await t.inject({
      method: 'POST',
      url: `/api/affiliate-tokens?name=${encodeURIComponent(name)}`,
      token: as,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json() as AffiliateToken;
    issued.push(created.token);
    return created;
  }

  /** A partner's call: the token in the query, or as a Bearer header with `bearer`. */
  function ext(
    method: 'GET' | 'POST',
    path: string,
    token: string | null,
    opts: { payload?: unknown; bearer?: boolean; headers?: Record<string, string>; remoteAddress?: string } = {},
  ): Promise<LightMyRequestResponse> {
    const sep = path.includes('?') ? '&' : '?';
    const url = token && !opts.bearer ? `${path}${sep}token=${encodeURIComponent(token)}` : path;
    const headers = { ...(opts.headers ?? {}), ...(token && opts.bearer ? { authorization: `Bearer ${token}` } : {}) };
    const inject: InjectOptions = { method, url, headers };
    if (opts.payload !== undefined) inject.payload = opts.payload as InjectOptions['payload'];
    if (opts.remoteAddress) inject.remoteAddress = opts.remoteAddress;
    return t.app.inject(inject);
  }

  const lead = (n: string, extra: Record<string, unknown> = {}) => ({
    name: `Lead ${n}`,
    email: `lead.${n}@example.com`,
    phone: `+7 701 ${n.padStart(3, '0').slice(-3)} 45 67`,
    ...extra,
  });

  const clientRow = (id: number) =>
    t.db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  const expectDenied = (res: LightMyRequestResponse, label: string) => {
    expect(res.statusCode, `${label}: ${res.body}`).toBe(401);
    expect(res.json().detail, label).toBe('Access denied');
  };

  it('creates a token once: 43 characters of base64url, its affiliate, and only its hash and ends stored', async () => {
    const created = await createToken('Partner A');
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'Partner A', ip_whitelist: [], last_used: null, is_active: true });

    const row = await t.db
      .selectFrom('affiliate_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect([row.token_prefix, row.token_suffix]).toEqual([created.token.slice(0, 8), created.token.slice(-4)]);
    const affiliate = await t.db
      .selectFrom('affiliates')
      .selectAll()
      .where('id', '=', row.affiliate_id)
      .executeTakeFirstOrThrow();
    expect(affiliate).toMatchObject({ name: 'Partner A', status: 'active', deleted_at: null });
    // Nowhere in the database is the token itself.
    const dump = await sql<{ row: string }>`select t::text as row from affiliate_tokens t`.execute(t.db);
    expect(dump.rows.some((r) => r.row.includes(created.token))).toBe(false);

    const list = await t.inject({ method: 'GET', url: '/api/affiliate-tokens', token: admin });
    expect(list.statusCode).toBe(200);
    const listed = (list.json() as AffiliateToken[]).find((x) => x.id === created.id)!;
    expect(listed.token).toBe(`${created.token.slice(0, 8)}...${created.token.slice(-4)}`);
    expect(list.body).not.toContain(created.token);
  });

  it('posts a lead (created), posts it again written differently (duplicate, same client_id) and lists it', async () => {
    const { token } = await createToken('Partner Posting');
    const first = await ext('POST', '/api/external/clients', token, {
      payload: {
        name: 'Aigerim Nurlanovna',
        email: 'Aigerim.N@Example.com',
        phone: '+7 (701) 123-45-67',
        country: 'Kazakhstan',
        campaign_name: 'Spring promo',
      },
    });
    expect(first.statusCode, first.body).toBe(200);
    const created = first.json();
    expect(created).toMatchObject({
      status: 'created',
      client: {
        name: 'Aigerim Nurlanovna',
        email: 'aigerim.n@example.com',
        phone: '+77011234567',
        status: 'new',
        ftd: false,
      },
    });
    expect(created.client_id).toBe(created.client.client_id);

    const again = await ext('POST', '/api/external/clients', token, {
      bearer: true,
      payload: { name: 'Aigerim N.', phone: '87011234567' },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ status: 'duplicate', client_id: created.client_id, client: created.client });

    const list = await ext('GET', '/api/external/clients?limit=10&offset=0', token);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual({
      affiliate: 'Partner Posting',
      total_clients: 1,
      clients: [{ ...created.client, balance: 0, trading_balance: 0 }],
    });

    const row = await clientRow(created.client_id);
    const tokenRow = await t.db
      .selectFrom('affiliate_tokens')
      .select(['affiliate_id', 'last_used'])
      .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      source: 'affiliate',
      campaign: 'Spring promo',
      country: 'Kazakhstan',
      status: 'new',
      assigned_manager: null,
      phone: '+7 (701) 123-45-67',
      phone_e164: '+77011234567',
    });
    expect(Number(row.affiliate_id)).toBe(Number(tokenRow.affiliate_id));
    expect(tokenRow.last_used).not.toBeNull();

    // The client card names the affiliate.
    const card = await t.inject({ method: 'GET', url: `/api/clients/${created.client_id}`, token: admin });
    expect(card.statusCode, card.body).toBe(200);
    expect(card.json()).toMatchObject({
      affiliate_id: Number(tokenRow.affiliate_id),
      affiliate_name: 'Partner Posting',
      source: 'affiliate',
    });

    // Issue 27 item 16: `balance` is the CRM's figure (the deposits total the clients list shows as the balance), even
    // before the lead has a trading account; `trading_balance` is what that account holds.
    const recorded = await t.inject({
      method: 'POST',
      url: '/api/deposits',
      token: admin,
      payload: { client_id: created.client_id, amount: 100 },
    });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const crm = await t.inject({ method: 'GET', url: `/api/clients?search=${created.client_id}`, token: admin });
    const crmRow = (crm.json().items as { id: number; total_deposits: number; affiliate_name: string | null }[]).find(
      (c) => c.id === created.client_id,
    );
    expect(crmRow?.total_deposits).toBe(100);
    // Issue 27 item 12: the list names the affiliate of a token-posted lead (its campaign has no ' - ' suffix).
    expect(crmRow?.affiliate_name).toBe('Partner Posting');
    const afterDeposit = await ext('GET', '/api/external/clients?limit=10&offset=0', token);
    expect(afterDeposit.json().clients[0]).toMatchObject({ ftd: true, balance: 100, trading_balance: 0 });
  });

  it('answers a duplicate of another affiliate’s lead with client_id and client null', async () => {
    const a = await createToken('Partner Owner');
    const b = await createToken('Partner Other');
    const mine = (await ext('POST', '/api/external/clients', a.token, { payload: lead('300') })).json();
    expect(mine.status).toBe('created');
    for (const payload of [
      { name: 'Copy', email: 'LEAD.300@example.com' },
      { name: 'Copy', phone: '8 701 300 45 67' },
    ]) {
      const res = await ext('POST', '/api/external/clients', b.token, { payload });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'duplicate', client_id: null, client: null });
    }
    // A lead the brokerage entered itself is someone else's too.
    await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: admin,
      payload: { name: 'Walk-in', email: 'walk.in@example.com', phone: '+77019998877', country: 'KZ' },
    });
    const walkIn = await ext('POST', '/api/external/clients', b.token, {
      payload: { name: 'W', email: 'walk.in@example.com' },
    });
    expect(walkIn.json()).toEqual({ status: 'duplicate', client_id: null, client: null });
    const listB = (await ext('GET', '/api/external/clients', b.token)).json();
    expect(listB.total_clients).toBe(0);
  });

  it('stores the lead-ads and search-ads fields on the lead and shows them on the client card', async () => {
    const { token } = await createToken('Ads Provider');
    const leadAds = await ext('POST', '/api/external/lead-ads', token, {
      payload: {
        name: 'Daniyar Sarsenov',
        email: 'daniyar@example.com',
        phone: '87011234568',
        campaign_name: 'Autumn leads',
        ad_name: 'Carousel 3',
        utm_source: 'lead_ads',
        utm_campaign: 'autumn-2026',
      },
    });
    expect(leadAds.statusCode, leadAds.body).toBe(200);
    expect(leadAds.json()).toMatchObject({ status: 'created', client: { phone: '+77011234568' } });
    expect(await clientRow(leadAds.json().client_id)).toMatchObject({
      source: 'lead_ads',
      campaign: 'Autumn leads',
      ad_name: 'Carousel 3',
      utm_source: 'lead_ads',
      utm_campaign: 'autumn-2026',
      keyword: null,
    });

    // Without campaign_name, utm_campaign names the campaign.
    const byUtm = await ext('POST', '/api/external/lead-ads', token, {
      payload: { name: 'Utm Only', email: 'utm.only@example.com', utm_campaign: 'winter-2026' },
    });
    expect((await clientRow(byUtm.json().client_id)).campaign).toBe('winter-2026');

    const searchAds = await ext('POST', '/api/external/search-ads', token, {
      payload: {
        name: 'Olga Ivanova',
        phone: '+7 (702) 555-01-23',
        email: '',
        keyword: 'invest online',
        region: 'Almaty',
        device: 'mobile',
        utm_source: 'search_ads',
        utm_medium: 'cpc',
      },
    });
    expect(searchAds.statusCode, searchAds.body).toBe(200);
    const id = searchAds.json().client_id;
    expect(searchAds.json().client).toMatchObject({ email: null, phone: '+77025550123' });
    expect(await clientRow(id)).toMatchObject({
      source: 'search_ads',
      email: '',
      keyword: 'invest online',
      region: 'Almaty',
      device: 'mobile',
      utm_source: 'search_ads',
      utm_medium: 'cpc',
    });
    const card = await t.inject({ method: 'GET', url: `/api/clients/${id}`, token: admin });
    expect(card.json()).toMatchObject({
      affiliate_name: 'Ads Provider',
      keyword: 'invest online',
      region: 'Almaty',
      device: 'mobile',
      utm_source: 'search_ads',
      utm_medium: 'cpc',
      ad_name: null,
    });
  });

  it('answers a bad body with 400 naming the field, in English whatever Accept-Language says', async () => {
    const { token } = await createToken('Partner Careless');
    const ru = { 'accept-language': 'ru' };
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 'No contact' }, 'email'],
      [{ name: 'Bad mail', email: 'not-an-email' }, 'email'],
      [{ name: 'Bad phone', phone: '12' }, 'phone'],
      [{ name: 'Typo', emial: 'x@example.com' }, 'emial'],
      [{ name: 'Wrong type', email: 42 }, 'email'],
      [{ name: 'x'.repeat(201), email: 'long@example.com' }, 'name'],
    ];
    for (const [payload, field] of cases) {
      const res = await ext('POST', '/api/external/clients', token, { payload, headers: ru });
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      const detail: string = res.json().detail;
      expect(detail).toContain(field);
      expect(detail, 'English').toMatch(/^[\x20-\x7e]+$/);
    }
    const malformed = await ext('POST', '/api/external/search-ads', token, {
      payload: '{"name":',
      headers: { ...ru, 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().detail).toBe('The request body is not valid JSON');
    const limit = await ext('GET', '/api/external/clients?limit=501', token, { headers: ru });
    expect(limit.statusCode).toBe(400);
    expect(limit.json().detail).toContain('limit');
    expect(await t.db.selectFrom('clients').select('id').where('name', '=', 'Bad phone').execute()).toEqual([]);
  });

  it('refuses a missing, unknown or made-up token and any session with the same 401 "Access denied"', async () => {
    const staff = (await t.userWithToken('superadmin')).token;
    const bodies = new Set<string>();
    for (const [label, token, bearer] of [
      ['no token', null, false],
      ['unknown token', randomBytes(32).toString('base64url'), false],
      ['unknown bearer', randomBytes(32).toString('base64url'), true],
      ['short token', 'abc', false],
      ['staff session', staff, true],
    ] as const) {
      const res = await ext('POST', '/api/external/clients', token, {
        bearer,
        payload: lead('400'),
        headers: { 'accept-language': 'ru' },
      });
      expectDenied(res, label);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    expect(await t.db.selectFrom('clients').select('id').where('email', '=', 'lead.400@example.com').execute()).toEqual(
      [],
    );
  });

  it('applies the IP whitelist: a call from outside it gets 401, inside it goes through; bad entries are named', async () => {
    const { id, token } = await createToken('Partner Whitelisted');
    const put = (body: unknown) =>
      t.inject({ method: 'PUT', url: `/api/affiliate-tokens/${id}/whitelist`, token: admin, payload: body as object });

    const set = await put(['10.0.0.0/8']);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({
      id,
      ip_whitelist: ['10.0.0.0/8'],
      token: `${token.slice(0, 8)}...${token.slice(-4)}`,
    });

    // app.inject calls come from 127.0.0.1 unless told otherwise.
    expectDenied(await ext('POST', '/api/external/clients', token, { payload: lead('500') }), 'from 127.0.0.1');
    expectDenied(await ext('GET', '/api/external/clients', token, { bearer: true }), 'GET from 127.0.0.1');
    const inside = await ext('POST', '/api/external/clients', token, {
      payload: lead('500'),
      remoteAddress: '10.1.2.3',
    });
    expect(inside.statusCode, inside.body).toBe(200);
    // The caller's address as TRUST_PROXY defines it: the trusted proxy's X-Forwarded-For, nobody else's.
    const viaProxy = await ext('GET', '/api/external/clients', token, { headers: { 'x-forwarded-for': '10.9.9.9' } });
    expect(viaProxy.statusCode, viaProxy.body).toBe(200);
    expectDenied(
      await ext('GET', '/api/external/clients', token, {
        headers: { 'x-forwarded-for': '10.9.9.9' },
        remoteAddress: '203.0.113.5',
      }),
      'a forwarded-for header from an untrusted address',
    );
    // A query token still counts beside an Authorization header of another scheme.
    const basic = await ext('GET', '/api/external/clients', token, {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
      remoteAddress: '10.1.2.3',
    });
    expect(basic.statusCode, basic.body).toBe(200);

    for (const bad of ['not-an-ip', '10.1.2.3/8', '300.1.1.1', '']) {
      const res = await put(['192.168.1.5', bad]);
      expect(res.statusCode, `${bad}: ${res.body}`).toBe(400);
      expect(res.json().detail).toContain(`«${bad}»`);
    }
    const notAList = await t.inject({
      method: 'PUT',
      url: `/api/affiliate-tokens/${id}/whitelist`,
      token: admin,
      payload: '"10.0.0.0/8"',
      headers: { 'content-type': 'application/json' },
    });
    expect(notAList.statusCode).toBe(400);
    const tooMany = await put(Array.from({ length: 201 }, (_, i) => `10.0.${i >> 8}.${i & 255}`));
    expect(tooMany.statusCode).toBe(400);
    // Refused lists left the whitelist as it was.
    const listed = (
      await t.inject({ method: 'GET', url: '/api/affiliate-tokens', token: admin })
    ).json() as AffiliateToken[];
    expect(listed.find((x) => x.id === id)!.ip_whitelist).toEqual(['10.0.0.0/8']);

    const mixed = await put([' 2001:db8::/32 ', '192.168.1.5', '::ffff:127.0.0.1', '192.168.1.5']);
    expect(mixed.json().ip_whitelist).toEqual(['2001:db8::/32', '192.168.1.5', '127.0.0.1']);
    expect((await ext('GET', '/api/external/clients', token)).statusCode).toBe(200);

    const cleared = await put([]);
    expect(cleared.json().ip_whitelist).toEqual([]);
    expect((await ext('GET', '/api/external/clients', token, { remoteAddress: '203.0.113.9' })).statusCode).toBe(200);

    expect(
      (await t.inject({ method: 'PUT', url: '/api/affiliate-tokens/999999/whitelist', token: admin, payload: [] }))
        .statusCode,
    ).toBe(404);
  });

  it('revokes a deleted token at once; its affiliate and leads stay', async () => {
    const { id, token } = await createToken('Partner Leaving');
    const posted = (await ext('POST', '/api/external/clients', token, { payload: lead('600') })).json();
    expect(posted.status).toBe('created');

    const del = await t.inject({ method: 'DELETE', url: `/api/affiliate-tokens/${id}`, token: admin });
    expect(del.statusCode, del.body).toBe(200);
    expectDenied(await ext('GET', '/api/external/clients', token), 'deleted token');
    expectDenied(await ext('POST', '/api/external/clients', token, { payload: lead('601') }), 'deleted token post');

    const list = (
      await t.inject({ method: 'GET', url: '/api/affiliate-tokens', token: admin })
    ).json() as AffiliateToken[];
    expect(list.some((x) => x.id === id)).toBe(false);
    const row = await clientRow(posted.client_id);
    expect(row.affiliate_id).not.toBeNull();
    const affiliate = await t.db
      .selectFrom('affiliates')
      .select(['name', 'deleted_at'])
      .where('id', '=', row.affiliate_id!)
      .executeTakeFirstOrThrow();
    expect(affiliate).toEqual({ name: 'Partner Leaving', deleted_at: null });
    expect((await t.inject({ method: 'DELETE', url: `/api/affiliate-tokens/${id}`, token: admin })).statusCode).toBe(
      404,
    );

    // A replacement token for the same partner carries on with the same affiliate and its leads.
    const replacement = await createToken('partner leaving');
    const listed = (await ext('GET', '/api/external/clients', replacement.token)).json();
    expect(listed.clients.map((c: { client_id: number }) => c.client_id)).toEqual([posted.client_id]);
  });

  it('refuses a token whose affiliate is deleted or paused', async () => {
    const { token } = await createToken('Partner Paused');
    const affiliateId = (
      await t.db
        .selectFrom('affiliate_tokens')
        .select('affiliate_id')
        .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
        .executeTakeFirstOrThrow()
    ).affiliate_id;
    expect((await ext('GET', '/api/external/clients', token)).statusCode).toBe(200);
    await t.db.updateTable('affiliates').set({ status: 'paused' }).where('id', '=', affiliateId).execute();
    expectDenied(await ext('GET', '/api/external/clients', token), 'paused affiliate');
    await t.db
      .updateTable('affiliates')
      .set({ status: 'active', deleted_at: new Date() })
      .where('id', '=', affiliateId)
      .execute();
    expectDenied(await ext('GET', '/api/external/clients', token), 'deleted affiliate');
  });

  it('honours Idempotency-Key per token: a retry replays the first answer, another body is 409', async () => {
    const a = await createToken('Partner Retrying');
    const b = await createToken('Partner Retrying Too');
    const key = { 'idempotency-key': 'lead-700-attempt' };
    const first = await ext('POST', '/api/external/clients', a.token, { payload: lead('700'), headers: key });
    expect(first.json().status).toBe('created');
    const retry = await ext('POST', '/api/external/clients', a.token, { payload: lead('700'), headers: key });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json()); // 'created' again, not 'duplicate': the first answer
    const other = await ext('POST', '/api/external/clients', a.token, { payload: lead('701'), headers: key });
    expect(other.statusCode).toBe(409);
    expect(other.json().detail).toContain('Idempotency-Key');
    // The same key from another token is that token's own.
    const fromB = await ext('POST', '/api/external/clients', b.token, { payload: lead('702'), headers: key });
    expect(fromB.json().status).toBe('created');
    expect(
      await t.db
        .selectFrom('clients')
        .select('id')
        .where('email', 'in', ['lead.700@example.com', 'lead.701@example.com'])
        .execute(),
    ).toHaveLength(1);
    const keys = await t.db
      .selectFrom('external_idempotency_keys')
      .select(['token_id', 'key'])
      .where('key', '=', 'lead-700-attempt')
      .execute();
    expect(keys.map((k) => Number(k.token_id)).sort()).toEqual([a.id, b.id].sort());
  });

  it('creates a lead once when the same lead is posted several times at the same moment', async () => {
    const { token } = await createToken('Partner Hasty');
    const paths = ['/api/external/clients', '/api/external/lead-ads', '/api/external/search-ads'];
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ext('POST', paths[i % 3]!, token, { payload: lead('800') })),
    );
    const statuses = answers.map((res) => res.json().status as string);
    expect(statuses.filter((s) => s === 'created')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(5);
    expect(new Set(answers.map((res) => res.json().client_id)).size).toBe(1);
    expect(
      await t.db.selectFrom('clients').select('id').where('email', '=', 'lead.800@example.com').execute(),
    ).toHaveLength(1);
  });

  it('writes the LEAD postback to the outbox with a new lead of an affiliate with a webhook, not with a duplicate', async () => {
    const { token } = await createToken('Partner Hooked');
    const affiliateId = (
      await t.db
        .selectFrom('affiliate_tokens')
        .select('affiliate_id')
        .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
        .executeTakeFirstOrThrow()
    ).affiliate_id;
    await t.db
      .updateTable('affiliates')
      .set({ webhook_url: 'https://hooks.example.com/leads' })
      .where('id', '=', affiliateId)
      .execute();
    const created = (await ext('POST', '/api/external/clients', token, { payload: lead('900') })).json();
    await ext('POST', '/api/external/clients', token, { payload: lead('900') });
    const events = await t.db
      .selectFrom('postback_events')
      .select(['event', 'client_id', 'payload'])
      .where('affiliate_id', '=', affiliateId)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'LEAD',
      payload: { event: 'LEAD', client_id: created.client_id, status: 'new', ftd: false },
    });
    expect(Number(events[0]!.client_id)).toBe(created.client_id);
  });

  it('stamps last_used at most once a minute', async () => {
    const { id, token } = await createToken('Partner Busy');
    const lastUsed = async () =>
      (await t.db.selectFrom('affiliate_tokens').select('last_used').where('id', '=', id).executeTakeFirstOrThrow())
        .last_used;
    await ext('GET', '/api/external/clients', token);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await ext('GET', '/api/external/clients', token);
    expect(await lastUsed()).toEqual(first);
    await t.db
      .updateTable('affiliate_tokens')
      .set({ last_used: sql`now() - interval '61 seconds'` })
      .where('id', '=', id)
      .execute();
    const old = await lastUsed();
    await ext('GET', '/api/external/clients', token);
    expect(new Date((await lastUsed())!).getTime()).toBeGreaterThan(new Date(old!).getTime());
    const listed = (
      await t.inject({ method: 'GET', url: '/api/affiliate-tokens', token: admin })
    ).json() as AffiliateToken[];
    expect(listed.find((x) => x.id === id)!.last_used).not.toBeNull();
  });

  it(`answers the calls past ${RATE} a minute with 429 and Retry-After, for that token only`, async () => {
    const busy = await createToken('Partner Flooding');
    const calm = await createToken('Partner Calm');
    // The limit refills one call every 60/RATE seconds, so a slow machine may see a few more than RATE succeed
    // before the first 429; never fewer.
    let accepted = 0;
    let over: LightMyRequestResponse | undefined;
    while (!over && accepted < RATE * 3) {
      const res = await ext('POST', '/api/external/clients', busy.token, { payload: lead('950') });
      if (res.statusCode === 429) over = res;
      else {
        expect(res.statusCode, `call ${accepted + 1}: ${res.body}`).toBe(200);
        accepted += 1;
      }
    }
    expect(over, 'a 429 came').toBeDefined();
    expect(accepted).toBeGreaterThanOrEqual(RATE);
    expect(over!.json().detail).toBe('Too many requests, try again later');
    const retryAfter = Number(over!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The refused call did nothing: the lead exists once, from the first call.
    expect(
      await t.db.selectFrom('clients').select('id').where('email', '=', 'lead.950@example.com').execute(),
    ).toHaveLength(1);
    expect((await ext('GET', '/api/external/clients', calm.token)).statusCode).toBe(200);
  });

  it('lets only superadmin and admin manage tokens', async () => {
    const { id } = await createToken('Partner Guarded');
    const superadmin = (await t.userWithToken('superadmin')).token;
    expect((await t.inject({ method: 'GET', url: '/api/affiliate-tokens', token: superadmin })).statusCode).toBe(200);
    for (const role of [
      'team_lead_sales',
      'sales_manager',
      'retention_manager',
      'team_lead_retention',
      'client',
    ] as const) {
      const token = (await t.userWithToken(role)).token;
      for (const call of [
        { method: 'GET', url: '/api/affiliate-tokens' },
        { method: 'POST', url: '/api/affiliate-tokens?name=Sneaky' },
        { method: 'PUT', url: `/api/affiliate-tokens/${id}/whitelist`, payload: [] },
        { method: 'DELETE', url: `/api/affiliate-tokens/${id}` },
      ] as const) {
        const res = await t.inject({ ...call, token });
        expect(res.statusCode, `${role} ${call.method} ${call.url}`).toBe(403);
      }
    }
    expect(await t.db.selectFrom('affiliates').select('id').where('name', '=', 'Sneaky').execute()).toEqual([]);
    const noName = await t.inject({ method: 'POST', url: '/api/affiliate-tokens?name=%20', token: admin });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().detail).toContain('name');
  });

  it('audits every token change, and no token reaches the audit log or the server log', async () => {
    const { id, token } = await createToken('Partner Audited');
    await t.inject({
      method: 'PUT',
      url: `/api/affiliate-tokens/${id}/whitelist`,
      token: admin,
      payload: ['10.0.0.0/8'],
    });
    expectDenied(await ext('GET', '/api/external/clients', token), 'outside the whitelist');
    await t.inject({ method: 'DELETE', url: `/api/affiliate-tokens/${id}`, token: admin });

    const rows = (await t.auditRows()).filter((r) => r.entity_id === String(id));
    expect(rows.map((r) => r.action)).toEqual([
      'affiliate_token.create',
      'affiliate_token.whitelist_update',
      'affiliate_token.delete',
    ]);
    expect(rows[0]!.after).toMatchObject({ name: 'Partner Audited', affiliate_created: true });
    expect(rows[1]!.after).toEqual({ ip_whitelist: ['10.0.0.0/8'] });
    expect(rows.every((r) => r.actor_id !== null)).toBe(true);

    const audit = (await sql<{ row: string }>`select a::text as row from audit_log a`.execute(t.db)).rows
      .map((r) => r.row)
      .join('\n');
    const log = logLines.join('');
    // The log did record the refusals, so the absence of the tokens below means something.
    expect(log).toContain('external API access denied');
    expect(log).toContain('"reason":"ip_not_allowed"');
    expect(log).toContain('"path":"/api/external/clients","query":["token"');
    expect(issued.length).toBeGreaterThan(10);
    for (const secret of issued) {
      expect(audit.includes(secret), 'audit log').toBe(false);
      expect(log.includes(secret), 'server log').toBe(false);
      expect(log.includes(secret.slice(0, 20)), 'server log, part of a token').toBe(false);
    }
  });
});
