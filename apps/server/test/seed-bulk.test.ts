import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { MANAGER_ROLES, normalisePhone } from '@brokerage/shared';
import { reconcile } from '../src/modules/ledger/service.js';
import { runCli } from '../src/cli.js';
import { BulkSeedRefused, seedBulk, type BulkSeedResult } from '../src/seed/bulk.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const CLIENTS = 2000;

/** npm run seed:bulk (seed/bulk.ts): a realistic, money-consistent lead base written set-based, usable by the list. */
describe.each(dbKinds())('bulk lead seeding on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let result: BulkSeedResult;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = (await t.userWithToken('admin')).token;
    result = await seedBulk(t.db, { clients: CLIENTS, chunk: 700, progress: (l) => lines.push(l) });
  }, 120_000);
  afterAll(() => t.close());

  it('writes the leads, a few dozen managers, deposits and comments, and prints progress', async () => {
    expect(result).toMatchObject({ clients: CLIENTS, firstId: 1, lastId: CLIENTS });
    const count = async (table: 'clients' | 'deposits' | 'comments') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select(sql<string>`count(*)`.as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('clients')).toBe(CLIENTS);
    expect(await count('deposits')).toBe(result.deposits);
    expect(await count('comments')).toBe(result.comments);
    const staff = await t.db
      .selectFrom('users')
      .select(['role', 'department'])
      .where('email', 'like', 'bulk.%@bulk.local')
      .execute();
    expect(staff.length).toBeGreaterThanOrEqual(24);
    expect(staff.every((s) => MANAGER_ROLES.includes(s.role as never) && s.department !== null)).toBe(true);
    // Three chunks (700 + 700 + 600) each reported.
    expect(lines.filter((l) => l.startsWith('clients ')).length).toBe(3);
    expect(lines.some((l) => l.startsWith(`clients ${CLIENTS.toLocaleString('en')}/`))).toBe(true);
  });

  it('spreads the leads realistically: statuses, countries, languages, managers, dates', async () => {
    const statuses = await t.db
      .selectFrom('clients')
      .select(['status', sql<string>`count(*)`.as('n')])
      .groupBy('status')
      .orderBy(sql`count(*)`, 'desc')
      .execute();
    expect(statuses.length).toBeGreaterThanOrEqual(9);
    expect(statuses[0]!.status).toBe('new');
    const countries = await t.db.selectFrom('clients').select('country').distinct().execute();
    expect(countries.length).toBeGreaterThanOrEqual(8);
    const stats = await sql<{
      cyrillic: string;
      latin: string;
      kazakh: string;
      unassigned: string;
      depositing: string;
      emails: string;
      phones: string;
      days: number;
      campaigns: string;
    }>`
      select count(*) filter (where name ~ '^[А-ЯЁӘҒҚҢӨҰҮҺІа-яёәғқңөұүһі ]+$') as cyrillic,
             count(*) filter (where name ~ '^[A-Za-zÀ-ÿ'' ]+$') as latin,
             count(*) filter (where name ~ '[әғқңөұүһі]') as kazakh,
             count(*) filter (where assigned_manager is null) as unassigned,
             count(*) filter (where ftd) as depositing,
             count(*) filter (where email ~ '^[a-z0-9._]+@[a-z0-9.-]+\\.[a-z]+$') as emails,
             count(*) filter (where phone ~ '^\\+[0-9]' and length(regexp_replace(phone, '\\D', '', 'g')) between 10 and 13) as phones,
             extract(day from max(created_at) - min(created_at))::int as days,
             count(distinct campaign) as campaigns
      from clients`.execute(t.db);
    const s = stats.rows[0]!;
    const share = (v: string) => Number(v) / CLIENTS;
    expect(share(s.cyrillic)).toBeGreaterThan(0.55);
    expect(share(s.latin)).toBeGreaterThan(0.2);
    expect(Number(s.kazakh)).toBeGreaterThan(0);
    expect(Number(s.cyrillic) + Number(s.latin)).toBe(CLIENTS);
    expect(share(s.unassigned)).toBeGreaterThan(0.08);
    expect(share(s.unassigned)).toBeLessThan(0.22);
    expect(share(s.depositing)).toBeGreaterThan(0.04);
    expect(share(s.depositing)).toBeLessThan(0.13);
    expect(Number(s.emails)).toBe(CLIENTS);
    expect(Number(s.phones)).toBe(CLIENTS);
    expect(s.days).toBeGreaterThan(400);
    expect(Number(s.campaigns)).toBeGreaterThanOrEqual(10);
  });

  it('stores each phone also as E.164, as normalisePhone reads it (D17), and partner leads carry their affiliate', async () => {
    const all = await t.db.selectFrom('clients').select(['phone', 'phone_e164', 'source', 'affiliate_id']).execute();
    expect(all.filter((c) => c.phone_e164 !== normalisePhone(c.phone, 'KZ'))).toEqual([]);
    const partners = all.filter((c) => c.source.startsWith('partner:'));
    expect(partners.length).toBeGreaterThan(0);
    const affiliates = await t.db.selectFrom('affiliates').select(['id', 'name']).execute();
    const nameOf = new Map(affiliates.map((a) => [Number(a.id), a.name]));
    expect(partners.every((c) => `partner:${nameOf.get(Number(c.affiliate_id))}` === c.source)).toBe(true);
    expect(all.filter((c) => !c.source.startsWith('partner:') && c.affiliate_id !== null)).toEqual([]);
  });

  it('keeps deposits as the deposits service keeps them, and the ledger reconciles', async () => {
    const bad = await sql<{ n: string }>`
      select count(*) as n from clients c
      where c.ftd <> exists (select 1 from deposits d where d.client_id = c.id and d.deleted_at is null)
         or c.total_deposits_cents <> (select coalesce(sum(amount_cents), 0) from deposits d
                                       where d.client_id = c.id and d.deleted_at is null)
         or (c.ftd and (select d.deposit_type from deposits d where d.client_id = c.id and d.deleted_at is null
                        order by d.created_at, d.id limit 1) <> 'ftd')
         or (select count(*) from deposits d where d.client_id = c.id and d.deposit_type = 'ftd') > 1`.execute(t.db);
    expect(Number(bad.rows[0]!.n)).toBe(0);
    // The leads have no trading account, so their deposits wait uncredited (D3) and no balance moved.
    const credited = await t.db
      .selectFrom('deposits')
      .select(sql<string>`count(*)`.as('n'))
      .where('credited_at', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(credited.n)).toBe(0);
    expect(await reconcile(t.db)).toEqual([]);
    if (t.cliEnv) {
      const out: string[] = [];
      expect(await runCli(['reconcile-ledger'], { ...t.cliEnv, LOG_LEVEL: 'silent' }, (l) => out.push(l))).toBe(0);
      expect(out.join('\n')).toContain('Ledger reconciled');
    }
  });

  it('serves the seeded base through GET /api/clients: paging, search by name and phone, a manager filter', async () => {
    const page = await t.inject({ method: 'GET', url: '/api/clients?per_page=50', token: admin });
    expect(page.statusCode).toBe(200);
    const body = page.json() as { total: number; items: { id: number; name: string; phone: string }[] };
    expect(body.total).toBe(CLIENTS);
    expect(body.items).toHaveLength(50);
    expect(body.items[0]!.id).toBe(CLIENTS);

    const surname = body.items[0]!.name.split(' ')[1]!.slice(0, 5);
    const byName = await t.inject({
      method: 'GET',
      url: `/api/clients?search=${encodeURIComponent(surname)}`,
      token: admin,
    });
    const named = byName.json() as { total: number; items: { name: string; email: string; phone: string }[] };
    expect(named.total).toBeGreaterThan(0);
    expect(
      named.items.every((c) => `${c.name} ${c.email} ${c.phone}`.toLowerCase().includes(surname.toLowerCase())),
    ).toBe(true);

    const digits = body.items[3]!.phone.replace(/\D/g, '').slice(-6, -2);
    const byPhone = await t.inject({ method: 'GET', url: `/api/clients?search=${digits}`, token: admin });
    const phoned = byPhone.json() as { total: number; items: { phone: string }[] };
    expect(phoned.total).toBeGreaterThan(0);
    expect(phoned.items.some((c) => c.phone.replace(/\D/g, '').includes(digits))).toBe(true);

    const manager = await t.db
      .selectFrom('clients')
      .select('assigned_manager')
      .where('assigned_manager', 'is not', null)
      .executeTakeFirstOrThrow();
    const mine = await t.inject({
      method: 'GET',
      url: `/api/clients?assigned_manager=${manager.assigned_manager}&page=2&per_page=10`,
      token: admin,
    });
    const assigned = mine.json() as { total: number; items: { assigned_manager: string }[] };
    expect(assigned.total).toBeGreaterThan(10);
    expect(assigned.items.every((c) => c.assigned_manager === manager.assigned_manager)).toBe(true);
  });

  it('refuses a base that has clients unless told to append; appending continues the ids and the app after it', async () => {
    await expect(seedBulk(t.db, { clients: 10 })).rejects.toThrow(BulkSeedRefused);
    const more = await seedBulk(t.db, { clients: 100, append: true });
    expect(more).toMatchObject({ firstId: CLIENTS + 1, lastId: CLIENTS + 100 });
    // The same managers are reused, not created again.
    const staff = await t.db
      .selectFrom('users')
      .select(sql<string>`count(*)`.as('n'))
      .where('email', 'like', 'bulk.%@bulk.local')
      .executeTakeFirstOrThrow();
    expect(Number(staff.n)).toBe(result.staff);
    const created = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: admin,
      payload: { name: 'After Bulk', email: 'after.bulk@x.test', phone: '+77010000000', country: 'Kazakhstan' },
    });
    expect(created.statusCode).toBe(201);
    expect((created.json() as { id: number }).id).toBe(CLIENTS + 101);
  });
});

describe('npm run seed:bulk', () => {
  it('refuses to run without DATABASE_URL and says why', () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const run = spawnSync('npx', ['tsx', 'apps/server/src/seed/bulk-cli.ts', '--clients', '10'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('seed:bulk needs DATABASE_URL');
    expect(run.stderr).toContain('PGlite');
  }, 60_000);
});
