import type { Role } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeClients } from '../src/platform/access/client-scope.js';
import { actorFromUser } from '../src/platform/auth/actor.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** decisions.md D5 through the one scope helper, and through the dashboard that counts with it. */
describe.each(dbKinds())('client scope (D5) on %s', (kind) => {
  let t: TestApp;
  const staff = new Map<string, { id: string; email: string }>();
  const clientNames = new Map<string, string>(); // client name → owner key

  beforeAll(async () => {
    t = await createTestApp(kind);
    const roles: [string, Role][] = [
      ['superadmin', 'superadmin'],
      ['admin', 'admin'],
      ['tls', 'team_lead_sales'],
      ['tlr', 'team_lead_retention'],
      ['sm1', 'sales_manager'],
      ['sm2', 'sales_manager'],
      ['rm1', 'retention_manager'],
      ['legacy', 'manager'],
    ];
    for (const [key, role] of roles) staff.set(key, await t.createUser(role));
    const owners: [string, string | null][] = [
      ['A', 'sm1'],
      ['B', 'sm1'],
      ['C', 'sm2'],
      ['D', 'rm1'],
      ['E', 'legacy'],
      ['F', null],
      ['G', 'tlr'],
    ];
    for (const [name, owner] of owners) {
      await t.db
        .insertInto('clients')
        .values({
          name,
          email: `${name.toLowerCase()}@lead.test`,
          phone: '',
          country: '',
          campaign: '',
          source: '',
          notes: '',
          status: 'new',
          assigned_manager: owner ? staff.get(owner)!.id : null,
          affiliate_id: null,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
        })
        .execute();
      clientNames.set(name, owner ?? 'none');
    }
  });
  afterAll(() => t.close());

  async function visibleTo(key: string): Promise<string[]> {
    const user = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', staff.get(key)!.id)
      .executeTakeFirstOrThrow();
    const rows = await scopeClients(t.db.selectFrom('clients').select('name'), actorFromUser(user, '127.0.0.1'))
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  it('superadmin and admin see every client', async () => {
    expect(await visibleTo('superadmin')).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G']);
    expect(await visibleTo('admin')).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G']);
  });

  it('a team lead sees the clients of their department and the unassigned ones', async () => {
    // sales: sm1, sm2 and the legacy manager (sales department); F is unassigned
    expect(await visibleTo('tls')).toEqual(['A', 'B', 'C', 'E', 'F']);
    // retention: rm1 and the team lead's own client
    expect(await visibleTo('tlr')).toEqual(['D', 'F', 'G']);
  });

  it('a manager sees only the clients assigned to them', async () => {
    expect(await visibleTo('sm1')).toEqual(['A', 'B']);
    expect(await visibleTo('sm2')).toEqual(['C']);
    expect(await visibleTo('rm1')).toEqual(['D']);
    expect(await visibleTo('legacy')).toEqual(['E']);
  });

  it('the dashboard counts only the clients in scope', async () => {
    const token = await t.login(staff.get('sm1')!.email);
    const res = await t.inject({ method: 'GET', url: '/api/dashboard', token });
    expect(res.statusCode).toBe(200);
    expect(res.json().overview.total_clients).toBe(2);
    const lead = await t.login(staff.get('tls')!.email);
    const res2 = await t.inject({ method: 'GET', url: '/api/dashboard?period=today', token: lead });
    expect(res2.json().overview.total_clients).toBe(5);
    expect(res2.json().timezone.timezone).toBe('Europe/Kyiv');
  });
});
