import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const TZ = 'Europe/Kyiv';

/**
 * GET /api/dashboard (back-office.md §2.4, issue 11) on a base whose every figure is worked out by hand below:
 * three managers in two departments (one deleted after making a deposit), two affiliates with two campaigns each, a
 * lead whose campaign names a third affiliate, and deposits in four different months.
 *
 *   lead  manager       affiliate / campaign    created   status (after)  deposits (month, manager)
 *   c1    s1            Alpha / Spring          now       new             —
 *   c2    s1            Alpha / Autumn          m-1       ftd             $100 (m-1, s1), $50 (now, s1)
 *   c3    s2 → none     Beta / Search           m-2       in_progress     $300 (m-2, s2)
 *   c4    r1            Beta / (none)           m-3       ftd             $200 (m-3, r1)
 *   c5    none          'Promo - Gamma'         now       ftd             $25 (now, none)
 *   c6    s2 → none     'Direct'                m-1       new             —
 * s2 is deleted at the end (its clients become unassigned; its deposit stays attributed to it). c2 is registered by
 * staff, so its trading account holds its $150.
 */
describe.each(dbKinds())('dashboard on %s', (kind) => {
  let t: TestApp;
  let superadmin: string;
  const staff: Record<'s1' | 's2' | 'r1' | 'tls' | 'tlr', { id: string; token: string }> = {} as never;
  const ids: Record<string, number> = {};
  let months: string[];
  let alpha: number;
  let beta: number;

  const get = (query: string, token = superadmin) => t.inject({ method: 'GET', url: `/api/dashboard${query}`, token });
  const monthsAgo = (k: number) =>
    sql<Date>`(date_trunc('month', now() at time zone ${TZ}) - make_interval(months => ${k}) + interval '9 days 12 hours') at time zone ${TZ}`;

  beforeAll(async () => {
    t = await createTestApp(kind, { BUSINESS_TIMEZONE: TZ });
    superadmin = (await t.userWithToken('superadmin')).token;
    staff.s1 = await t.userWithToken('sales_manager');
    staff.s2 = await t.userWithToken('sales_manager');
    staff.r1 = await t.userWithToken('retention_manager');
    staff.tls = await t.userWithToken('team_lead_sales');
    staff.tlr = await t.userWithToken('team_lead_retention');
    for (const [key, name] of [
      ['s1', 'Анна Продажи'],
      ['s2', 'Борис Продажи'],
      ['r1', 'Вера Удержание'],
      ['tls', 'Глеб Тимлид'],
      ['tlr', 'Дина Тимлид'],
    ] as const) {
      await t.db.updateTable('users').set({ name }).where('id', '=', staff[key].id).execute();
    }
    alpha = Number(
      (await t.db.insertInto('affiliates').values({ name: 'Alpha' }).returning('id').executeTakeFirstOrThrow()).id,
    );
    beta = Number(
      (
        await t.db
          .insertInto('affiliates')
          .values({ name: 'Beta', status: 'paused' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const lead = async (
      key: string,
      manager: string | null,
      affiliate: number | null,
      campaign: string,
      status: string,
      created: ReturnType<typeof monthsAgo> | null,
    ) => {
      const row = await t.db
        .insertInto('clients')
        .values({
          name: `Lead ${key}`,
          email: `${key}.${randomUUID().slice(0, 8)}@dash.test`,
          phone: '',
          country: 'KZ',
          campaign,
          source: 'test',
          notes: '',
          status,
          assigned_manager: manager,
          affiliate_id: affiliate,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
          ...(created ? { created_at: created as never } : {}),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[key] = Number(row.id);
    };
    await lead('c1', staff.s1.id, alpha, 'Spring', 'new', null);
    await lead('c2', staff.s1.id, alpha, 'Autumn', 'new', monthsAgo(1));
    await lead('c3', staff.s2.id, beta, 'Search', 'in_progress', monthsAgo(2));
    await lead('c4', staff.r1.id, beta, '', 'new', monthsAgo(3));
    await lead('c5', null, null, 'Promo - Gamma', 'new', null);
    await lead('c6', staff.s2.id, null, 'Direct', 'new', monthsAgo(1));

    const deposit = async (client: string, amount: number, when: number | null) => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: superadmin,
        payload: { client_id: ids[client], amount },
      });
      expect(res.statusCode, res.body).toBe(201);
      if (when !== null) {
        await t.db
          .updateTable('deposits')
          .set({ created_at: monthsAgo(when) as never })
          .where('id', '=', res.json().id)
          .execute();
      }
    };
    await deposit('c2', 100, 1);
    await deposit('c2', 50, null);
    await deposit('c4', 200, 3);
    await deposit('c3', 300, 2);
    await deposit('c5', 25, null);
    const reg = await t.inject({
      method: 'POST',
      url: `/api/clients/${ids.c2}/register-user`,
      token: superadmin,
      payload: { name: 'Lead c2', email: `c2.user.${randomUUID().slice(0, 6)}@dash.test`, password: 'secret-123' },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    // A login made by staff waits for another finance approver's identity check (issue 20 finding 1).
    const verified = await t.inject({
      method: 'POST',
      url: `/api/clients/${ids.c2}/verify-identity`,
      token: (await t.userWithToken('admin')).token,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/api/users/${staff.s2.id}`, token: superadmin });
    expect(del.statusCode, del.body).toBe(200);
    months = (
      await sql<{
        m: string;
      }>`select to_char(date_trunc('month', now() at time zone ${TZ}) - make_interval(months => k), 'YYYY-MM') as m
        from generate_series(5, 0, -1) k`.execute(t.db)
    ).rows.map((r) => r.m);
  });
  afterAll(() => t.close());

  const row = (id: string, name: string, role: string, f: [number, number, number, number]) => ({
    manager_id: id,
    name,
    role,
    clients: f[0],
    ftd: f[1],
    deposit_amount: f[2],
    deposit_count: f[3],
  });
  const sortCampaigns = (body: { affiliates: { campaigns: { campaign: string }[] }[] }) =>
    body.affiliates.map((a) => ({
      ...a,
      campaigns: [...a.campaigns].sort((x, y) => (x.campaign < y.campaign ? -1 : 1)),
    }));

  it('answers every figure for all time as worked out by hand', async () => {
    const res = await get('');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.overview).toEqual({
      total_clients: 6,
      ftd_clients: 4,
      deposit_count: 5,
      total_deposit_amount: 675,
      total_trading_balance: 150,
      conversion_rate: 66.7,
    });
    expect(body.departments).toEqual({
      sales: [
        row(staff.s1.id, 'Анна Продажи', 'sales_manager', [2, 1, 150, 2]),
        row(staff.tls.id, 'Глеб Тимлид', 'team_lead_sales', [0, 0, 0, 0]),
      ],
      retention: [
        row(staff.r1.id, 'Вера Удержание', 'retention_manager', [1, 1, 200, 1]),
        row(staff.tlr.id, 'Дина Тимлид', 'team_lead_retention', [0, 0, 0, 0]),
      ],
    });
    expect(body.deleted_managers).toEqual([row(staff.s2.id, 'Борис Продажи', 'sales_manager', [1, 0, 300, 1])]);
    const c = (campaign: string, clients: number, ftd: number, amount: number) => ({
      campaign,
      clients,
      ftd,
      deposit_amount: amount,
      conversion_rate: clients === 0 ? 0 : Math.round((ftd / clients) * 1000) / 10,
    });
    expect(sortCampaigns(body)).toEqual([
      {
        affiliate_id: alpha,
        name: 'Alpha',
        status: 'active',
        clients: 2,
        ftd: 1,
        conversion_rate: 50,
        deposit_amount: 150,
        campaigns: [c('Autumn', 1, 1, 150), c('Spring', 1, 0, 0)],
      },
      {
        affiliate_id: beta,
        name: 'Beta',
        status: 'paused',
        clients: 2,
        ftd: 2,
        conversion_rate: 100,
        deposit_amount: 500,
        campaigns: [c('Search', 1, 1, 300), c('Без названия', 1, 1, 200)],
      },
      {
        affiliate_id: null,
        name: 'Gamma',
        status: 'deleted',
        clients: 1,
        ftd: 1,
        conversion_rate: 100,
        deposit_amount: 25,
        campaigns: [c('Promo', 1, 1, 25)],
      },
    ]);
    expect(body.monthly).toEqual([
      { month: months[0], clients: 0, deposit_amount: 0, deposit_count: 0 },
      { month: months[1], clients: 0, deposit_amount: 0, deposit_count: 0 },
      { month: months[2], clients: 1, deposit_amount: 200, deposit_count: 1 },
      { month: months[3], clients: 1, deposit_amount: 300, deposit_count: 1 },
      { month: months[4], clients: 2, deposit_amount: 100, deposit_count: 1 },
      { month: months[5], clients: 2, deposit_amount: 75, deposit_count: 2 },
    ]);
    expect(body.status_breakdown).toEqual([
      { status: 'ftd', clients: 3 },
      { status: 'new', clients: 2 },
      { status: 'in_progress', clients: 1 },
    ]);
    expect(body.range.from).toBeNull();
    expect(body.timezone.timezone).toBe(TZ);
  });

  it('counts clients created and deposits made in the period (this month)', async () => {
    const body = (await get('?period=month')).json();
    expect(body.overview).toMatchObject({
      total_clients: 2,
      ftd_clients: 1,
      deposit_count: 2,
      total_deposit_amount: 75,
      conversion_rate: 50,
    });
    expect(body.departments.sales[0]).toEqual(row(staff.s1.id, 'Анна Продажи', 'sales_manager', [1, 0, 50, 1]));
    expect(body.deleted_managers).toEqual([]);
    const alphaRow = body.affiliates.find((a: { name: string }) => a.name === 'Alpha');
    expect(alphaRow).toMatchObject({ clients: 1, ftd: 0, deposit_amount: 50 });
    expect(body.affiliates.find((a: { name: string }) => a.name === 'Beta')).toMatchObject({ clients: 0, ftd: 0 });
    // The six months do not follow the period.
    expect(body.monthly.map((m: { clients: number }) => m.clients)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(body.range.from).toBe(`${months[5]}-01`);
  });

  it('counts an inclusive date range of local days, which wins over the period', async () => {
    const [y, m] = months[4]!.split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const res = await get(`?period=today&date_from=${months[3]}-01&date_to=${months[4]}-${last}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.overview).toMatchObject({
      total_clients: 3,
      ftd_clients: 2,
      deposit_count: 2,
      total_deposit_amount: 400,
    });
    expect(body.range).toEqual({ from: `${months[3]}-01`, to: `${months[4]}-${last}` });
    expect(body.deleted_managers).toEqual([row(staff.s2.id, 'Борис Продажи', 'sales_manager', [1, 0, 300, 1])]);
    // The same leads and deposits through a range that starts and ends inside months (its edge days are read by day).
    const inside = (await get(`?date_from=${months[3]}-05&date_to=${months[4]}-20`)).json();
    expect(inside.overview).toMatchObject({
      total_clients: 3,
      ftd_clients: 2,
      deposit_count: 2,
      total_deposit_amount: 400,
    });
    const narrow = (await get(`?date_from=${months[3]}-11&date_to=${months[4]}-09`)).json();
    expect(narrow.overview).toMatchObject({ total_clients: 0, deposit_count: 0, total_deposit_amount: 0 });
    // Today and the last seven days: the two leads and two deposits made now.
    for (const period of ['today', 'week']) {
      const now = (await get(`?period=${period}`)).json();
      expect(now.overview, period).toMatchObject({
        total_clients: 2,
        ftd_clients: 1,
        deposit_count: 2,
        total_deposit_amount: 75,
      });
    }
  });

  it('filters by managers: clients by their manager now, deposits by the manager they are attributed to', async () => {
    const body = (await get(`?manager_id=${staff.s1.id}`)).json();
    expect(body.overview).toMatchObject({
      total_clients: 2,
      ftd_clients: 1,
      deposit_count: 2,
      total_deposit_amount: 150,
    });
    expect(body.departments).toEqual({
      sales: [row(staff.s1.id, 'Анна Продажи', 'sales_manager', [2, 1, 150, 2])],
      retention: [],
    });
    expect(body.monthly.map((m: { clients: number; deposit_amount: number }) => [m.clients, m.deposit_amount])).toEqual(
      [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [1, 100],
        [1, 50],
      ],
    );
    // A deleted manager's id is allowed: it selects the deposits attributed to them.
    const deleted = (await get(`?manager_id=${staff.s2.id}&manager_id=${staff.r1.id}`)).json();
    expect(deleted.overview).toMatchObject({ total_clients: 1, deposit_count: 2, total_deposit_amount: 500 });
    expect(deleted.deleted_managers).toEqual([row(staff.s2.id, 'Борис Продажи', 'sales_manager', [1, 0, 300, 1])]);
  });

  it('keeps a deposit with the manager who had the client when it was made', async () => {
    const moved = await t.inject({
      method: 'PUT',
      url: `/api/clients/${ids.c1}`,
      token: superadmin,
      payload: { assigned_manager: staff.r1.id },
    });
    expect(moved.statusCode).toBe(200);
    const before = (await get(`?manager_id=${staff.s1.id}`)).json();
    // c1 now counts for r1; c2's two deposits stay with s1.
    expect(before.overview).toMatchObject({ total_clients: 1, deposit_count: 2, total_deposit_amount: 150 });
    const back = await t.inject({
      method: 'PUT',
      url: `/api/clients/${ids.c1}`,
      token: superadmin,
      payload: { assigned_manager: staff.s1.id },
    });
    expect(back.statusCode).toBe(200);
  });

  it('covers a team lead’s department (and the unassigned), a manager’s own clients; no sections for them', async () => {
    const lead = (await get('', staff.tls.token)).json();
    expect(lead.overview).toMatchObject({
      total_clients: 5,
      ftd_clients: 3,
      deposit_count: 4,
      total_deposit_amount: 475,
    });
    expect(lead.departments).toEqual({ sales: [], retention: [] });
    expect(lead.deleted_managers).toEqual([]);
    expect(lead.affiliates).toEqual([]);
    expect(lead.status_breakdown).toEqual([
      { status: 'ftd', clients: 2 },
      { status: 'new', clients: 2 },
      { status: 'in_progress', clients: 1 },
    ]);
    const manager = (await get('', staff.s1.token)).json();
    expect(manager.overview).toMatchObject({
      total_clients: 2,
      ftd_clients: 1,
      deposit_count: 2,
      total_deposit_amount: 150,
    });
    const retentionLead = (await get('', staff.tlr.token)).json();
    // r1's c4 and the unassigned c3, c5, c6.
    expect(retentionLead.overview).toMatchObject({ total_clients: 4, ftd_clients: 3, total_deposit_amount: 525 });
  });

  it('refuses admin (no dashboard), the manager filter to anyone but the superadmin, and bad filters', async () => {
    const admin = await t.userWithToken('admin');
    expect((await get('', admin.token)).statusCode).toBe(403);
    expect((await get(`?manager_id=${staff.s1.id}`, staff.tls.token)).statusCode).toBe(403);
    for (const [query, field] of [
      ['?period=decade', 'period'],
      ['?date_from=2026-03-10&date_to=2026-03-01', 'date_from'],
      ['?date_from=2026-03-10', 'date_to'],
      ['?date_from=2026-13-01&date_to=2026-13-02', 'date_from'],
      ['?manager_id=not-a-uuid', 'manager_id'],
      [`?manager_id=${randomUUID()}`, 'manager_id'],
    ] as const) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().detail, query).toContain(field);
    }
  });
});

describe('the dashboard period in local days', () => {
  it('maps each period and range to inclusive local days, across month and year ends', async () => {
    const { daysOf, localToday } = await import('../src/modules/dashboard/service.js');
    const q = (period: 'all' | 'today' | 'week' | 'month' | 'year', extra: object = {}) =>
      ({ period, ...extra }) as Parameters<typeof daysOf>[0];
    expect(daysOf(q('today'), '2026-03-01')).toEqual({ from: '2026-03-01', to: null });
    expect(daysOf(q('week'), '2026-03-02')).toEqual({ from: '2026-02-24', to: null });
    expect(daysOf(q('week'), '2024-03-02')).toEqual({ from: '2024-02-25', to: null });
    expect(daysOf(q('month'), '2026-12-31')).toEqual({ from: '2026-12-01', to: null });
    expect(daysOf(q('year'), '2026-12-31')).toEqual({ from: '2026-01-01', to: null });
    expect(daysOf(q('all'), '2026-12-31')).toEqual({ from: null, to: null });
    expect(daysOf(q('today', { date_from: '2025-12-30', date_to: '2026-01-02' }), '2026-06-01')).toEqual({
      from: '2025-12-30',
      to: '2026-01-02',
    });
    // 22:30 UTC on 31 December is already 1 January in Kyiv (UTC+2), still 31 December in New York.
    const late = new Date('2026-12-31T22:30:00Z');
    expect(localToday('Europe/Kyiv', late)).toBe('2027-01-01');
    expect(localToday('America/New_York', late)).toBe('2026-12-31');
  });
});
