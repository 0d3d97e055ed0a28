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
    const leads = [
      {
        name: 'Alice Brown',
        email: 'alice@x.test',
        phone: '+380 50 111 2233',
        country: 'Украина',
        status: 'new',
        manager: managerA.id,
        created: '2026-11-01T10:00:00Z',
      },
      {
        name: 'Bob Stone',
        email: 'bob@x.test',
        phone: '+49 151 555 0000',
        country: 'Germany',
        status: 'ftd',
        manager: managerA.id,
        created: '2026-11-05T21:30:00Z',
      },
      {
        name: 'Carol Alison',
        email: 'carol@y.test',
        phone: '+7 701 123 4567',
        country: 'Казахстан',
        status: 'new',
        manager: managerB.id,
        created: '2026-11-06T10:00:00Z',
      },
      {
        name: '=1+1',
        email: 'formula@y.test',
        phone: '',
        country: 'Germany',
        status: 'fake',
        manager: null,
        created: '2026-11-10T10:00:00Z',
      },
    ];
    for (const l of leads) {
      const row = await t.db
        .insertInto('clients')
        .values({
          name: l.name,
          email: l.email,
          phone: l.phone,
          country: l.country,
          campaign: 'Autumn - PartnerX',
          source: 'import',
          notes: '',
          status: l.status,
          assigned_manager: l.manager,
          affiliate_id: null,
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
    expect(r.items[3]!.assigned_manager_name).toMatch(/^Test sales_manager/);
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
    expect(emails(await list('?country=germ'))).toEqual(['formula@y.test', 'bob@x.test']);
    // 21:30 UTC on the 5th is already the 5th at 23:30 in Kyiv: inside a range that ends on the 5th.
    expect(emails(await list('?created_date_from=2026-11-05&created_date_to=2026-11-05'))).toEqual(['bob@x.test']);
    expect(emails(await list('?search=alis'))).toEqual(['carol@y.test']);
    expect(emails(await list('?search=1112233'))).toEqual(['alice@x.test']);
    expect(emails(await list('?search=Y.TEST&status=new'))).toEqual(['carol@y.test']);
    expect(emails(await list('?search=%25'))).toEqual([]);
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
