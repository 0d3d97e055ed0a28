import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** POST /api/clients, PUT /api/clients/:id, POST /api/clients/bulk-assign-manager: validation, permission, scope, audit. */
describe.each(dbKinds())('writing clients on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };
  let superadmin: { id: string; token: string };
  let leadSales: { id: string; token: string };
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  let retention: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.userWithToken('admin');
    superadmin = await t.userWithToken('superadmin');
    leadSales = await t.userWithToken('team_lead_sales');
    managerA = await t.userWithToken('sales_manager');
    managerB = await t.userWithToken('sales_manager');
    retention = await t.userWithToken('retention_manager');
  });
  afterAll(() => t.close());

  const create = (token: string, payload: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: '/api/clients', token, payload });
  const lead = (n: number) => ({
    name: ` Lead ${n} `,
    email: `Lead${n}@X.test`,
    phone: '+380501112233',
    country: 'Украина',
  });

  it('creates a client with status new by default, trimmed, and audits it', async () => {
    const res = await create(admin.token, { ...lead(1), campaign: 'Autumn' });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      name: 'Lead 1',
      email: 'lead1@x.test',
      status: 'new',
      campaign: 'Autumn',
      ftd: false,
      total_deposits: 0,
      assigned_manager: null,
    });
    const audit = (await t.auditRows('client.create')).find((r) => r.entity_id === String(c.id));
    expect(audit?.actor_id).toBe(admin.id);
    const withStatus = await create(admin.token, { ...lead(2), status: 'potential' });
    expect(withStatus.json().status).toBe('potential');
  });

  it('a manager’s new client is assigned to them and stays in their scope', async () => {
    const res = await create(managerA.token, lead(3));
    expect(res.statusCode).toBe(201);
    expect(res.json().assigned_manager).toBe(managerA.id);
    const own = await t.inject({ method: 'GET', url: `/api/clients/${res.json().id}`, token: managerA.token });
    expect(own.statusCode).toBe(200);
  });

  it('answers missing or blank required fields with "Обязательное поле" / "Required field" per field', async () => {
    const res = await create(admin.token, { name: '  ', email: '', phone: ' ' });
    expect(res.statusCode).toBe(400);
    for (const field of ['name', 'email', 'phone', 'country'])
      expect(res.json().detail).toContain(`${field}: Обязательное поле`);
    const en = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: admin.token,
      payload: { ...lead(4), country: '' },
      headers: { 'accept-language': 'en' },
    });
    expect(en.json().detail).toBe('country: Required field');
    const badEmail = await create(admin.token, { ...lead(4), email: 'not-an-email' });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().detail).toContain('email');
    const badStatus = await create(admin.token, { ...lead(4), status: 'vip' });
    expect(badStatus.json().detail).toContain('status');
    const derived = await create(admin.token, { ...lead(4), ftd: true });
    expect(derived.statusCode).toBe(400);
    expect(derived.json().detail).toContain('ftd');
  });

  it('updates fields, audits before and after, and refuses derived fields', async () => {
    const id = (await create(admin.token, lead(5))).json().id as number;
    const res = await t.inject({
      method: 'PUT',
      url: `/api/clients/${id}`,
      token: admin.token,
      payload: { name: 'Renamed', status: 'in_progress', notes: 'Звонить вечером', source: 'fb' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Renamed',
      status: 'in_progress',
      notes: 'Звонить вечером',
      source: 'fb',
    });
    const audit = (await t.auditRows('client.update')).filter((r) => r.entity_id === String(id)).at(-1)!;
    expect(audit.before).toMatchObject({ name: 'Lead 5', status: 'new' });
    expect(audit.after).toMatchObject({ name: 'Renamed', status: 'in_progress' });
    for (const payload of [{}, { total_deposits: 5 }, { name: '' }, { status: 'x' }, { assigned_manager: 'nope' }]) {
      const bad = await t.inject({ method: 'PUT', url: `/api/clients/${id}`, token: admin.token, payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const missing = await t.inject({
      method: 'PUT',
      url: '/api/clients/987654',
      token: admin.token,
      payload: { name: 'X' },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('changes the manager only with clients.change_manager, to a live staff member', async () => {
    const id = (await create(managerA.token, lead(6))).json().id as number;
    const put = (token: string, payload: Record<string, unknown>) =>
      t.inject({ method: 'PUT', url: `/api/clients/${id}`, token, payload });
    // The manager may save the card with its manager unchanged, not move the client to someone else.
    expect((await put(managerA.token, { assigned_manager: managerA.id, notes: 'ok' })).statusCode).toBe(200);
    const refused = await put(managerA.token, { assigned_manager: managerB.id });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toBe('Недостаточно прав для смены ответственного менеджера');
    const before = await t.auditCount('client.update');
    const moved = await put(admin.token, { assigned_manager: managerB.id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().assigned_manager).toBe(managerB.id);
    expect(await t.auditCount('client.update')).toBe(before + 1);
    const audit = (await t.auditRows('client.update')).at(-1)!;
    expect(audit.before).toEqual({ assigned_manager: managerA.id });
    expect(audit.after).toEqual({ assigned_manager: managerB.id });
    // Now out of manager A's scope: 404 like a missing client, for reading and writing.
    expect((await put(managerA.token, { notes: 'x' })).statusCode).toBe(404);
    const deleted = await t.createUser('sales_manager');
    await t.db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', deleted.id).execute();
    const client = await t.createUser('client');
    for (const bad of [deleted.id, client.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await put(admin.token, { assigned_manager: bad });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('manager_not_found');
    }
    expect((await put(leadSales.token, { assigned_manager: null })).statusCode).toBe(200);
  });

  it('bulk-assigns the manager and status of the clients in scope, in one go, audited per client', async () => {
    const ids: number[] = [];
    for (let n = 10; n < 13; n++) ids.push((await create(admin.token, lead(n))).json().id as number);
    const outOfScope = (await create(retention.token, lead(13))).json().id as number;
    const before = await t.auditCount('client.bulk_assign');
    const res = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: leadSales.token,
      payload: { client_ids: [...ids, outOfScope, 987654], assigned_manager: managerB.id, status: 'in_progress' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ updated: 3 });
    const rows = await t.db
      .selectFrom('clients')
      .select(['id', 'assigned_manager', 'status'])
      .where('id', 'in', [...ids, outOfScope])
      .orderBy('id')
      .execute();
    expect(rows.slice(0, 3).every((r) => r.assigned_manager === managerB.id && r.status === 'in_progress')).toBe(true);
    expect(rows[3]!.assigned_manager).toBe(retention.id);
    expect(await t.auditCount('client.bulk_assign')).toBe(before + 3);
    const audit = (await t.auditRows('client.bulk_assign')).at(-1)!;
    expect(audit.before).toEqual({ assigned_manager: null, status: 'new' });
    expect(audit.after).toEqual({ assigned_manager: managerB.id, status: 'in_progress' });

    // Clearing the manager without a status keeps the status.
    const cleared = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: ids, assigned_manager: null },
    });
    expect(cleared.json()).toEqual({ updated: 3 });
    const after = await t.db
      .selectFrom('clients')
      .select(['assigned_manager', 'status'])
      .where('id', '=', ids[0]!)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ assigned_manager: null, status: 'in_progress' });
  });

  it('refuses bulk assign to roles without clients.bulk_assign, an empty selection and a dead manager', async () => {
    for (const token of [admin.token, managerA.token]) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/clients/bulk-assign-manager',
        token,
        payload: { client_ids: [1], assigned_manager: null },
      });
      expect(res.statusCode).toBe(403);
    }
    const empty = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: [], assigned_manager: null },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().detail).toContain('client_ids');
    const noManager = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: [1] },
    });
    expect(noManager.json().detail).toContain('assigned_manager: Обязательное поле');
    const ghost = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: [1], assigned_manager: '00000000-0000-4000-8000-000000000000' },
    });
    expect(ghost.statusCode).toBe(400);
  });
});
