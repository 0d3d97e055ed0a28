import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS_COUNT_CAP } from '../src/modules/clients/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/**
 * The clients list's total at any size (issue 12, item 3): exact from the rollups for the default view, status,
 * manager and creation dates, in every scope; for any other filter exact up to 10,000 matches and then honestly
 * 'more than 10,000' (`total_capped`), with the pages still served.
 */
describe.each(dbKinds())('the clients list total on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let lead: { id: string; token: string };
  let manager: { id: string; token: string };
  const N = CLIENTS_COUNT_CAP + 150;
  const TZ = 'Asia/Almaty';

  const list = async (qs: string, token = admin) => {
    const res = await t.inject({ method: 'GET', url: `/api/clients?${qs}`, token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { total: number; total_capped: boolean; items: { id: number; name: string }[] };
  };
  const sqlCount = async (where: string) =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from clients c where ${sql.raw(where)}`.execute(t.db)).rows[0]!.n,
    );

  beforeAll(async () => {
    t = await createTestApp(kind, { BUSINESS_TIMEZONE: TZ });
    admin = (await t.userWithToken('admin')).token;
    lead = await t.userWithToken('team_lead_sales');
    manager = await t.userWithToken('sales_manager');
    // N leads in one statement (the rollup triggers run as they would for an import): every 3rd the manager's,
    // every 5th unassigned... statuses in turn, created over the last 40 days in the business zone.
    await sql`
      insert into clients (name, email, phone, country, status, assigned_manager, created_at, updated_at)
      select 'Lead ' || g, 'lead' || g || '@count.test', '+7701' || lpad(g::text, 7, '0'), 'Kazakhstan',
             (array['new','potential','ftd','no_answer'])[1 + g % 4],
             case when g % 3 = 0 then ${manager.id}::uuid end,
             now() - (g % 40) * interval '1 day', now()
      from generate_series(1, ${N}) g`.execute(t.db);
  });
  afterAll(() => t.close());

  it('the default view counts every lead exactly, above the cap too', async () => {
    const all = await list('');
    expect(all).toMatchObject({ total: N, total_capped: false });
    expect(all.items).toHaveLength(50);
  });

  it('status, manager and creation-date filters are exact and equal a count of the rows', async () => {
    expect(await list('status=potential')).toMatchObject({
      total: await sqlCount(`status = 'potential'`),
      total_capped: false,
    });
    expect(await list(`assigned_manager=${manager.id}`)).toMatchObject({
      total: await sqlCount(`assigned_manager = '${manager.id}'`),
      total_capped: false,
    });
    expect(await list('assigned_manager=null&status=ftd&status=new')).toMatchObject({
      total: await sqlCount(`assigned_manager is null and status in ('ftd', 'new')`),
    });
    const day = (back: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date(Date.now() - back * 86400_000));
    const tz = TZ;
    const ranged = await list(`created_date_from=${day(10)}&created_date_to=${day(5)}`);
    expect(ranged.total).toBe(
      await sqlCount(`(created_at at time zone '${tz}')::date between '${day(10)}'::date and '${day(5)}'::date`),
    );
    expect(ranged.total).toBeGreaterThan(0);
    // Scope (D5): a manager's total is their clients, a sales team lead's their department's and the unassigned.
    expect(await list('', manager.token)).toMatchObject({
      total: await sqlCount(`assigned_manager = '${manager.id}'`),
    });
    expect((await list('', lead.token)).total).toBe(
      await sqlCount(`assigned_manager is null or assigned_manager = '${manager.id}'`),
    );
  });

  it('a search matching more than 10,000 says so, and its pages are still served', async () => {
    const many = await list('search=Lead');
    expect(many).toMatchObject({ total: CLIENTS_COUNT_CAP, total_capped: true });
    expect(many.items).toHaveLength(50);
    const deep = await list('search=Lead&page=150&per_page=50');
    expect(deep.items).toHaveLength(50);
    // Below the cap a search is exact.
    const few = await list('search=Lead 12');
    expect(few).toMatchObject({ total: await sqlCount(`name ilike '%Lead 12%'`), total_capped: false });
    expect(few.total).toBeGreaterThan(0);
    expect(await list('search=nobody-here')).toMatchObject({ total: 0, total_capped: false, items: [] });
  });
});
