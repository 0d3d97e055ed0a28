import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** The §2.5 filters of GET /api/clients beyond the first ones: balance from/to, comments period, affiliate. */
describe.each(dbKinds())('clients list filters on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  const DAY = 24 * 3600 * 1000;

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = (await t.userWithToken('admin')).token;
    const now = Date.now();
    const leads = [
      // email, total deposits (cents), last comment, campaign
      ['zero@f.test', 0, null, ''],
      ['low@f.test', 5_000, new Date(now - 60_000), 'Spring - PartnerX'],
      ['mid@f.test', 100_000, new Date(now - 3 * DAY), 'Spring - partnerx '],
      ['high@f.test', 250_050, new Date(now - 20 * DAY), 'Winter - Other - PartnerY'],
      ['old@f.test', 100, new Date(now - 90 * DAY), 'PartnerX'],
    ] as const;
    for (const [email, cents, comment, campaign] of leads) {
      await t.db
        .insertInto('clients')
        .values({
          name: email,
          email,
          phone: '',
          country: 'Germany',
          campaign,
          source: 'import',
          notes: '',
          status: 'new',
          assigned_manager: null,
          affiliate_id: null,
          user_id: null,
          total_deposits_cents: String(cents),
          registration_date: null,
          last_comment_date: comment,
        })
        .execute();
    }
  });
  afterAll(() => t.close());

  const emails = async (query: string) => {
    const res = await t.inject({ method: 'GET', url: `/api/clients?sort=email&order=asc${query}`, token: admin });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { items: { email: string }[] }).items.map((c) => c.email);
  };

  it('balance from / to compare total deposits in dollars, both ends included', async () => {
    expect(await emails('&balance_min=50')).toEqual(['high@f.test', 'low@f.test', 'mid@f.test']);
    expect(await emails('&balance_min=50&balance_max=1000')).toEqual(['low@f.test', 'mid@f.test']);
    expect(await emails('&balance_max=0')).toEqual(['zero@f.test']);
    expect(await emails('&balance_min=2500.5')).toEqual(['high@f.test']);
  });

  it('comments period: today, week, month and without comments', async () => {
    expect(await emails('&last_comment_period=week')).toEqual(['low@f.test', 'mid@f.test']);
    expect(await emails('&last_comment_period=month')).toEqual(['high@f.test', 'low@f.test', 'mid@f.test']);
    expect(await emails('&last_comment_period=no_comments')).toEqual(['zero@f.test']);
    // A minute ago is today, unless the test runs in the first minute of the business day.
    const today = await emails('&last_comment_period=today');
    const yesterday = await emails('&last_comment_period=yesterday');
    expect([...today, ...yesterday]).toContain('low@f.test');
    expect(today).not.toContain('mid@f.test');
  });

  it('affiliate: the last campaign segment, case-insensitive; clients without a campaign never match', async () => {
    expect(await emails('&affiliate=partnerx')).toEqual(['low@f.test', 'mid@f.test', 'old@f.test']);
    expect(await emails('&affiliate=PartnerY&affiliate=nobody')).toEqual(['high@f.test']);
    expect(await emails('&affiliate=Other')).toEqual([]);
  });

  it('sorts by every header of §2.5, with id as the tie-breaker', async () => {
    const ids = async (query: string) => {
      const res = await t.inject({ method: 'GET', url: `/api/clients?${query}`, token: admin });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { items: { email: string }[] }).items.map((c) => c.email);
    };
    expect(await ids('sort=campaign&order=asc')).toEqual([
      'zero@f.test',
      'old@f.test',
      'low@f.test',
      'mid@f.test',
      'high@f.test',
    ]);
    expect(await ids('sort=total_deposits&order=desc')).toEqual([
      'high@f.test',
      'mid@f.test',
      'low@f.test',
      'old@f.test',
      'zero@f.test',
    ]);
    // phone, ftd, affiliate_id and assigned_manager: their order is asserted in clients-list.test.ts.
  });

  it('the last comment day from / to (issue 27 item 7): days in the business zone, both ends included', async () => {
    const day = (ms: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Kyiv' }).format(new Date(Date.now() - ms));
    expect(await emails(`&last_comment_from=${day(5 * DAY)}`)).toEqual(['low@f.test', 'mid@f.test']);
    expect(await emails(`&last_comment_from=${day(30 * DAY)}&last_comment_to=${day(10 * DAY)}`)).toEqual([
      'high@f.test',
    ]);
    expect(await emails(`&last_comment_to=${day(3 * DAY)}`)).toEqual(['high@f.test', 'mid@f.test', 'old@f.test']);
    // Never commented: outside every comment range.
    expect(await emails(`&last_comment_from=2000-01-01`)).not.toContain('zero@f.test');
  });

  it('refuses bad values with a detail naming the parameter', async () => {
    for (const [query, field] of [
      ['balance_min=-1', 'balance_min'],
      ['balance_max=abc', 'balance_max'],
      ['last_comment_period=decade', 'last_comment_period'],
      ['last_comment_from=2026-02-30', 'last_comment_from'],
    ]) {
      const res = await t.inject({ method: 'GET', url: `/api/clients?${query}`, token: admin });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toContain(field);
    }
  });

  it('an inverted or too large range is a 400 that says so, not an empty list (issue 27 item 7)', async () => {
    for (const [query, detail] of [
      ['balance_min=1000&balance_max=500', 'balance_max: The upper bound is below the lower one'],
      ['created_date_from=2026-03-10&created_date_to=2026-03-01', 'created_date_to: The start date is after'],
      ['last_comment_from=2026-03-10&last_comment_to=2026-03-01', 'last_comment_to: The start date is after'],
      ['balance_min=99999999999999999999', 'balance_min: At most 1,000,000,000,000'],
    ]) {
      const res = await t.inject({
        method: 'GET',
        url: `/api/clients?${query}`,
        token: admin,
        headers: { 'accept-language': 'en' },
      });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().detail, query).toContain(detail);
    }
    const ru = await t.inject({ method: 'GET', url: '/api/clients?balance_min=1e20', token: admin });
    expect(ru.json().detail).toContain('Не более 1\u00a0000\u00a0000\u00a0000\u00a0000');
  });
});

