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
    for (const sort of ['phone', 'ftd', 'affiliate_id', 'assigned_manager']) {
      expect(await ids(`sort=${sort}&order=asc`)).toHaveLength(5);
    }
  });

  it('refuses bad values with a detail naming the parameter', async () => {
    for (const [query, field] of [
      ['balance_min=-1', 'balance_min'],
      ['balance_max=abc', 'balance_max'],
      ['last_comment_period=decade', 'last_comment_period'],
    ]) {
      const res = await t.inject({ method: 'GET', url: `/api/clients?${query}`, token: admin });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toContain(field);
    }
  });
});
