import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** The client card's platform user (§2.6, §7, §8): register user, change password, summary; scope (D5); audit (D9). */
describe.each(dbKinds())('client card account routes on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  let lead: { id: string; token: string };

  const newClient = async (token: string, name: string) => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token,
      payload: { name, email: `${name.toLowerCase()}@lead.test`, phone: '+380501112233', country: 'Украина' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  };
  const register = (token: string, clientId: number, payload: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: `/api/clients/${clientId}/register-user`, token, payload });
  const counts = async (email: string) => ({
    users: Number(
      (
        await t.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('email', '=', email)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    accounts: Number(
      (
        await t.db
          .selectFrom('trading_accounts')
          .innerJoin('users', 'users.id', 'trading_accounts.user_id')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('users.email', '=', email)
          .executeTakeFirstOrThrow()
      ).n,
    ),
  });

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' });
    admin = await t.userWithToken('admin');
    managerA = await t.userWithToken('sales_manager');
    managerB = await t.userWithToken('sales_manager');
    lead = await t.userWithToken('team_lead_retention');
  });
  afterAll(() => t.close());

  it('register user: one user, linked, one trading account with balance 0, audited; the user can sign in', async () => {
    const clientId = await newClient(managerA.token, 'Regina');
    const res = await register(managerA.token, clientId, {
      name: 'Regina Client',
      email: 'Regina@Client.test',
      phone: '+380501112233',
      password: 'secret-77',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.outcome).toBe('created');
    expect(await counts('regina@client.test')).toEqual({ users: 1, accounts: 1 });
    const client = await t.db.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirstOrThrow();
    expect(client.user_id).toBe(body.user_id);
    expect(client.registration_date).not.toBeNull();
    const account = await t.db
      .selectFrom('trading_accounts')
      .selectAll()
      .where('id', '=', body.trading_account_id)
      .executeTakeFirstOrThrow();
    expect(Number(account.client_id)).toBe(clientId);
    expect(Number(account.balance_cents)).toBe(0);
    const user = await t.db.selectFrom('users').selectAll().where('id', '=', body.user_id).executeTakeFirstOrThrow();
    expect(user.role).toBe('client');
    const audit = (await t.auditRows('client.register_user')).at(-1)!;
    expect(audit.actor_id).toBe(managerA.id);
    expect(audit.entity_id).toBe(String(clientId));
    expect(JSON.stringify(audit)).not.toContain('secret-77');
    expect(await t.login('regina@client.test', 'secret-77')).toBeTruthy();

    // A second registration of the same client is refused; nothing more is created.
    const again = await register(managerA.token, clientId, {
      name: 'X',
      email: 'x@client.test',
      password: 'secret-77',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe('Клиент уже зарегистрирован как пользователь');
    expect(await counts('x@client.test')).toEqual({ users: 0, accounts: 0 });
  });

  it("an e-mail already registered to another client is refused with §8's text; nothing is created", async () => {
    const clientId = await newClient(managerA.token, 'Dupont');
    const before = await t.auditCount('client.register_user');
    const res = await t.inject({
      method: 'POST',
      url: `/api/clients/${clientId}/register-user`,
      token: managerA.token,
      headers: { 'accept-language': 'en' },
      payload: { name: 'Dup', email: 'regina@client.test', password: 'secret-88' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe('User exists, but failed to create trading account. Contact the administrator.');
    expect(await counts('regina@client.test')).toEqual({ users: 1, accounts: 1 });
    const client = await t.db
      .selectFrom('clients')
      .select('user_id')
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    expect(client.user_id).toBeNull();
    expect(await t.auditCount('client.register_user')).toBe(before);
    // A staff member's e-mail is refused the same way.
    const staff = await register(admin.token, clientId, {
      name: 'S',
      email: (await t.createUser('admin')).email,
      password: 'secret-88',
    });
    expect(staff.statusCode).toBe(409);
  });

  it("'Email already registered' to a client user with no client: only the trading account is created and linked", async () => {
    const orphan = await t.createUser('client', { email: 'orphan@client.test' });
    const clientId = await newClient(managerA.token, 'Orphan');
    const res = await register(managerA.token, clientId, {
      name: 'Orphan',
      email: 'orphan@client.test',
      password: 'other-pass',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ outcome: 'linked_existing_user', user_id: orphan.id });
    expect(await counts('orphan@client.test')).toEqual({ users: 1, accounts: 1 });
    // The existing password stays.
    expect(await t.login('orphan@client.test')).toBeTruthy();
  });

  it('validation: required fields, e-mail, password of 6', async () => {
    const clientId = await newClient(managerA.token, 'Valid');
    expect((await register(managerA.token, clientId, { email: 'v@c.test', password: 'secret-1' })).statusCode).toBe(
      400,
    );
    expect(
      (await register(managerA.token, clientId, { name: 'V', email: 'nope', password: 'secret-1' })).statusCode,
    ).toBe(400);
    const short = await register(managerA.token, clientId, { name: 'V', email: 'v@c.test', password: '12345' });
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toContain('password');
  });

  it('scope (D5): another manager gets 404 for register, change-password and summary; a team lead outside the department too', async () => {
    const clientId = await newClient(managerA.token, 'Scoped');
    for (const token of [managerB.token, lead.token]) {
      expect((await register(token, clientId, { name: 'S', email: 's@c.test', password: 'secret-1' })).statusCode).toBe(
        404,
      );
      expect(
        (
          await t.inject({
            method: 'PUT',
            url: `/api/clients/${clientId}/change-password`,
            token,
            payload: { new_password: 'secret-2' },
          })
        ).statusCode,
      ).toBe(404);
      expect((await t.inject({ method: 'GET', url: `/api/clients/${clientId}/summary`, token })).statusCode).toBe(404);
    }
    expect((await t.inject({ method: 'GET', url: `/api/clients/999999/summary`, token: admin.token })).statusCode).toBe(
      404,
    );
    expect(await counts('s@c.test')).toEqual({ users: 0, accounts: 0 });
  });

  it('change password: needs a registered client; sets the password, ends the sessions, audited without the secret', async () => {
    const unregistered = await newClient(managerA.token, 'Nouser');
    const refused = await t.inject({
      method: 'PUT',
      url: `/api/clients/${unregistered}/change-password`,
      token: managerA.token,
      payload: { new_password: 'secret-2' },
    });
    expect(refused.statusCode).toBe(409);

    const clientId = await newClient(managerA.token, 'Pass');
    await register(managerA.token, clientId, { name: 'Pass', email: 'pass@client.test', password: 'first-pass' });
    const oldToken = await t.login('pass@client.test', 'first-pass');
    const short = await t.inject({
      method: 'PUT',
      url: `/api/clients/${clientId}/change-password`,
      token: managerA.token,
      payload: { new_password: '123' },
    });
    expect(short.statusCode).toBe(400);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/clients/${clientId}/change-password`,
      token: managerA.token,
      payload: { new_password: 'second-pass' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: oldToken })).statusCode).toBe(401);
    await expect(t.login('pass@client.test', 'first-pass')).rejects.toThrow();
    expect(await t.login('pass@client.test', 'second-pass')).toBeTruthy();
    const audit = (await t.auditRows('client.change_password')).at(-1)!;
    expect(audit.actor_id).toBe(managerA.id);
    expect(JSON.stringify(audit)).not.toContain('second-pass');
  });

  it('summary: deposits, FTD, registration, trading account and the first three withdrawal requests (last 4 only)', async () => {
    const clientId = await newClient(managerA.token, 'Summa');
    const empty = (
      await t.inject({ method: 'GET', url: `/api/clients/${clientId}/summary`, token: managerA.token })
    ).json();
    expect(empty).toEqual({
      deposit_sum: 0,
      deposit_count: 0,
      withdrawal_count: 0,
      ftd: false,
      registered: false,
      trading_account_id: null,
      platform_id: null,
      withdrawals: [],
    });
    for (const amount of [100, 50.25]) {
      const dep = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: managerA.token,
        payload: { client_id: clientId, amount },
      });
      expect(dep.statusCode, dep.body).toBe(201);
    }
    const reg = (
      await register(managerA.token, clientId, { name: 'Summa', email: 'summa@client.test', password: 'secret-1' })
    ).json();
    const sum = (
      await t.inject({ method: 'GET', url: `/api/clients/${clientId}/summary`, token: managerA.token })
    ).json();
    expect(sum).toMatchObject({
      deposit_sum: 150.25,
      deposit_count: 2,
      ftd: true,
      registered: true,
      trading_account_id: reg.trading_account_id,
    });
  });
});
