import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/**
 * The dashboard's daily rollups (migration 0015) are kept by triggers in the transactions that change clients and
 * deposits. Property: after any sequence of creates, imports, assignments (one and bulk), status and campaign changes,
 * affiliate changes, deposits, deposit edits and deletions, and staff deletions — through the API where the product
 * does it, by one multi-row statement where an import does — the rollups equal a recomputation from the raw tables.
 */
const STATUSES = ['new', 'in_progress', 'potential', 'ftd'] as const;
const CAMPAIGNS = ['', 'Spring', 'Promo - Gamma', 'Search - Beta', 'Autumn'] as const;

const op = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), pick: fc.nat(), days: fc.nat({ max: 90 }) }),
  fc.record({ kind: fc.constant('import' as const), pick: fc.nat(), rows: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('assign' as const), pick: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('bulk' as const), pick: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('status' as const), pick: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('campaign' as const), pick: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('affiliate' as const), pick: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('deposit' as const), pick: fc.nat(), cents: fc.integer({ min: 1, max: 500_000 }) }),
  fc.record({ kind: fc.constant('editDeposit' as const), pick: fc.nat(), cents: fc.integer({ min: 1, max: 500_000 }) }),
  fc.record({ kind: fc.constant('deleteDeposit' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('backdate' as const), pick: fc.nat(), days: fc.nat({ max: 90 }) }),
  fc.record({ kind: fc.constant('deleteStaff' as const), pick: fc.nat() }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

describe.each(dbKinds())('dashboard rollups on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  const managers: string[] = [];
  const affiliates: number[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind, { BUSINESS_TIMEZONE: 'Asia/Almaty' });
    admin = (await t.userWithToken('superadmin')).token;
    for (const role of ['sales_manager', 'retention_manager', 'team_lead_sales'] as const) {
      managers.push((await t.createUser(role)).id);
    }
    for (const name of ['Alpha', 'Beta']) {
      affiliates.push(
        Number((await t.db.insertInto('affiliates').values({ name }).returning('id').executeTakeFirstOrThrow()).id),
      );
    }
  });
  afterAll(() => t.close());

  const clientIds = async () =>
    (await t.db.selectFrom('clients').select('id').orderBy('id').execute()).map((r) => Number(r.id));
  const depositIds = async () =>
    (await t.db.selectFrom('deposits').select('id').where('deleted_at', 'is', null).orderBy('id').execute()).map((r) =>
      Number(r.id),
    );
  const at = <T>(list: T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);
  const managerOf = (i: number) => (i % 4 === 3 ? null : (managers[i % managers.length] ?? null));
  const leadRow = (pick: number, days: number) => ({
    name: `Lead ${randomUUID().slice(0, 6)}`,
    email: `${randomUUID().slice(0, 8)}@rollup.test`,
    phone: '',
    country: 'KZ',
    campaign: CAMPAIGNS[pick % CAMPAIGNS.length]!,
    source: 'test',
    notes: '',
    status: STATUSES[pick % STATUSES.length]!,
    assigned_manager: managerOf(pick),
    affiliate_id: pick % 3 === 0 ? (affiliates[pick % 2] ?? null) : null,
    user_id: null,
    registration_date: null,
    last_comment_date: null,
    created_at: new Date(Date.now() - days * 86_400_000 - (pick % 86_400) * 1000),
  });
  const call = async (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) => {
    const res = await t.inject({ method, url, token: admin, ...(payload ? { payload } : {}) });
    // A refusal the product makes (a deposit edit the balance cannot take, say) is fine; a 5xx is not.
    expect(res.statusCode, `${method} ${url} ${res.body}`).toBeLessThan(500);
  };

  async function run(o: Op): Promise<void> {
    const clients = await clientIds();
    switch (o.kind) {
      case 'create':
        await t.db.insertInto('clients').values(leadRow(o.pick, o.days)).execute();
        return;
      case 'import':
        await t.db
          .insertInto('clients')
          .values(Array.from({ length: o.rows }, (_, i) => leadRow(o.pick + i, (o.pick + i) % 60)))
          .execute();
        return;
      case 'assign': {
        const id = at(clients, o.pick);
        if (id) await call('PUT', `/api/clients/${id}`, { assigned_manager: managerOf(o.to) });
        return;
      }
      case 'bulk': {
        const ids = clients.filter((_, i) => (i + o.pick) % 3 === 0).slice(0, 20);
        if (ids.length > 0) {
          await call('POST', '/api/clients/bulk-assign-manager', {
            client_ids: ids,
            assigned_manager: managerOf(o.to),
            ...(o.to % 2 === 0 ? { status: STATUSES[o.to % STATUSES.length] } : {}),
          });
        }
        return;
      }
      case 'status': {
        const id = at(clients, o.pick);
        if (id) await call('PUT', `/api/clients/${id}`, { status: STATUSES[o.to % STATUSES.length] });
        return;
      }
      case 'campaign': {
        const id = at(clients, o.pick);
        if (id) await call('PUT', `/api/clients/${id}`, { campaign: CAMPAIGNS[o.to % CAMPAIGNS.length] });
        return;
      }
      case 'affiliate': {
        const id = at(clients, o.pick);
        if (id) {
          await t.db
            .updateTable('clients')
            .set({ affiliate_id: o.to % 3 === 0 ? null : (affiliates[o.to % 2] ?? null) })
            .where('id', '=', id)
            .execute();
        }
        return;
      }
      case 'deposit': {
        const id = at(clients, o.pick);
        if (id) await call('POST', '/api/deposits', { client_id: id, amount: o.cents / 100 });
        return;
      }
      case 'editDeposit': {
        const id = at(await depositIds(), o.pick);
        if (id) await call('PUT', `/api/deposits/${id}`, { amount: o.cents / 100 });
        return;
      }
      case 'deleteDeposit': {
        const id = at(await depositIds(), o.pick);
        if (id) await call('DELETE', `/api/deposits/${id}`);
        return;
      }
      case 'backdate': {
        const id = at(await depositIds(), o.pick);
        if (id) {
          await t.db
            .updateTable('deposits')
            .set({ created_at: new Date(Date.now() - o.days * 86_400_000) })
            .where('id', '=', id)
            .execute();
        }
        return;
      }
      case 'deleteStaff': {
        const i = o.pick % managers.length;
        await call('DELETE', `/api/users/${managers[i]}`);
        managers[i] = (await t.createUser(i === 1 ? 'retention_manager' : 'sales_manager')).id;
        return;
      }
    }
  }

  /** The rollups' non-zero rows, and the same figures computed from the raw tables, in one order. */
  async function compare(): Promise<void> {
    const clientKey = 'day, assigned_manager, affiliate_id, suffix, campaign, status, ftd';
    const rolledClients = await sql`select ${sql.raw(clientKey)}, clients from dashboard_clients_daily
        where clients <> 0 order by ${sql.raw(clientKey)}`.execute(t.db);
    const rawClients = await sql`select (c.created_at at time zone s.timezone)::date as day, c.assigned_manager,
          c.affiliate_id, dashboard_suffix(c.affiliate_id, c.campaign) as suffix,
          dashboard_campaign(c.affiliate_id, c.campaign) as campaign, c.status, c.ftd, count(*)::int as clients
        from clients c cross join dashboard_settings s group by 1, 2, 3, 4, 5, 6, 7
        order by ${sql.raw(clientKey)}`.execute(t.db);
    expect(rolledClients.rows).toEqual(rawClients.rows);
    const depositKey = 'day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign';
    const rolledDeposits = await sql`select ${sql.raw(depositKey)}, deposits, cents::bigint as cents
        from dashboard_deposits_daily where deposits <> 0 or cents <> 0 order by ${sql.raw(depositKey)}`.execute(t.db);
    const rawDeposits = await sql`select (d.created_at at time zone s.timezone)::date as day, d.attributed_manager,
          c.assigned_manager, c.affiliate_id, dashboard_suffix(c.affiliate_id, c.campaign) as suffix,
          dashboard_campaign(c.affiliate_id, c.campaign) as campaign, count(*)::int as deposits,
          sum(d.amount_cents)::bigint as cents
        from deposits d join clients c on c.id = d.client_id cross join dashboard_settings s
        where d.deleted_at is null group by 1, 2, 3, 4, 5, 6 order by ${sql.raw(depositKey)}`.execute(t.db);
    expect(rolledDeposits.rows).toEqual(rawDeposits.rows);
    // Each month row is the sum of its days.
    const monthlyClients = await sql`select ${sql.raw(clientKey)}, clients from dashboard_clients_monthly
        where clients <> 0 order by ${sql.raw(clientKey)}`.execute(t.db);
    const summedClients =
      await sql`select date_trunc('month', day)::date as day, assigned_manager, affiliate_id, suffix,
          campaign, status, ftd, sum(clients)::int as clients
        from dashboard_clients_daily group by 1, 2, 3, 4, 5, 6, 7 having sum(clients) <> 0
        order by ${sql.raw(clientKey)}`.execute(t.db);
    expect(monthlyClients.rows).toEqual(summedClients.rows);
    const monthlyDeposits = await sql`select ${sql.raw(depositKey)}, deposits, cents::bigint as cents
        from dashboard_deposits_monthly where deposits <> 0 or cents <> 0 order by ${sql.raw(depositKey)}`.execute(
      t.db,
    );
    const summedDeposits = await sql`select date_trunc('month', day)::date as day, attributed_manager, assigned_manager,
          affiliate_id, suffix, campaign, sum(deposits)::int as deposits, sum(cents)::bigint as cents
        from dashboard_deposits_daily group by 1, 2, 3, 4, 5, 6 having sum(deposits) <> 0 or sum(cents) <> 0
        order by ${sql.raw(depositKey)}`.execute(t.db);
    expect(monthlyDeposits.rows).toEqual(summedDeposits.rows);
  }

  it('equal a recomputation from the raw tables after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        for (const o of ops) await run(o);
        await compare();
      }),
      { numRuns: 25, seed: 20261125, endOnFailure: true },
    );
    // The sequences did reach every kind of row.
    const counts = await sql<{ clients: number; deposits: number; deleted: number }>`select
        (select count(*)::int from clients) as clients,
        (select count(*)::int from deposits) as deposits,
        (select count(*)::int from deposits where deleted_at is not null) as deleted`.execute(t.db);
    expect(counts.rows[0]!.clients).toBeGreaterThan(50);
    expect(counts.rows[0]!.deposits).toBeGreaterThan(10);
    expect(counts.rows[0]!.deleted).toBeGreaterThan(0);
  }, 300_000);

  it('are rebuilt for another business time zone, and equal the raw tables counted in it', async () => {
    const { syncDashboardTimezone } = await import('../src/modules/dashboard/service.js');
    expect(await syncDashboardTimezone(t.db, 'America/New_York')).toBe(true);
    expect(await syncDashboardTimezone(t.db, 'America/New_York')).toBe(false);
    await compare();
    expect(await syncDashboardTimezone(t.db, 'Asia/Almaty')).toBe(true);
    await compare();
  });
});
