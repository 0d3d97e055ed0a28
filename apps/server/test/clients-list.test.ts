import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** GET /api/clients and /api/clients/:id: server-side filters, sort and paging, always through the D5 scope. */
describe.each(dbKinds())('clients list on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = (await t.userWithToken('admin')).token;
    managerA = await t.userWithToken('sales_manager');
    managerB = await t.userWithToken('sales_manager');
    // Names that sort A before B (the Manager column sorts by name).
    await t.db.updateTable('users').set({ name: 'Anna Manager' }).where('id', '=', managerA.id).execute();
    await t.db.updateTable('users').set({ name: 'Boris Manager' }).where('id', '=', managerB.id).execute();
    const leads = [
      {
        name: 'Alice Brown',
        email: 'alice@x.test',
        phone: '+380 50 111 2233',
        country: 'Украина',
        status: 'new',
        manager: managerA.id,
        created: '2026-11-01T10:00:00Z',
        extra: { ftd: false, affiliate_id: 7, source: 'import', campaign: 'Autumn - PartnerX' },
      },
      {
        name: 'Bob Stone',
        email: 'bob@x.test',
        phone: '+49 151 555 0000',
        country: 'Germany',
        status: 'ftd',
        manager: managerA.id,
        created: '2026-11-05T21:30:00Z',
        extra: { ftd: true, affiliate_id: 3, source: 'api', campaign: 'Spring - PartnerY' },
      },
      {
        name: 'Carol Alison',
        email: 'carol@y.test',
        phone: '+7 701 123 4567',
        country: 'Казахстан',
        status: 'new',
        manager: managerB.id,
        created: '2026-11-06T10:00:00Z',
        extra: { ftd: false, affiliate_id: null, source: 'Manual', campaign: ' autumn - partnerx' },
      },
      {
        name: '=1+1',
        email: 'formula@y.test',
        phone: '',
        country: 'Germany',
        status: 'fake',
        manager: null,
        created: '2026-11-10T10:00:00Z',
        extra: { ftd: true, affiliate_id: null, source: 'import', campaign: '' },
      },
    ];
    // clients.affiliate_id references an affiliate (lead supply, D13).
    for (const id of [3, 7]) {
      await t.db
        .insertInto('affiliates')
        .values({ id, name: `Partner ${id}` })
        .execute();
    }
    for (const l of leads) {
      const row = await t.db
        .insertInto('clients')
        .values({
          name: l.name,
          email: l.email,
          phone: l.phone,
          country: l.country,
          campaign: l.extra.campaign,
          source: l.extra.source,
          notes: '',
          status: l.status,
          assigned_manager: l.manager,
          affiliate_id: l.extra.affiliate_id,
          ftd: l.extra.ftd,
          user_id: null,
          created_at: l.created,
          registration_date: null,
          last_comment_date: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[l.email] = Number(row.id);
    }
  });
  afterAll(() => t.close());

  const list = async (query: string, token = admin) => {
    const res = await t.inject({ method: 'GET', url: `/api/clients${query}`, token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { items: { email: string; assigned_manager_name: string | null }[]; total: number };
  };
  const emails = (r: { items: { email: string }[] }) => r.items.map((c) => c.email);

  it('defaults to newest first with the total', async () => {
    const r = await list('');
    expect(r.total).toBe(4);
    expect(emails(r)).toEqual(['formula@y.test', 'carol@y.test', 'bob@x.test', 'alice@x.test']);
    expect(r.items[3]!.assigned_manager_name).toBe('Anna Manager');
  });

  it('filters by status, manager (including unassigned), country, date range and search; combines them', async () => {
    expect(emails(await list('?status=ftd'))).toEqual(['bob@x.test']);
    expect(emails(await list('?status=new&status=fake&sort=id&order=asc'))).toEqual([
      'alice@x.test',
      'carol@y.test',
      'formula@y.test',
    ]);
    expect(emails(await list(`?assigned_manager=null`))).toEqual(['formula@y.test']);
    expect(emails(await list(`?assigned_manager=${managerB.id}&assigned_manager=null`))).toEqual([
      'formula@y.test',
      'carol@y.test',
    ]);
    // Country values are whole (the multi-select's options), matched case-insensitively; a part matches nothing.
    expect(emails(await list('?country=gerMANY'))).toEqual(['formula@y.test', 'bob@x.test']);
    expect(emails(await list('?country=germ'))).toEqual([]);
    expect(emails(await list('?country=Germany&country=Казахстан&sort=id&order=asc'))).toHaveLength(3);
    // 21:30 UTC on the 5th is already the 5th at 23:30 in Kyiv: inside a range that ends on the 5th.
    expect(emails(await list('?created_date_from=2026-11-05&created_date_to=2026-11-05'))).toEqual(['bob@x.test']);
    expect(emails(await list('?search=alis'))).toEqual(['carol@y.test']);
    expect(emails(await list('?search=1112233'))).toEqual(['alice@x.test']);
    expect(emails(await list('?search=Y.TEST&status=new'))).toEqual(['carol@y.test']);
    expect(emails(await list('?search=%25'))).toEqual([]);
  });

  it('filters by source (part of it, any case) and campaign (whole values, any case, trimmed); combines them', async () => {
    expect(emails(await list('?source=man'))).toEqual(['carol@y.test']);
    expect(emails(await list('?source=IMPORT&sort=id&order=asc'))).toEqual(['alice@x.test', 'formula@y.test']);
    expect(emails(await list(`?campaign=${encodeURIComponent('AUTUMN - PartnerX')}&sort=id&order=asc`))).toEqual([
      'alice@x.test',
      'carol@y.test',
    ]);
    expect(emails(await list('?campaign=autumn'))).toEqual([]);
    const two = `?campaign=${encodeURIComponent('Autumn - PartnerX')}&campaign=${encodeURIComponent('Spring - PartnerY')}`;
    expect(emails(await list(`${two}&sort=id&order=asc`))).toEqual(['alice@x.test', 'bob@x.test', 'carol@y.test']);
    expect(emails(await list(`${two}&source=import`))).toEqual(['alice@x.test']);
    // A manager's campaign filter stays inside their scope.
    expect(emails(await list(two, managerB.token))).toEqual(['carol@y.test']);
  });

  it('sorts by phone, FTD, affiliate and manager in both directions (id breaks ties; no affiliate / no manager last)', async () => {
    const order = async (sort: string, dir: 'asc' | 'desc') => emails(await list(`?sort=${sort}&order=${dir}`));
    expect(await order('phone', 'asc')).toEqual(['formula@y.test', 'alice@x.test', 'bob@x.test', 'carol@y.test']);
    expect(await order('phone', 'desc')).toEqual(['carol@y.test', 'bob@x.test', 'alice@x.test', 'formula@y.test']);
    expect(await order('ftd', 'asc')).toEqual(['alice@x.test', 'carol@y.test', 'bob@x.test', 'formula@y.test']);
    expect(await order('ftd', 'desc')).toEqual(['formula@y.test', 'bob@x.test', 'carol@y.test', 'alice@x.test']);
    expect(await order('affiliate_id', 'asc')).toEqual([
      'bob@x.test',
      'alice@x.test',
      'carol@y.test',
      'formula@y.test',
    ]);
    expect(await order('affiliate_id', 'desc')).toEqual([
      'alice@x.test',
      'bob@x.test',
      'formula@y.test',
      'carol@y.test',
    ]);
    expect(await order('assigned_manager', 'asc')).toEqual([
      'alice@x.test',
      'bob@x.test',
      'carol@y.test',
      'formula@y.test',
    ]);
    // Descending by name, the unassigned client still comes last.
    expect(await order('assigned_manager', 'desc')).toEqual([
      'carol@y.test',
      'bob@x.test',
      'alice@x.test',
      'formula@y.test',
    ]);
    // Paging keeps the order: page 2 of 3 per page by manager descending is the unassigned client.
    expect(emails(await list('?sort=assigned_manager&order=desc&per_page=3&page=2'))).toEqual(['formula@y.test']);
  });

  it('sorts and pages', async () => {
    expect(emails(await list('?sort=name&order=asc'))).toEqual([
      'formula@y.test',
      'alice@x.test',
      'bob@x.test',
      'carol@y.test',
    ]);
    const page2 = await list('?sort=id&order=asc&per_page=3&page=2');
    expect(page2.total).toBe(4);
    expect(emails(page2)).toEqual(['formula@y.test']);
  });

  it('a manager sees only their clients, and another manager’s client is 404 like a missing one', async () => {
    expect(emails(await list('', managerA.token))).toEqual(['bob@x.test', 'alice@x.test']);
    const own = await t.inject({ method: 'GET', url: `/api/clients/${ids['alice@x.test']}`, token: managerA.token });
    expect(own.statusCode).toBe(200);
    expect(own.json().name).toBe('Alice Brown');
    const other = await t.inject({ method: 'GET', url: `/api/clients/${ids['carol@y.test']}`, token: managerA.token });
    const missing = await t.inject({ method: 'GET', url: '/api/clients/987654', token: managerA.token });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual(missing.json());
  });

  it('refuses bad filters with a detail naming the parameter', async () => {
    for (const q of [
      '?status=unknown',
      '?per_page=1000',
      '?sort=password',
      '?created_date_from=2026-13-01',
      '?assigned_manager=abc',
      '?foo=1',
    ]) {
      const res = await t.inject({ method: 'GET', url: `/api/clients${q}`, token: admin });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().detail, q).toMatch(/status|per_page|sort|created_date_from|assigned_manager|foo/);
    }
  });
});
