import { STAFF_ROLES, type Role } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, createTestApp, dbKinds, type TestApp } from './helpers.js';

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

async function addClient(t: TestApp, name: string, manager: string | null): Promise<number> {
  const row = await t.db
    .insertInto('clients')
    .values({
      name,
      email: `${name.toLowerCase().replace(/\W+/g, '.')}@lead.test`,
      phone: '',
      country: '',
      campaign: '',
      source: 'import',
      notes: '',
      status: 'new',
      assigned_manager: manager,
      affiliate_id: null,
      user_id: null,
      registration_date: null,
      last_comment_date: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Staff management of back-office.md §2.12 through the API. */
describe.each(dbKinds())('staff management on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; email: string; token: string };
  let admin: { id: string; email: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '1000' });
    superadmin = await t.userWithToken('superadmin');
    admin = await t.userWithToken('admin');
  });
  afterAll(() => t.close());

  const register = (token: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: '/api/auth/register', token, payload, headers });

  /** Runs a mutation and checks that it wrote exactly one audit row, of the given action; returns that row. */
  async function oneAuditRow<R>(action: string, mutation: () => Promise<R>) {
    const before = await t.auditCount();
    const result = await mutation();
    expect(await t.auditCount(), `audit rows written by ${action}`).toBe(before + 1);
    const row = await t.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(row.action).toBe(action);
    return { result, row };
  }

  it('lets a superadmin create a member, audited without the password, who can then sign in', async () => {
    const { result: res, row } = await oneAuditRow('user.create', () =>
      register(superadmin.token, {
        name: '  Maria Lead ',
        email: 'Maria.Lead@Test.local',
        password: 'maria-secret-7',
        role: 'team_lead_sales',
      }),
    );
    expect(res.statusCode).toBe(201);
    const member = res.json();
    expect(member).toEqual({
      id: expect.any(String),
      name: 'Maria Lead',
      full_name: 'Maria Lead',
      email: 'maria.lead@test.local',
      role: 'team_lead_sales',
      department: 'sales',
      created_at: expect.any(String),
      clients_count: 0,
      active_clients_count: 0,
      invited: false,
      invitation_expires_at: null,
    });
    expect(row).toMatchObject({
      actor_id: superadmin.id,
      actor_role: 'superadmin',
      entity_type: 'user',
      entity_id: member.id,
      ip: '127.0.0.1',
    });
    expect(row.after).toEqual({ name: 'Maria Lead', email: 'maria.lead@test.local', role: 'team_lead_sales' });
    const everything = JSON.stringify(row);
    expect(everything).not.toContain('maria-secret-7');
    expect(everything.toLowerCase()).not.toContain('password');
    expect(everything).not.toContain('$argon2');

    const token = await t.login('maria.lead@test.local', 'maria-secret-7');
    const me = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(me.json()).toMatchObject({ id: member.id, role: 'team_lead_sales' });
  });

  it('lets an admin create staff, but not a superadmin', async () => {
    const ok = await register(admin.token, {
      name: 'Sam Sales',
      email: 'sam.sales@test.local',
      password: 'sam-secret',
      role: 'sales_manager',
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ role: 'sales_manager', department: 'sales' });

    const users0 = await t.db.selectFrom('users').select('id').execute();
    const refused = await register(admin.token, {
      name: 'Evil Twin',
      email: 'evil.twin@test.local',
      password: 'evil-secret',
      role: 'superadmin',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toBe('Только суперадмин может назначать роль суперадмина');
    expect(await t.db.selectFrom('users').select('id').execute()).toHaveLength(users0.length);

    const bySuperadmin = await register(superadmin.token, {
      name: 'Second Boss',
      email: 'second.boss@test.local',
      password: 'boss-secret',
      role: 'superadmin',
    });
    expect(bySuperadmin.statusCode).toBe(201);
  });

  it('audits the refused attempt to create a superadmin as a denied access', async () => {
    const { result: res, row } = await oneAuditRow('access.denied', () =>
      register(admin.token, {
        name: 'Escalate',
        email: 'escalate@test.local',
        password: 'escalate-1',
        role: 'superadmin',
      }),
    );
    expect(res.statusCode).toBe(403);
    expect(row).toMatchObject({
      actor_id: admin.id,
      entity_id: 'POST /api/auth/register',
      after: { reason: 'cannot_create_superadmin' },
    });
  });

  it('refuses a duplicate e-mail whatever its case, with 409', async () => {
    const first = await register(superadmin.token, {
      name: 'Dup One',
      email: 'dup@test.local',
      password: 'dup-secret',
      role: 'retention_manager',
    });
    expect(first.statusCode).toBe(201);
    const audit0 = await t.auditCount();
    const dup = await register(superadmin.token, {
      name: 'Dup Two',
      email: 'DUP@Test.Local',
      password: 'dup-secret',
      role: 'admin',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail).toBe('Пользователь с таким email уже зарегистрирован');
    const en = await register(
      superadmin.token,
      { name: 'Dup Two', email: 'dup@test.local', password: 'dup-secret', role: 'admin' },
      { 'accept-language': 'en' },
    );
    expect(en.json().detail).toBe('Email already registered');
    expect(await t.auditCount()).toBe(audit0);
  });

  it('names the field at fault when creating with bad input', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ email: 'x@test.local', password: 'secret1', role: 'admin' }, 'name', 'name: Обязательное поле'],
      [
        { name: 'X', email: 'x@', password: 'secret1', role: 'admin' },
        'email',
        'email: Некорректный адрес электронной почты',
      ],
      [
        { name: 'X', email: 'x@test.local', password: '12345', role: 'admin' },
        'password',
        'password: Минимум 6 символов',
      ],
      [{ name: 'X', email: 'x@test.local', password: 'secret1', role: 'client' }, 'role', 'role: Недопустимая роль'],
      [{ name: 'X', email: 'x@test.local', password: 'secret1', role: 'manager' }, 'role', 'role: Недопустимая роль'],
    ];
    for (const [payload, field, detail] of cases) {
      const res = await register(superadmin.token, payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().detail).toBe(detail);
    }
  });

  it('edits a member, audited with before and after; a new role ends their sessions (issue 20 §9), a new name does not', async () => {
    const member = await t.userWithToken('sales_manager');
    expect((await t.inject({ method: 'GET', url: '/api/users', token: member.token })).statusCode).toBe(403);

    const { result: res, row } = await oneAuditRow('user.update', () =>
      t.inject({
        method: 'PUT',
        url: `/api/users/${member.id}`,
        token: admin.token,
        payload: { name: 'Renamed Member', email: 'Renamed.Member@test.local', role: 'retention_manager' },
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: member.id,
      name: 'Renamed Member',
      email: 'renamed.member@test.local',
      role: 'retention_manager',
      department: 'retention',
    });
    expect(row).toMatchObject({ actor_id: admin.id, entity_id: member.id });
    expect(row.before).toEqual({
      name: expect.stringMatching(/^Test sales_manager/),
      email: member.email,
      role: 'sales_manager',
    });
    expect(row.after).toEqual({
      name: 'Renamed Member',
      email: 'renamed.member@test.local',
      role: 'retention_manager',
      sessions_ended: true,
    });
    // The role changed: the member's session ended; they sign in again under the new role.
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: member.token })).statusCode).toBe(401);
    const retention = await t.login('renamed.member@test.local');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: retention })).json().role).toBe(
      'retention_manager',
    );

    // A new name alone keeps the session.
    const renamed = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}`,
      token: admin.token,
      payload: { name: 'Renamed Again', email: 'renamed.member@test.local', role: 'retention_manager' },
    });
    expect(renamed.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: retention })).statusCode).toBe(200);

    // Promoted to admin: that session ends too, and the next sign-in may manage staff.
    const promote = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}`,
      token: superadmin.token,
      payload: { name: 'Renamed Member', email: 'renamed.member@test.local', role: 'admin' },
    });
    expect(promote.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/users', token: retention })).statusCode).toBe(401);
    const promoted = await t.login('renamed.member@test.local');
    expect((await t.inject({ method: 'GET', url: '/api/users', token: promoted })).statusCode).toBe(200);
  });

  it("refuses an e-mail another live member has, and allows keeping one's own", async () => {
    const a = await t.createUser('sales_manager');
    const b = await t.createUser('sales_manager');
    const clash = await t.inject({
      method: 'PUT',
      url: `/api/users/${a.id}`,
      token: admin.token,
      payload: { name: 'A', email: b.email.toUpperCase(), role: 'sales_manager' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().detail).toBe('Пользователь с таким email уже зарегистрирован');
    const same = await t.inject({
      method: 'PUT',
      url: `/api/users/${a.id}`,
      token: admin.token,
      payload: { name: 'A', email: a.email.toUpperCase(), role: 'sales_manager' },
    });
    expect(same.statusCode).toBe(200);
    expect(same.json().email).toBe(a.email.toLowerCase());
  });

  it('keeps superadmins out of reach of an admin: no edit, no promotion', async () => {
    const target = await t.createUser('superadmin');
    const edit = await t.inject({
      method: 'PUT',
      url: `/api/users/${target.id}`,
      token: admin.token,
      payload: { name: 'Hijacked', email: target.email, role: 'superadmin' },
    });
    expect(edit.statusCode).toBe(403);
    expect(edit.json().detail).toBe('Только суперадмин может изменять суперадмина');
    const demote = await t.inject({
      method: 'PUT',
      url: `/api/users/${target.id}`,
      token: admin.token,
      payload: { name: 'Hijacked', email: target.email, role: 'sales_manager' },
    });
    expect(demote.statusCode).toBe(403);
    const row = await t.db
      .selectFrom('users')
      .select(['name', 'role'])
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('superadmin');
    expect(row.name).not.toBe('Hijacked');

    const manager = await t.createUser('sales_manager');
    const promote = await t.inject({
      method: 'PUT',
      url: `/api/users/${manager.id}`,
      token: admin.token,
      payload: { name: 'Climber', email: manager.email, role: 'superadmin' },
    });
    expect(promote.statusCode).toBe(403);
  });

  it('lets nobody change their own role, but lets them edit their own name', async () => {
    const own = await t.inject({
      method: 'PUT',
      url: `/api/users/${superadmin.id}`,
      token: superadmin.token,
      payload: { name: 'Boss', email: superadmin.email, role: 'admin' },
    });
    expect(own.statusCode).toBe(400);
    expect(own.json().detail).toBe('Нельзя изменить собственную роль');
    const ownAdmin = await t.inject({
      method: 'PUT',
      url: `/api/users/${admin.id}`,
      token: admin.token,
      payload: { name: 'Admin', email: admin.email, role: 'superadmin' },
    });
    expect([400, 403]).toContain(ownAdmin.statusCode);
    const rename = await t.inject({
      method: 'PUT',
      url: `/api/users/${admin.id}`,
      token: admin.token,
      payload: { name: 'Admin Renamed', email: admin.email, role: 'admin' },
    });
    expect(rename.statusCode).toBe(200);
    expect(rename.json().name).toBe('Admin Renamed');
  });

  it('answers 404 for an unknown id and for a client account', async () => {
    const client = await t.createUser('client');
    for (const id of [NO_SUCH_ID, client.id]) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/users/${id}`,
        token: superadmin.token,
        payload: { name: 'X', email: 'x.404@test.local', role: 'admin' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe('Сотрудник не найден');
    }
    const role = await t.db.selectFrom('users').select('role').where('id', '=', client.id).executeTakeFirstOrThrow();
    expect(role.role).toBe('client');
  });

  it('lets only a superadmin set a password, of at least 6 characters, audited without it', async () => {
    const member = await t.createUser('retention_manager');
    const byAdmin = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}/password`,
      token: admin.token,
      payload: { new_password: 'admin-sets-it' },
    });
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.json().detail).toBe('Недостаточно прав для этого действия');

    const short = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}/password`,
      token: superadmin.token,
      payload: { new_password: '12345' },
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toBe('new_password: Минимум 6 символов');
    const missing = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}/password`,
      token: superadmin.token,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toContain('new_password');

    const { result: ok, row } = await oneAuditRow('user.password_change', () =>
      t.inject({
        method: 'PUT',
        url: `/api/users/${member.id}/password`,
        token: superadmin.token,
        payload: { new_password: 'fresh-secret-9' },
      }),
    );
    expect(ok.statusCode).toBe(200);
    expect(row).toMatchObject({ actor_id: superadmin.id, entity_id: member.id });
    expect(JSON.stringify(row)).not.toContain('fresh-secret-9');
    await t.login(member.email, 'fresh-secret-9');
    await expect(t.login(member.email, PASSWORD)).rejects.toThrow(/401/);
  });

  it('soft-deletes a member: the row and the name stay, the list forgets them, their clients become unassigned', async () => {
    const member = await t.createUser('sales_manager', { name: 'Leaving Member' });
    const colleague = await t.createUser('sales_manager');
    const mine = [await addClient(t, 'Client One', member.id), await addClient(t, 'Client Two', member.id)];
    const theirs = await addClient(t, 'Client Three', colleague.id);

    const { result: res, row } = await oneAuditRow('user.delete', () =>
      t.inject({ method: 'DELETE', url: `/api/users/${member.id}`, token: admin.token }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, unassigned_clients: 2 });
    expect(row).toMatchObject({ actor_id: admin.id, entity_id: member.id, after: { unassigned_clients: 2 } });
    expect(row.before).toMatchObject({ name: 'Leaving Member', role: 'sales_manager' });

    const stored = await t.db
      .selectFrom('users')
      .select(['name', 'deleted_at'])
      .where('id', '=', member.id)
      .executeTakeFirstOrThrow();
    expect(stored.name).toBe('Leaving Member');
    expect(stored.deleted_at).not.toBeNull();

    const clients = await t.db
      .selectFrom('clients')
      .select(['id', 'assigned_manager'])
      .where('id', 'in', [...mine, theirs])
      .orderBy('id')
      .execute();
    expect(clients).toEqual([
      { id: mine[0], assigned_manager: null },
      { id: mine[1], assigned_manager: null },
      { id: theirs, assigned_manager: colleague.id },
    ]);

    const list = await t.inject({ method: 'GET', url: '/api/users?per_page=200', token: admin.token });
    expect(list.json().items.map((u: { id: string }) => u.id)).not.toContain(member.id);
    const staff = await t.inject({ method: 'GET', url: '/api/staff', token: admin.token });
    expect(staff.json().map((u: { id: string }) => u.id)).not.toContain(member.id);

    const again = await t.inject({ method: 'DELETE', url: `/api/users/${member.id}`, token: admin.token });
    expect(again.statusCode).toBe(404);
  });

  it('lets the e-mail of a deleted member be used by a new member', async () => {
    const member = await t.createUser('retention_manager', { email: 'reused.address@test.local' });
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/users/${member.id}`, token: superadmin.token })).statusCode,
    ).toBe(200);
    const res = await register(superadmin.token, {
      name: 'Successor',
      email: 'Reused.Address@test.local',
      password: 'successor-1',
      role: 'retention_manager',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().id).not.toBe(member.id);
    const token = await t.login('reused.address@test.local', 'successor-1');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).json().name).toBe('Successor');
  });

  it('refuses to delete a superadmin (403) or oneself (400)', async () => {
    const boss = await t.createUser('superadmin');
    const audit0 = await t.auditCount('user.delete');
    for (const token of [admin.token, superadmin.token]) {
      const res = await t.inject({ method: 'DELETE', url: `/api/users/${boss.id}`, token });
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe('Суперадмина удалить нельзя');
    }
    const self = await t.inject({ method: 'DELETE', url: `/api/users/${admin.id}`, token: admin.token });
    expect(self.statusCode).toBe(400);
    expect(self.json().detail).toBe('Нельзя удалить собственную учетную запись');
    const alive = await t.db.selectFrom('users').select('deleted_at').where('id', 'in', [boss.id, admin.id]).execute();
    expect(alive.every((r) => r.deleted_at === null)).toBe(true);
    expect(await t.auditCount('user.delete')).toBe(audit0);
  });

  it('lists live staff on GET /api/staff for every staff role and refuses a client', async () => {
    const gone = await t.createUser('manager', { name: 'Gone Member' });
    await t.inject({ method: 'DELETE', url: `/api/users/${gone.id}`, token: admin.token });
    const client = await t.userWithToken('client');
    for (const role of STAFF_ROLES) {
      const u = await t.userWithToken(role);
      const res = await t.inject({ method: 'GET', url: '/api/staff', token: u.token });
      expect(res.statusCode, role).toBe(200);
      const items: { id: string; name: string; full_name: string; role: Role }[] = res.json();
      const ids = items.map((i) => i.id);
      expect(ids).toContain(u.id);
      expect(ids).not.toContain(gone.id);
      expect(ids).not.toContain(client.id);
      expect(items.every((i) => i.name === i.full_name && i.role !== 'client')).toBe(true);
      expect(JSON.stringify(items)).not.toMatch(/password|email/);
    }
    const refused = await t.inject({ method: 'GET', url: '/api/staff', token: client.token });
    expect(refused.statusCode).toBe(403);
  });

  it("shows every manager's clients and the active ones: a deposit or a comment in the last 30 days", async () => {
    const member = await t.createUser('retention_manager');
    const lead = async (name: string, lastComment: Date | null) =>
      Number(
        (
          await t.db
            .insertInto('clients')
            .values({
              name,
              email: `${name}@active.test`,
              phone: '',
              country: 'KZ',
              campaign: '',
              source: 'test',
              notes: '',
              status: 'new',
              assigned_manager: member.id,
              affiliate_id: null,
              user_id: null,
              registration_date: null,
              last_comment_date: lastComment,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
    const day = 24 * 3600 * 1000;
    const withDeposit = await lead(`dep${Date.now()}`, null);
    await lead(`old${Date.now()}`, new Date(Date.now() - 40 * day));
    await lead(`new${Date.now()}`, new Date(Date.now() - 2 * day));
    const deposit = await t.inject({
      method: 'POST',
      url: '/api/deposits',
      token: superadmin.token,
      payload: { client_id: withDeposit, amount: 10 },
    });
    expect(deposit.statusCode).toBe(201);
    const list = await t.inject({ method: 'GET', url: '/api/users?per_page=100', token: superadmin.token });
    const row = list.json().items.find((m: { id: string }) => m.id === member.id);
    expect(row).toMatchObject({ clients_count: 3, active_clients_count: 2 });
  });
});

/** The staff page list: server-side paging, search, role filter and the summary cards. */
describe.each(dbKinds())('staff list on %s', (kind) => {
  let t: TestApp;
  let token: string;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp(kind);
    const admin = await t.userWithToken('admin');
    token = admin.token;
    ids.set('admin', admin.id);
    const fixture: [string, Role, string][] = [
      ['boss', 'superadmin', 'Boris Bossov'],
      ['tls', 'team_lead_sales', 'Tanya Leads'],
      ['tlr', 'team_lead_retention', 'Roman Keeper'],
      ['sm1', 'sales_manager', 'Alice Seller'],
      ['sm2', 'sales_manager', 'Bob Seller'],
      ['rm', 'retention_manager', 'Rita Retain'],
      ['legacy', 'manager', 'Lev Legacy'],
      ['client', 'client', 'Carl Client'],
      ['deleted', 'sales_manager', 'Dora Deleted'],
      ['pct', 'sales_manager', '100% Percent'],
    ];
    for (const [key, role, name] of fixture) {
      const u = await t.createUser(role, { name, email: `${key}@list.test` });
      ids.set(key, u.id);
    }
    await t.db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', ids.get('deleted')!).execute();
    await addClient(t, 'Alpha', ids.get('sm1')!);
    await addClient(t, 'Beta', ids.get('sm1')!);
    await addClient(t, 'Gamma', ids.get('rm')!);
  });
  afterAll(() => t.close());

  const list = (query = '') => t.inject({ method: 'GET', url: `/api/users${query}`, token });

  it('lists live staff only, newest first, with summary counts over all of them', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const live = ['admin', 'boss', 'tls', 'tlr', 'sm1', 'sm2', 'rm', 'legacy', 'pct'];
    expect(body.total).toBe(live.length);
    expect(body.items.map((i: { id: string }) => i.id).sort()).toEqual(live.map((k) => ids.get(k)).sort());
    expect(body.summary).toEqual({ total: 9, managers: 7, admins: 1, superadmins: 1, finance_approvers: 2 });
    const created = body.items.map((i: { created_at: string }) => i.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const alice = body.items.find((i: { id: string }) => i.id === ids.get('sm1'));
    expect(alice).toMatchObject({
      name: 'Alice Seller',
      full_name: 'Alice Seller',
      email: 'sm1@list.test',
      role: 'sales_manager',
      clients_count: 2,
    });
    expect(JSON.stringify(body)).not.toMatch(/password|argon2/);
  });

  it('pages on the server with per_page and page', async () => {
    const all = (await list('?per_page=200')).json().items.map((i: { id: string }) => i.id);
    const p1 = (await list('?per_page=4&page=1')).json();
    const p2 = (await list('?per_page=4&page=2')).json();
    const p3 = (await list('?per_page=4&page=3')).json();
    expect(p1.items).toHaveLength(4);
    expect(p2.items).toHaveLength(4);
    expect(p3.items).toHaveLength(1);
    expect([p1.total, p2.total, p3.total]).toEqual([9, 9, 9]);
    expect([...p1.items, ...p2.items, ...p3.items].map((i: { id: string }) => i.id)).toEqual(all);
    expect((await list('?per_page=4&page=9')).json().items).toEqual([]);
  });

  it('searches name and e-mail, case-insensitively, treating % and _ as text', async () => {
    const names = async (q: string) =>
      (await list(q))
        .json()
        .items.map((i: { name: string }) => i.name)
        .sort();
    expect(await names('?search=seller')).toEqual(['Alice Seller', 'Bob Seller']);
    expect(await names('?search=TLR@list')).toEqual(['Roman Keeper']);
    expect(await names('?search=dora')).toEqual([]);
    expect(await names('?search=carl')).toEqual([]);
    expect(await names(`?search=${encodeURIComponent('%')}`)).toEqual(['100% Percent']);
    expect(await names(`?search=${encodeURIComponent('_')}`)).toEqual([]);
    const filtered = (await list('?search=seller')).json();
    expect(filtered.total).toBe(2);
    expect(filtered.summary.total).toBe(9);
  });

  it('filters by role, combined with search', async () => {
    const body = (await list('?role=sales_manager')).json();
    expect(body.total).toBe(3);
    expect(body.items.every((i: { role: string }) => i.role === 'sales_manager')).toBe(true);
    expect((await list('?role=sales_manager&search=bob')).json().items.map((i: { name: string }) => i.name)).toEqual([
      'Bob Seller',
    ]);
    expect((await list('?role=manager')).json().items.map((i: { name: string }) => i.name)).toEqual(['Lev Legacy']);
  });

  it('refuses bad paging and an unknown role with 400 naming the parameter', async () => {
    for (const [q, field] of [
      ['?per_page=0', 'per_page'],
      ['?per_page=1000', 'per_page'],
      ['?page=0', 'page'],
      ['?page=abc', 'page'],
      ['?role=client', 'role'],
      ['?role=boss', 'role'],
      ['?colour=red', 'colour'],
    ] as const) {
      const res = await list(q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().detail, q).toContain(field);
    }
  });

  it('is refused to roles without staff management', async () => {
    for (const role of ['team_lead_sales', 'sales_manager', 'retention_manager', 'manager', 'client'] as const) {
      const u = await t.userWithToken(role);
      expect((await t.inject({ method: 'GET', url: '/api/users', token: u.token })).statusCode, role).toBe(403);
    }
  });
});

/**
 * Deleting a member while someone bulk-assigns (or reassigns) clients to them: the delete locks the member's row FOR
 * UPDATE, an assignment holds it FOR SHARE, so whichever commits second sees the first. No client may end with a
 * deleted manager, and the delete's audit row names every client it unassigned.
 */
describe.each(dbKinds())('staff delete racing client assignment on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };
  let superadmin: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '1000' });
    admin = await t.userWithToken('admin');
    superadmin = await t.userWithToken('superadmin');
  });
  afterAll(() => t.close());

  it('never leaves a client assigned to a deleted member', async () => {
    const rounds = kind === 'postgres' ? 25 : 6;
    for (let round = 0; round < rounds; round += 1) {
      const member = await t.createUser('sales_manager', { name: `Racing Member ${round}` });
      const batches = [0, 1, 2].map(async (b) => [
        Number(await addClient(t, `Race ${round} ${b} A`, null)),
        Number(await addClient(t, `Race ${round} ${b} B`, null)),
      ]);
      const groups = await Promise.all(batches);
      const single = Number(await addClient(t, `Race ${round} single`, null));

      const [deleted, ...assigns] = await Promise.all([
        t.inject({ method: 'DELETE', url: `/api/users/${member.id}`, token: admin.token }),
        ...groups.map((ids) =>
          t.inject({
            method: 'POST',
            url: '/api/clients/bulk-assign-manager',
            token: superadmin.token,
            payload: { client_ids: ids, assigned_manager: member.id },
          }),
        ),
        t.inject({
          method: 'PUT',
          url: `/api/clients/${single}`,
          token: superadmin.token,
          payload: { assigned_manager: member.id },
        }),
      ]);
      expect(deleted!.statusCode, deleted!.body).toBe(200);

      const won: number[] = [];
      const allIds = [...groups, [single]];
      assigns.forEach((res, i) => {
        // Either the assignment went first (and the delete then unassigned its clients) or it found the member gone.
        if (res.statusCode === 200) won.push(...allIds[i]!);
        else {
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json().code, res.body).toBe('manager_not_found');
        }
      });

      const stranded = await t.db
        .selectFrom('clients')
        .innerJoin('users', 'users.id', 'clients.assigned_manager')
        .select('clients.id')
        .where('users.deleted_at', 'is not', null)
        .execute();
      expect(stranded, `round ${round}`).toEqual([]);

      const audit = await t.db
        .selectFrom('audit_log')
        .select('after')
        .where('action', '=', 'user.delete')
        .where('entity_id', '=', member.id)
        .executeTakeFirstOrThrow();
      const after = (typeof audit.after === 'string' ? JSON.parse(audit.after) : audit.after) as {
        unassigned_clients: number;
        unassigned_client_ids: number[];
      };
      expect(after.unassigned_client_ids).toEqual(won.sort((a, b) => a - b));
      expect(after.unassigned_clients).toBe(won.length);
    }
  });
});