/**
 * GET /api/clients/filter-options (§2.5 Country, Campaigns and Affiliates multi-selects, the add-client lists): the
 * distinct values of the clients in the caller's scope (D5) only, one spelling per value, bounded.
 */
describe.each(dbKinds())('clients filter options on %s', (kind) => {
  let t: TestApp;
  type U = { id: string; token: string };
  let admin: U;
  let managerA: U;
  let managerB: U;
  let leadSales: U;
  let retention: U;

  const add = (rows: { country: string; campaign: string; manager: string | null; email?: string }[]) =>
    t.db
      .insertInto('clients')
      .values(
        rows.map((r, i) => ({
          name: `Option lead ${i}`,
          email: r.email ?? `opt.${i}.${Math.random().toString(36).slice(2)}@o.test`,
          phone: '',
          country: r.country,
          campaign: r.campaign,
          source: 'import',
          notes: '',
          status: 'new',
          assigned_manager: r.manager,
          affiliate_id: null,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
        })),
      )
      .execute();

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.userWithToken('admin');
    managerA = await t.userWithToken('sales_manager');
    managerB = await t.userWithToken('sales_manager');
    leadSales = await t.userWithToken('team_lead_sales');
    retention = await t.userWithToken('retention_manager');
    await add([
      { country: 'Germany', campaign: 'Spring - PartnerX', manager: managerA.id, email: 'a1@o.test' },
      { country: ' germany ', campaign: 'spring - partnerx ', manager: managerA.id, email: 'a2@o.test' },
      { country: 'Austria', campaign: '', manager: managerA.id, email: 'a3@o.test' },
      { country: 'France', campaign: 'Autumn - PartnerZ', manager: managerB.id, email: 'b1@o.test' },
      { country: 'Italy', campaign: 'Solo', manager: null, email: 'u1@o.test' },
      { country: 'Spain', campaign: 'Winter - PartnerR', manager: retention.id, email: 'r1@o.test' },
      { country: '', campaign: '', manager: null, email: 'blank@o.test' },
    ]);
  });
  afterAll(() => t.close());

  const options = async (token: string) => {
    const res = await t.inject({ method: 'GET', url: '/api/clients/filter-options', token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { countries: string[]; campaigns: string[]; affiliates: string[] };
  };
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());

  it('a manager gets only the values of their own clients, one spelling each, no blanks, no affiliates', async () => {
    const a = await options(managerA.token);
    expect(lower(a.countries)).toEqual(['austria', 'germany']);
    expect(lower(a.campaigns)).toEqual(['spring - partnerx']);
    expect(a.affiliates).toEqual([]);
    const b = await options(managerB.token);
    expect(b).toEqual({ countries: ['France'], campaigns: ['Autumn - PartnerZ'], affiliates: [] });
  });

  it('a team lead gets their department’s and the unassigned clients’ values; admin gets everything and affiliates', async () => {
    const lead = await options(leadSales.token);
    expect(lower(lead.countries)).toEqual(['austria', 'france', 'germany', 'italy']);
    expect(lower(lead.campaigns)).toEqual(['autumn - partnerz', 'solo', 'spring - partnerx']);
    expect(lead.affiliates).toEqual([]);
    const all = await options(admin.token);
    expect(lower(all.countries)).toEqual(['austria', 'france', 'germany', 'italy', 'spain']);
    expect(lower(all.affiliates)).toEqual(['partnerr', 'partnerx', 'partnerz']);
    expect(all.campaigns).toHaveLength(4);
  });

  it('each option selects its clients through the list filters (exact, case-insensitive)', async () => {
    const germany = await t.inject({
      method: 'GET',
      url: '/api/clients?country=Germany&sort=email&order=asc',
      token: managerA.token,
    });
    expect(germany.json().items.map((c: { email: string }) => c.email)).toEqual(['a1@o.test', 'a2@o.test']);
    // 'Germ' is not a country: the multi-select sends whole values.
    const partial = await t.inject({ method: 'GET', url: '/api/clients?country=Germ', token: managerA.token });
    expect(partial.json().total).toBe(0);
  });

  it('is bounded to the most frequent values, and a new client’s values show after it is added', async () => {
    const many = await t.userWithToken('retention_manager');
    await add([
      ...Array.from({ length: 310 }, (_, i) => ({
        country: `Land ${String(i).padStart(3, '0')}`,
        campaign: '',
        manager: many.id,
      })),
      ...[1, 2, 3].map(() => ({ country: 'Zzz Frequent', campaign: 'Zzz Campaign', manager: many.id })),
    ]);
    const bounded = await options(many.token);
    expect(bounded.countries).toHaveLength(300);
    expect(bounded.countries).toContain('Zzz Frequent');
    expect(bounded.campaigns).toEqual(['Zzz Campaign']);

    // The manager adds a client with a new country: the next answer has it (writes clear the short cache).
    const created = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: managerB.token,
      payload: {
        name: 'New Option',
        email: 'new.option@o.test',
        phone: '+100',
        country: 'Portugal',
        campaign: 'Fresh',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const b = await options(managerB.token);
    expect(b.countries).toEqual(['France', 'Portugal']);
    expect(b.campaigns).toEqual(['Autumn - PartnerZ', 'Fresh']);
  });
});
