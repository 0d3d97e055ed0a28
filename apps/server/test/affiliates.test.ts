import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_PURPOSE } from '../src/modules/postbacks/jobs.js';
import { SecretsVault } from '../src/platform/crypto/vault.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const KEY = randomBytes(32).toString('base64');
/** A public address written as an IP literal: the save-time check resolves it without any DNS server. */
const PUBLIC_HOOK = 'https://93.184.215.14/postbacks';
const DAY = 24 * 3600 * 1000;

type AffiliateItem = {
  id: number;
  name: string;
  contact_person: string;
  contact_email: string;
  description: string;
  webhook_url: string | null;
  status: string;
  total_clients: number;
  campaigns: string[];
  api_token: string | null;
  has_signing_secret: boolean;
};

/**
 * The affiliates page's API (back-office.md §2.13, §3, §7; D17): the list, the stats, editing with the address rules
 * and the one-time signing secret, rotation, soft delete, permissions; and the clients list's affiliate filter, filter
 * options and export column reading the real affiliate. Without ALLOW_PRIVATE_WEBHOOKS, so the rules apply.
 */
describe.each(dbKinds())('affiliates on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let superadmin: string;
  let teamLead: string;
  let alpha: number;
  let beta: number;
  let gone: number;
  const leads: Record<string, number> = {};
  const vault = new SecretsVault({ key: KEY, dataDir: '/nonexistent' });

  const affiliate = async (name: string, extra: { status?: 'active' | 'paused'; deleted?: boolean } = {}) =>
    Number(
      (
        await t.db
          .insertInto('affiliates')
          .values({
            name,
            contact_person: `${name} contact`,
            contact_email: `${name.toLowerCase().replace(/\s/g, '')}@partner.test`,
            status: extra.status ?? 'active',
            webhook_url: null,
            signing_secret_enc: null,
            deleted_at: extra.deleted ? new Date() : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const token = (affiliateId: number, prefix: string, ageMs: number, revoked = false) =>
    t.db
      .insertInto('affiliate_tokens')
      .values({
        affiliate_id: affiliateId,
        name: 'token',
        token_hash: randomBytes(32).toString('hex'),
        token_prefix: prefix,
        token_suffix: 'zzzz',
        created_by: null,
        created_at: new Date(Date.now() - ageMs),
        last_used: null,
        revoked_at: revoked ? new Date() : null,
      })
      .execute();
  const lead = async (email: string, campaign: string, affiliateId: number | null, ftd = false) => {
    const row = await t.db
      .insertInto('clients')
      .values({
        name: email.split('@')[0]!,
        email,
        phone: '',
        country: 'Kazakhstan',
        campaign,
        source: 'api',
        notes: '',
        status: ftd ? 'ftd' : 'new',
        ftd,
        assigned_manager: null,
        affiliate_id: affiliateId,
        user_id: null,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    leads[email] = Number(row.id);
    return Number(row.id);
  };
  const deposit = (clientId: number, cents: number, deleted = false) =>
    t.db
      .insertInto('deposits')
      .values({
        client_id: clientId,
        amount_cents: cents,
        deposit_type: 'reload',
        created_by: null,
        created_by_name: 'seed',
        created_at: new Date(),
        updated_at: new Date(),
        deleted_at: deleted ? new Date() : null,
        credited_at: null,
      })
      .execute();

  beforeAll(async () => {
    t = await createTestApp(kind, { CARD_ENCRYPTION_KEY: KEY });
    admin = (await t.userWithToken('admin')).token;
    superadmin = (await t.userWithToken('superadmin')).token;
    teamLead = (await t.userWithToken('team_lead_sales')).token;
    alpha = await affiliate('Alpha Leads');
    beta = await affiliate('Beta Partners', { status: 'paused' });
    gone = await affiliate('Gone Media', { deleted: true });
    // Alpha: an older live token, a newer live one, and the newest, revoked: the list shows the newer live one.
    await token(alpha, 'AAAA1111', 2 * DAY);
    await token(alpha, 'BBBB2222', DAY);
    await token(alpha, 'CCCC3333', 0, true);
    await token(beta, 'DDDD4444', DAY, true);
    const a1 = await lead('a1@lead.test', 'Spring', alpha, true);
    const a2 = await lead('a2@lead.test', ' Spring ', alpha, true);
    await lead('a3@lead.test', 'Autumn - OtherName', alpha);
    await lead('a4@lead.test', '', alpha);
    await lead('g1@lead.test', 'Old', gone);
    await lead('w1@lead.test', 'Winter - Gamma', null);
    await lead('n1@lead.test', 'Plain', null);
    await deposit(a1, 10_000);
    await deposit(a1, 5_050);
    await deposit(a1, 99_900, true); // deleted: not counted
    await deposit(a2, 20_000);
  });
  afterAll(() => t.close());

  const get = (url: string, who = admin) => t.inject({ method: 'GET', url, token: who });
  const put = (id: number, payload: object, who = admin, lang = 'en') =>
    t.inject({
      method: 'PUT',
      url: `/api/affiliates/${id}`,
      token: who,
      payload,
      headers: { 'accept-language': lang },
    });
  const list = async (): Promise<AffiliateItem[]> => {
    const res = await get('/api/affiliates');
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('lists the affiliates that are not deleted, with clients, campaigns and the newest live token masked', async () => {
    const items = await list();
    expect(items.map((a) => a.name)).toEqual(['Alpha Leads', 'Beta Partners']);
    const [a, b] = items;
    expect(a).toEqual({
      id: alpha,
      name: 'Alpha Leads',
      contact_person: 'Alpha Leads contact',
      contact_email: 'alphaleads@partner.test',
      description: '',
      webhook_url: null,
      status: 'active',
      total_clients: 4,
      campaigns: ['Autumn - OtherName', 'Spring'],
      api_token: 'BBBB2222...',
      has_signing_secret: false,
    });
    expect(b).toMatchObject({ id: beta, status: 'paused', total_clients: 0, campaigns: [], api_token: null });
  });

  it('stats: clients, FTD, conversion with 1 decimal, campaigns, live deposits in dollars and their average', async () => {
    const res = await get(`/api/affiliates/${alpha}/stats`);
    expect(res.statusCode, res.body).toBe(200);
    const stats = res.json();
    expect(stats).toMatchObject({
      affiliate_name: 'Alpha Leads',
      total_clients: 4,
      ftd_clients: 2,
      conversion_rate: 50,
      total_campaigns: 2,
      total_deposits: 350.5,
      avg_deposit: 116.83, // 350.50 / 3 deposits
      campaigns: ['Autumn - OtherName', 'Spring'],
      deliveries: [],
    });
    expect(stats.campaign_breakdown).toEqual([
      { campaign: 'Spring', clients: 2, ftd_clients: 2 },
      { campaign: '', clients: 1, ftd_clients: 0 },
      { campaign: 'Autumn - OtherName', clients: 1, ftd_clients: 0 },
    ]);
    const empty = (await get(`/api/affiliates/${beta}/stats`)).json();
    expect(empty).toMatchObject({ total_clients: 0, conversion_rate: 0, total_deposits: 0, avg_deposit: 0 });
    // A third of the leads converted: 33.3, not 33.333…
    const third = await affiliate('Third');
    await lead('t1@lead.test', 'X', third, true);
    await lead('t2@lead.test', 'X', third);
    await lead('t3@lead.test', 'X', third);
    expect((await get(`/api/affiliates/${third}/stats`)).json().conversion_rate).toBe(33.3);
    expect((await get(`/api/affiliates/${gone}/stats`)).statusCode).toBe(404);
    expect((await get('/api/affiliates/987654/stats')).statusCode).toBe(404);
    expect((await get('/api/affiliates/abc/stats')).statusCode).toBe(400);
  });

  it('edit: validation names the problem; webhook URLs must be https and public', async () => {
    const refused = async (payload: object, pattern: RegExp) => {
      const res = await put(beta, { name: 'Beta Partners', ...payload });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().detail).toMatch(pattern);
    };
    const missing = await put(beta, { contact_person: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/name/);
    await refused({ name: '   ' }, /name/);
    await refused({ contact_email: 'not-an-email' }, /contact_email/);
    await refused({ status: 'sleeping' }, /status/);
    await refused({ webhook_url: 'not a url' }, /webhook_url: .*URL/);
    await refused({ webhook_url: 'ftp://93.184.215.14/x' }, /webhook_url: .*https/);
    await refused({ webhook_url: 'http://93.184.215.14/x' }, /webhook_url: .*https/);
    await refused({ webhook_url: 'https://127.0.0.1/hook' }, /webhook_url: .*127\.0\.0\.1/);
    await refused({ webhook_url: 'https://localhost:8443/hook' }, /webhook_url: localhost .*(127\.0\.0\.1|::1)/);
    await refused({ webhook_url: 'https://10.20.30.40/hook' }, /private/);
    await refused({ webhook_url: 'https://169.254.169.254/latest/meta-data' }, /169\.254\.169\.254/);
    await refused({ webhook_url: 'https://[fe80::1]/hook' }, /fe80::1/);
    await refused({ webhook_url: 'https://[::ffff:192.168.1.1]/hook' }, /private/);
    await refused({ webhook_url: 'https://no-such-host.invalid/hook' }, /could not be resolved/);
    // English on request, Russian by default.
    const ru = await put(beta, { name: 'Beta Partners', webhook_url: 'http://93.184.215.14/x' }, admin, 'ru');
    expect(ru.json().detail).toMatch(/https:\/\//);
    expect(ru.json().detail).toMatch(/адрес должен/);
    // Nothing was saved by the refused calls.
    expect((await list()).find((a) => a.id === beta)).toMatchObject({ webhook_url: null, has_signing_secret: false });
    expect((await put(987654, { name: 'X' })).statusCode).toBe(404);
    expect((await put(gone, { name: 'X' })).statusCode).toBe(404);
  });

  it('the first webhook URL creates the signing secret, answered once; never in GET, audit or later answers', async () => {
    const first = await put(beta, {
      name: 'Beta Partners Ltd',
      contact_person: 'Ivan Petrov',
      contact_email: 'Ivan@Beta.Test',
      description: 'Search ads in KZ',
      webhook_url: PUBLIC_HOOK,
      status: 'active',
    });
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({
      id: beta,
      name: 'Beta Partners Ltd',
      contact_person: 'Ivan Petrov',
      contact_email: 'ivan@beta.test',
      description: 'Search ads in KZ',
      webhook_url: PUBLIC_HOOK,
      status: 'active',
      has_signing_secret: true,
    });
    const secret: string = body.signing_secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored encrypted with the card vault's key, not in clear.
    const row = await t.db
      .selectFrom('affiliates')
      .select('signing_secret_enc')
      .where('id', '=', beta)
      .executeTakeFirstOrThrow();
    expect(row.signing_secret_enc).not.toContain(secret);
    expect(vault.decryptSecret(row.signing_secret_enc!, SIGNING_SECRET_PURPOSE)).toBe(secret);

    // Saved again (another URL, other fields): no secret in the answer, the same secret kept.
    const again = await put(beta, { name: 'Beta Partners', webhook_url: 'https://93.184.215.14/v2' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).not.toHaveProperty('signing_secret');
    const kept = await t.db
      .selectFrom('affiliates')
      .select('signing_secret_enc')
      .where('id', '=', beta)
      .executeTakeFirstOrThrow();
    expect(vault.decryptSecret(kept.signing_secret_enc!, SIGNING_SECRET_PURPOSE)).toBe(secret);
    // A save that changes nothing answers the affiliate and writes no audit row.
    const audits = await t.auditCount('affiliate.update');
    expect((await put(beta, { name: 'Beta Partners' })).statusCode).toBe(200);
    expect(await t.auditCount('affiliate.update')).toBe(audits);

    for (const url of ['/api/affiliates', `/api/affiliates/${beta}/stats`]) {
      const res = await get(url);
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toContain('signing_secret_enc');
    }
    const rows = await t.auditRows('affiliate.update');
    expect(rows.length).toBe(2);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]!.after).toMatchObject({ webhook_url: PUBLIC_HOOK, signing: 'created', name: 'Beta Partners Ltd' });
    expect(rows[0]!.before).toMatchObject({ webhook_url: null, name: 'Beta Partners', status: 'paused' });

    // Removing the URL keeps the secret (a later URL is signed with it, not answered again).
    const removed = await put(beta, { name: 'Beta Partners', webhook_url: '' });
    expect(removed.json()).toMatchObject({ webhook_url: null, has_signing_secret: true });
    const back = await put(beta, { name: 'Beta Partners', webhook_url: PUBLIC_HOOK });
    expect(back.json()).not.toHaveProperty('signing_secret');
  });

  it('rotate-secret answers a new secret once; without a webhook URL it is refused', async () => {
    const before = await t.db
      .selectFrom('affiliates')
      .select('signing_secret_enc')
      .where('id', '=', beta)
      .executeTakeFirstOrThrow();
    const old = vault.decryptSecret(before.signing_secret_enc!, SIGNING_SECRET_PURPOSE);
    const res = await t.inject({ method: 'POST', url: `/api/affiliates/${beta}/rotate-secret`, token: superadmin });
    expect(res.statusCode, res.body).toBe(200);
    const fresh: string = res.json().signing_secret;
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(old);
    const after = await t.db
      .selectFrom('affiliates')
      .select('signing_secret_enc')
      .where('id', '=', beta)
      .executeTakeFirstOrThrow();
    expect(vault.decryptSecret(after.signing_secret_enc!, SIGNING_SECRET_PURPOSE)).toBe(fresh);
    const audit = await t.auditRows('affiliate.rotate_secret');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toEqual({ name: 'Beta Partners', signing: 'rotated' });
    expect(JSON.stringify(audit)).not.toContain(fresh);
    expect((await get('/api/affiliates')).body).not.toContain(fresh);

    const none = await t.inject({ method: 'POST', url: `/api/affiliates/${alpha}/rotate-secret`, token: admin });
    expect(none.statusCode).toBe(409);
    expect(none.json().detail).toMatch(/Webhook URL/);
    expect(
      (await t.inject({ method: 'POST', url: '/api/affiliates/987654/rotate-secret', token: admin })).statusCode,
    ).toBe(404);
  });

  it('only superadmin and admin manage affiliates', async () => {
    for (const res of [
      await get('/api/affiliates', teamLead),
      await get(`/api/affiliates/${alpha}/stats`, teamLead),
      await put(alpha, { name: 'Hijack' }, teamLead),
      await t.inject({ method: 'POST', url: `/api/affiliates/${alpha}/rotate-secret`, token: teamLead }),
      await t.inject({ method: 'DELETE', url: `/api/affiliates/${alpha}`, token: teamLead }),
    ]) {
      expect(res.statusCode).toBe(403);
    }
    expect((await get('/api/affiliates')).statusCode).toBe(200);
    expect((await get('/api/affiliates', superadmin)).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/affiliates' })).statusCode).toBe(401);
    expect((await list()).find((a) => a.id === alpha)!.name).toBe('Alpha Leads');
  });

  it('the clients filter, its options and the export read the real affiliate; the campaign rule stays without one', async () => {
    const emails = async (query: string, who = admin) => {
      const res = await get(`/api/clients?sort=email&order=asc${query}`, who);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { items: { email: string }[] }).items.map((c) => c.email);
    };
    // Alpha's leads by its name, whatever their campaign says; 'OtherName' of its campaign no longer counts.
    expect(await emails('&affiliate=alpha%20leads')).toEqual([
      'a1@lead.test',
      'a2@lead.test',
      'a3@lead.test',
      'a4@lead.test',
    ]);
    expect(await emails('&affiliate=OtherName')).toEqual([]);
    // A lead without affiliate_id: the campaign's last segment, as before.
    expect(await emails('&affiliate=gamma')).toEqual(['w1@lead.test']);
    expect(await emails('&affiliate=Gone%20Media&affiliate=Gamma')).toEqual(['g1@lead.test', 'w1@lead.test']);

    const options = (await get('/api/clients/filter-options')).json() as { affiliates: string[] };
    expect(options.affiliates).toEqual(expect.arrayContaining(['Alpha Leads', 'Gamma', 'Gone Media', 'Third']));
    expect(options.affiliates).not.toContain('OtherName');
    expect(options.affiliates).not.toContain('Plain');

    const file = await get('/api/clients/export/excel?sort=email', superadmin);
    expect(file.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const idColumn = 0;
    const affiliateColumn = header.indexOf('Аффилейт');
    expect(affiliateColumn).toBeGreaterThan(0);
    const byId = new Map<number, unknown>();
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      const values = (row.values as unknown[]).slice(1);
      byId.set(Number(values[idColumn]), values[affiliateColumn] ?? null);
    });
    expect(byId.get(leads['a3@lead.test']!)).toBe('Alpha Leads');
    expect(byId.get(leads['g1@lead.test']!)).toBe('Gone Media');
    expect(byId.get(leads['w1@lead.test']!)).toBe('Gamma');
    expect(byId.get(leads['n1@lead.test']!)).toBeNull();
  });

  it('delete: soft, revokes its tokens, drops pending postbacks, leads keep the affiliate and its name', async () => {
    await t.db
      .insertInto('postback_events')
      .values({ affiliate_id: alpha, client_id: leads['a1@lead.test']!, event: 'STATUS', payload: JSON.stringify({}) })
      .execute();
    const res = await t.inject({ method: 'DELETE', url: `/api/affiliates/${alpha}`, token: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect((await list()).map((a) => a.id)).not.toContain(alpha);
    const tokens = await t.db
      .selectFrom('affiliate_tokens')
      .select(['token_prefix', 'revoked_at'])
      .where('affiliate_id', '=', alpha)
      .execute();
    expect(tokens).toHaveLength(3);
    expect(tokens.every((tk) => tk.revoked_at !== null)).toBe(true);
    const row = await t.db
      .selectFrom('affiliates')
      .select(['name', 'deleted_at'])
      .where('id', '=', alpha)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: 'Alpha Leads' });
    expect(row.deleted_at).not.toBeNull();
    const kept = await t.db.selectFrom('clients').select('affiliate_id').where('affiliate_id', '=', alpha).execute();
    expect(kept).toHaveLength(4);
    const events = await t.db
      .selectFrom('postback_events')
      .select('status')
      .where('affiliate_id', '=', alpha)
      .execute();
    expect(events.map((e) => e.status)).toEqual(['failed']);
    const audit = await t.auditRows('affiliate.delete');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toEqual({ deleted: true, credentials_revoked: 2 });
    // Its leads are still found under its name.
    const found = await get('/api/clients?affiliate=Alpha%20Leads');
    expect(found.json().total).toBe(4);
    expect((await get(`/api/affiliates/${alpha}/stats`)).statusCode).toBe(404);
    expect((await t.inject({ method: 'DELETE', url: `/api/affiliates/${alpha}`, token: admin })).statusCode).toBe(404);
  });
});
