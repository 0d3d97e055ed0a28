import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../src/platform/auth/sessions.js';
import {
  PASSWORD,
  createTestApp,
  dbKinds,
  runAdminCommand,
  sessionCookie,
  type DbKind,
  type TestApp,
} from './helpers.js';

/** Sign-in, sessions and sign-in delays of decisions.md D8 (as amended), and client self-registration, per database. */
describe.each(dbKinds())('sign-in, sessions and registration on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // A long first delay, so a refusal is still running when the next call comes, however slow the machine.
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '1000', LOGIN_DELAY_BASE_SECONDS: '60' });
  });
  afterAll(() => t.close());

  const login = (email: string, password = PASSWORD, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      headers,
      ...(remoteAddress ? { remoteAddress } : {}),
    });

  it('answers a login with the token, the user, and an HttpOnly SameSite=Strict session cookie', async () => {
    const u = await t.createUser('sales_manager', { name: 'Olga Petrova' });
    const res = await login(u.email);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      user: {
        id: u.id,
        // client-platform.md §3: the short account number is a client's; staff have none.
        platform_id: null,
        name: 'Olga Petrova',
        email: u.email,
        role: 'sales_manager',
        department: 'sales',
        phone: null,
        created_at: expect.any(String),
      },
    });
    expect(body.access_token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    expect(res.body).not.toContain('password');

    const cookie = sessionCookie(res)!;
    expect(cookie.value).toBe(body.access_token);
    expect(cookie.raw).toMatch(/;\s*HttpOnly/i);
    expect(cookie.raw).toMatch(/;\s*SameSite=Strict/i);
    expect(cookie.raw).toMatch(/;\s*Path=\//i);
    expect(cookie.raw).not.toMatch(/;\s*Secure/i); // plain http in the test
    expect(cookie.raw).not.toMatch(/Max-Age/i); // a staff cookie ends with the browser

    // The server keeps only a hash of the token.
    const stored = await t.db.selectFrom('sessions').select('token_hash').where('user_id', '=', u.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(body.access_token);
  });

  it('authenticates GET /api/auth/me with the cookie alone, and with the same token as Bearer', async () => {
    const u = await t.createUser('team_lead_retention');
    const token = await t.login(u.email);

    const byCookie = await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: token } });
    expect(byCookie.statusCode).toBe(200);
    expect(byCookie.json()).toMatchObject({ id: u.id, email: u.email, role: 'team_lead_retention', demo: false });

    const byBearer = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(byBearer.statusCode).toBe(200);
    expect(byBearer.json().id).toBe(u.id);

    const anonymous = await t.inject({ method: 'GET', url: '/api/auth/me' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().detail).toBe('Требуется вход в систему');

    const forged = await t.inject({ method: 'GET', url: '/api/auth/me', token: `${token}x` });
    expect(forged.statusCode).toBe(401);
  });

  it('ends the session on logout: the old token answers 401 as a cookie and as Bearer', async () => {
    const u = await t.createUser('retention_manager');
    const token = await t.login(u.email);
    const other = await t.login(u.email); // a second browser stays signed in
    const before = await t.auditCount('auth.logout');

    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { session: token },
      headers: { host: 'crm.example.com', origin: 'https://crm.example.com' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const cleared = sessionCookie(res)!;
    expect(cleared.value).toBe('');
    expect(cleared.raw).toMatch(/Expires=Thu, 01 Jan 1970/i);

    expect((await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: token } })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).statusCode).toBe(401);
    expect((await t.inject({ method: 'POST', url: '/api/auth/logout', token })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: other })).statusCode).toBe(200);
    expect(await t.auditCount('auth.logout')).toBe(before + 1);
  });

  it('gives an unknown e-mail and a wrong password the identical answer', async () => {
    const u = await t.createUser('admin');
    const wrongPassword = await login(u.email, 'not-the-password');
    const unknownEmail = await login('nobody-here@test.local', 'not-the-password');
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(unknownEmail.body).toBe(wrongPassword.body);
    expect(wrongPassword.json().detail).toBe('Неверный email или пароль');
    expect(sessionCookie(wrongPassword)).toBeUndefined();

    const en = await login(u.email, 'not-the-password', { 'accept-language': 'en-US,en;q=0.9' });
    expect(en.json().detail).toBe('Incorrect email or password');
  });

  it('shows no demo credentials when the server runs without DEMO_DATA', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/auth/demo-accounts' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ demo: false, accounts: [] });
    expect(res.body).not.toContain('demo12345');
    const { token } = await t.userWithToken('admin');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).json().demo).toBe(false);
  });

  it('accepts the e-mail in any case and with spaces around it', async () => {
    const u = await t.createUser('manager');
    const res = await login(`  ${u.email.toUpperCase()} `);
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(u.id);
  });

  it('slows an account down from the address that failed (429 naming the wait), even for the right password, never from another', async () => {
    const victim = await t.createUser('sales_manager');
    const bystander = await t.createUser('sales_manager');
    const ATTACKER = '198.51.100.7';
    // LOGIN_FREE_FAILURES (3) cost nothing; the 4th starts the delay of LOGIN_DELAY_BASE_SECONDS (60 here).
    for (let i = 1; i <= 4; i++) {
      const res = await login(victim.email, `wrong-${i}`, {}, ATTACKER);
      expect(res.statusCode, `failure ${i}`).toBe(401);
    }
    const refused = await login(victim.email, PASSWORD, {}, ATTACKER);
    expect(refused.statusCode).toBe(429);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      detail: `Слишком много неудачных попыток входа. Повторите через ${wait} с.`,
      code: 'login_delayed',
    });
    expect(sessionCookie(refused)).toBeUndefined();
    const en = await login(victim.email, PASSWORD, { 'accept-language': 'en' }, ATTACKER);
    expect(en.json().detail).toBe(`Too many failed sign-in attempts. Try again in ${en.headers['retry-after']} s.`);

    // No lock: the owner signs in from their own address, and so does everyone else from the attacker's.
    expect((await login(victim.email)).statusCode).toBe(200);
    expect((await login(bystander.email, PASSWORD, {}, ATTACKER)).statusCode).toBe(200);
  });

  it('delays an unknown e-mail the same way, so a delay tells nothing about who has an account', async () => {
    const FROM = '198.51.100.8';
    for (let i = 0; i < 4; i++) await login('ghost@test.local', 'x', {}, FROM);
    const known = await t.createUser('admin');
    for (let i = 0; i < 4; i++) await login(known.email, 'x', {}, FROM);
    const ghost = await login('ghost@test.local', 'x', {}, FROM);
    const real = await login(known.email, 'x', {}, FROM);
    expect(ghost.statusCode).toBe(429);
    expect(real.statusCode).toBe(429);
    // The same answer but for the seconds left, which tick on between the two calls.
    const seconds = (body: string) => body.replace(/\d+/g, 'N');
    expect(seconds(ghost.body)).toBe(seconds(real.body));
    expect(Object.keys(ghost.headers).sort()).toEqual(Object.keys(real.headers).sort());
  });

  it('counts failures in a row only: a successful login starts the count again', async () => {
    const u = await t.createUser('manager');
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'wrong')).statusCode).toBe(401);
    expect((await login(u.email)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'wrong')).statusCode).toBe(401);
    expect((await login(u.email)).statusCode).toBe(200);
  });

  it('lets an attempt through once the wait has passed, and doubles the wait at each further failure', async () => {
    const u = await t.createUser('manager');
    for (let i = 0; i < 4; i++) await login(u.email, 'wrong');
    const first = await login(u.email);
    expect(first.statusCode).toBe(429);
    expect(Number(first.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The wait has passed (the failure moved back in time): the next attempt is looked at.
    const passTime = () =>
      t.db
        .updateTable('sign_in_failures')
        .set({ last_failed_at: sql`now() - interval '5 minutes'` })
        .where('email_key', '=', u.email)
        .execute();
    await passTime();
    expect((await login(u.email, 'wrong-again')).statusCode).toBe(401);
    const second = await login(u.email);
    expect(second.statusCode).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(60); // 120 s: doubled
    await passTime();
    expect((await login(u.email)).statusCode).toBe(200);
  });

  it('writes exactly one audit row per login and per failed login', async () => {
    const u = await t.createUser('team_lead_sales');
    const ok0 = await t.auditCount('auth.login');
    const bad0 = await t.auditCount('auth.login_failed');

    await login(u.email, 'wrong', { 'user-agent': 'audit-test' });
    expect(await t.auditCount('auth.login_failed')).toBe(bad0 + 1);
    expect(await t.auditCount('auth.login')).toBe(ok0);
    await login('unknown-for-audit@test.local', 'wrong');
    expect(await t.auditCount('auth.login_failed')).toBe(bad0 + 2);

    await login(u.email);
    expect(await t.auditCount('auth.login')).toBe(ok0 + 1);
    expect(await t.auditCount('auth.login_failed')).toBe(bad0 + 2);

    const rows = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'in', ['auth.login', 'auth.login_failed'])
      .orderBy('id', 'desc')
      .limit(3)
      .execute();
    expect(rows.map((r) => r.action)).toEqual(['auth.login', 'auth.login_failed', 'auth.login_failed']);
    expect(rows[0]).toMatchObject({ actor_id: u.id, entity_id: u.id, ip: '127.0.0.1' });
    expect(rows[1]).toMatchObject({ actor_id: null, entity_id: 'unknown-for-audit@test.local' });
    expect(rows[2]).toMatchObject({ actor_id: u.id, entity_id: u.email });
    expect(JSON.stringify(rows)).not.toContain('wrong');
  });

  it('ends an idle staff session, and slides the expiry while the member is active', async () => {
    const u = await t.createUser('sales_manager');
    const token = await t.login(u.email);
    const session = () =>
      t.db
        .selectFrom('sessions')
        .select(['expires_at', sql<number>`extract(epoch from (expires_at - now()))`.as('left')])
        .where('user_id', '=', u.id)
        .executeTakeFirstOrThrow();
    expect(Number((await session()).left)).toBeGreaterThan(14 * 60);
    expect(Number((await session()).left)).toBeLessThanOrEqual(15 * 60);

    // Active a minute ago, 10 s left: a call now pushes the expiry 15 minutes ahead.
    await t.db
      .updateTable('sessions')
      .set({ last_seen_at: sql`now() - interval '1 minute'`, expires_at: sql`now() + interval '10 seconds'` })
      .where('user_id', '=', u.id)
      .execute();
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).statusCode).toBe(200);
    expect(Number((await session()).left)).toBeGreaterThan(14 * 60);

    // Idle past its expiry: refused.
    await t.db
      .updateTable('sessions')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('user_id', '=', u.id)
      .execute();
    // A change written straight to the database reaches the session cache when its entry expires (at most 1 s).
    t.app.sessionCache.invalidateAll();
    const res = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBeTruthy();
  });

  it('keeps a client signed in for 7 days', async () => {
    const c = await t.createUser('client');
    const res = await login(c.email);
    expect(sessionCookie(res)!.raw).toMatch(/Max-Age=604800/);
    const row = await t.db
      .selectFrom('sessions')
      .select(sql<number>`extract(epoch from (expires_at - now()))`.as('left'))
      .where('user_id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.left)).toBeGreaterThan(7 * 24 * 3600 - 60);
    expect(Number(row.left)).toBeLessThanOrEqual(7 * 24 * 3600);
  });

  it("ends a deleted staff member's sessions at once", async () => {
    const admin = await t.userWithToken('admin');
    const member = await t.userWithToken('retention_manager');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: member.token })).statusCode).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/api/users/${member.id}`, token: admin.token });
    expect(del.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: member.token })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/staff', token: member.token })).statusCode).toBe(401);
    expect((await login(member.email)).statusCode).toBe(401);
  });

  it("ends the member's sessions when a superadmin sets their password; the new password works, the old does not", async () => {
    const superadmin = await t.userWithToken('superadmin');
    const member = await t.createUser('sales_manager');
    const first = await t.login(member.email);
    const second = await t.login(member.email);

    const res = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}/password`,
      token: superadmin.token,
      payload: { new_password: 'brand-new-secret' },
    });
    expect(res.statusCode).toBe(200);
    for (const token of [first, second]) {
      expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).statusCode).toBe(401);
    }
    expect((await login(member.email)).statusCode).toBe(401);
    expect((await login(member.email, 'brand-new-secret')).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: superadmin.token })).statusCode).toBe(200);
  });

  it("keeps the caller's own session when a superadmin changes their own password, and ends their others", async () => {
    const me = await t.userWithToken('superadmin');
    const elsewhere = await t.login(me.email);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/users/${me.id}/password`,
      token: me.token,
      payload: { new_password: 'my-new-secret' },
    });
    expect(res.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: me.token })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: elsewhere })).statusCode).toBe(401);
  });

  it('refuses a cookie-authenticated write from a foreign Origin, and audits it', async () => {
    const u = await t.createUser('admin');
    const token = await t.login(u.email);
    const denied0 = await t.auditCount('access.denied');
    const host = 'crm.example.com';

    const foreign = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { session: token },
      headers: { host, origin: 'https://evil.example.net' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().detail).toBe('Запрос с чужого источника отклонен');
    expect(await t.auditCount('access.denied')).toBe(denied0 + 1);
    const [row] = (await t.auditRows('access.denied')).slice(-1);
    expect(row).toMatchObject({ actor_id: u.id, entity_id: 'POST /api/auth/logout', after: { reason: 'bad_origin' } });
    // The refused call changed nothing: the session is alive.
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: token } })).statusCode).toBe(200);

    // A read with the cookie from anywhere is fine (the browser cannot show it to the foreign page),
    // and a program's Bearer call is not a browser's ambient credential.
    const read = await t.inject({
      method: 'GET',
      url: '/api/auth/me',
      cookies: { session: token },
      headers: { host, origin: 'https://evil.example.net' },
    });
    expect(read.statusCode).toBe(200);
    const bearer = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      token: await t.login(u.email),
      headers: { host, origin: 'https://evil.example.net' },
    });
    expect(bearer.statusCode).toBe(200);

    const own = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: { session: token },
      headers: { host, origin: `https://${host}` },
    });
    expect(own.statusCode).toBe(200);
  });

  it('refuses a cookie-authenticated write that names no origin at all, but takes a same-origin Referer', async () => {
    const u = await t.createUser('admin');
    const host = 'crm.example.com';
    const logout = (token: string, headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/api/auth/logout', cookies: { session: token }, headers: { host, ...headers } });

    const token = await t.login(u.email);
    // Today's attack: no Origin, no Referer (a request that hides where it comes from) rode on the cookie.
    const bare = await logout(token, {});
    expect(bare.statusCode).toBe(403);
    expect(bare.json().code).toBe('bad_origin');
    const foreignReferer = await logout(token, { referer: 'https://evil.example.net/page' });
    expect(foreignReferer.statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: token } })).statusCode).toBe(200);

    const ownReferer = await logout(token, { referer: `https://${host}/crm/clients` });
    expect(ownReferer.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: token } })).statusCode).toBe(401);
  });

  it('stores passwords as argon2id with m=19456, t=2, p=1', async () => {
    const superadmin = await t.userWithToken('superadmin');
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      token: superadmin.token,
      payload: { name: 'Hash Check', email: 'hash.check@test.local', password: 'hash-check-1', role: 'admin' },
    });
    expect(res.statusCode).toBe(201);
    const row = await t.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'hash.check@test.local')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain('hash-check-1');
  });

  it('makes a session token of at least 128 random bits, different each time', async () => {
    const u = await t.createUser('manager');
    const policy = { staffIdleSeconds: 900, clientIdleSeconds: 900 };
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++)
      tokens.add(
        await createSession(t.db, { id: u.id, role: 'manager' }, policy, { ip: '127.0.0.1', userAgent: undefined }),
      );
    expect(tokens.size).toBe(5);
    for (const token of tokens) expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  /** Public client registration (client-platform.md §2.3). */
  describe('client self-registration', () => {
    const register = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.inject({ method: 'POST', url: '/api/auth/register-client', payload, headers });

    it('creates the client user, its CRM record (new, website) and a session, and audits it', async () => {
      const before = await t.auditCount('auth.register_client');
      const res = await register({
        name: ' Ivan Sidorov ',
        email: 'Ivan.Sidorov@Example.com',
        password: 'secret12',
        phone: '+7 701 555 11 22',
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({
        access_token: expect.any(String),
        token_type: 'bearer',
        user: {
          name: 'Ivan Sidorov',
          email: 'ivan.sidorov@example.com',
          role: 'client',
          phone: '+7 701 555 11 22',
          department: null,
        },
      });
      expect(sessionCookie(res)!.value).toBe(body.access_token);
      expect(sessionCookie(res)!.raw).toMatch(/HttpOnly/i);

      const client = await t.db
        .selectFrom('clients')
        .selectAll()
        .where('user_id', '=', body.user.id)
        .executeTakeFirstOrThrow();
      expect(client).toMatchObject({
        name: 'Ivan Sidorov',
        email: 'ivan.sidorov@example.com',
        status: 'new',
        source: 'website',
        assigned_manager: null,
        user_id: body.user.id,
      });
      expect(client.registration_date).not.toBeNull();

      const me = await t.inject({ method: 'GET', url: '/api/auth/me', token: body.access_token });
      expect(me.json()).toMatchObject({ id: body.user.id, role: 'client' });

      expect(await t.auditCount('auth.register_client')).toBe(before + 1);
      const [row] = (await t.auditRows('auth.register_client')).slice(-1);
      expect(row).toMatchObject({
        actor_id: body.user.id,
        entity_id: String(client.id),
        after: { user_id: body.user.id, linked_existing_lead: false },
      });

      // A client is no staff member: it cannot enter the CRM API.
      expect((await t.inject({ method: 'GET', url: '/api/staff', token: body.access_token })).statusCode).toBe(403);
    });

    it('refuses an e-mail already registered, in ru by default and in en on request', async () => {
      await register({ name: 'First', email: 'taken@example.com', password: 'secret12' });
      const ru = await register({ name: 'Second', email: 'TAKEN@example.com', password: 'secret12' });
      expect(ru.statusCode).toBe(409);
      expect(ru.json().detail).toBe('Пользователь с таким email уже зарегистрирован');
      const en = await register(
        { name: 'Second', email: 'taken@example.com', password: 'secret12' },
        { 'accept-language': 'en' },
      );
      expect(en.statusCode).toBe(409);
      expect(en.json().detail).toBe('Email already registered');
      expect(
        await t.db.selectFrom('users').select('id').where('email', '=', 'taken@example.com').execute(),
      ).toHaveLength(1);
    });

    it("refuses a staff member's e-mail too", async () => {
      const staff = await t.createUser('sales_manager');
      const res = await register({ name: 'Sneaky', email: staff.email, password: 'secret12' });
      expect(res.statusCode).toBe(409);
    });

    it('refuses the phone of an existing user, however it is written', async () => {
      expect(
        (
          await register({
            name: 'Phone Owner',
            email: 'phone.owner@example.com',
            password: 'secret12',
            phone: '+7 (702) 111-22-33',
          })
        ).statusCode,
      ).toBe(201);
      const res = await register({
        name: 'Copycat',
        email: 'copycat@example.com',
        password: 'secret12',
        phone: '+77021112233',
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toBe('Пользователь с таким номером телефона уже зарегистрирован');
      expect(
        await t.db.selectFrom('users').select('id').where('email', '=', 'copycat@example.com').execute(),
      ).toHaveLength(0);
    });

    it('refuses the phone of a client the CRM already holds', async () => {
      await t.db
        .insertInto('clients')
        .values({
          name: 'Existing Lead',
          email: 'someone.else@example.com',
          phone: '+380 50 999 88 77',
          country: 'UA',
          campaign: '',
          source: 'affiliate',
          notes: '',
          status: 'in_progress',
          assigned_manager: null,
          affiliate_id: null,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
        })
        .execute();
      const res = await register({
        name: 'New Person',
        email: 'new.person@example.com',
        password: 'secret12',
        phone: '380509998877',
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toBe('Клиент с таким номером телефона уже существует');
    });

    it('links an existing lead with the same e-mail instead of creating a second client', async () => {
      const lead = await t.db
        .insertInto('clients')
        .values({
          name: 'Lead From Affiliate',
          email: 'Lead.Person@example.com',
          phone: '+49 151 1234 5678',
          country: 'DE',
          campaign: 'spring',
          source: 'affiliate',
          notes: '',
          status: 'in_progress',
          assigned_manager: null,
          affiliate_id: null,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // Same phone as the lead itself: that is the lead, not a conflict.
      const res = await register({
        name: 'Lead Person',
        email: 'lead.person@example.com',
        password: 'secret12',
        phone: '+4915112345678',
      });
      expect(res.statusCode).toBe(201);
      const userId = res.json().user.id;

      const rows = await t.db
        .selectFrom('clients')
        .selectAll()
        .where(sql`lower(email)`, '=', 'lead.person@example.com')
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: lead.id,
        user_id: userId,
        status: 'in_progress',
        source: 'affiliate',
        campaign: 'spring',
      });
      expect(rows[0]!.registration_date).not.toBeNull();
      const [audit] = (await t.auditRows('auth.register_client')).slice(-1);
      expect(audit).toMatchObject({ entity_id: String(lead.id), after: { linked_existing_lead: true } });
    });

    it('names the field at fault for bad input and creates nothing', async () => {
      const users0 = await t.db.selectFrom('users').select('id').execute();
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'a@example.com', password: 'secret12' }, 'name'],
        [{ name: 'A', email: 'not-an-email', password: 'secret12' }, 'email'],
        [{ name: 'A', email: 'a@example.com', password: '123' }, 'password'],
        [{ name: 'A', email: 'a@example.com', password: 'secret12', phone: '12-34' }, 'phone'],
        [{ name: 'A', email: 'a@example.com', password: 'secret12', role: 'superadmin' }, 'role'],
      ];
      for (const [payload, field] of cases) {
        const res = await register(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().detail, JSON.stringify(payload)).toContain(field);
      }
      expect((await register({ name: 'A', email: 'a@example.com', password: '123' })).json().detail).toBe(
        'password: Минимум 6 символов',
      );
      expect(
        (await register({ name: 'A', email: 'a@example.com', password: '123' }, { 'accept-language': 'en' })).json()
          .detail,
      ).toBe('password: Minimum 6 characters');
      expect(await t.db.selectFrom('users').select('id').execute()).toHaveLength(users0.length);
    });
  });
});

/** Failed logins are throttled per IP as well as per account (D8). */
describe.each(dbKinds())('login throttling per IP on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '5' });
  });
  afterAll(() => t.close());

  it('refuses an address that tries too many logins, while another address still signs in', async () => {
    const u = await t.createUser('admin');
    const from = (remoteAddress: string, email: string) =>
      t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'guess' }, remoteAddress });
    for (let i = 0; i < 5; i++) expect((await from('203.0.113.50', `guess${i}@test.local`)).statusCode).toBe(401);
    const limited = await from('203.0.113.50', 'guess-more@test.local');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toBe('Слишком много запросов, попробуйте позже');
    await t.login(u.email, PASSWORD, '203.0.113.51');
  });
});

/** `npm run admin -- reset-password <email>`: lifts the sign-in delays, ends sessions, sets the new password. */
describe.each(dbKinds())('reset-password from the command line on %s', (kind: DbKind) => {
  let t: TestApp;
  let dir: string | undefined;
  beforeAll(async () => {
    // The embedded database must live on disk for the command line to open it.
    dir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-cli-')) : undefined;
    t = await createTestApp(
      kind,
      { LOGIN_RATE_PER_MINUTE: '1000', LOGIN_DELAY_BASE_SECONDS: '60' },
      dir ? { dataDir: dir } : {},
    );
  });
  afterAll(async () => {
    await t.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lifts the sign-in delay, ends the sessions and lets the member in with the new password', async () => {
    const locked = await t.createUser('superadmin', { email: 'Locked.Boss@test.local' });
    const oldSession = await t.login(locked.email);
    for (let i = 0; i < 10; i++)
      await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email: locked.email, password: 'nope' } });
    expect(
      (await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email: locked.email, password: PASSWORD } }))
        .statusCode,
    ).toBe(429);

    const run = await runAdminCommand(t, ['reset-password', 'locked.boss@test.local'], {
      ADMIN_PASSWORD: 'recovered-123',
    });
    t = run.t;
    expect(run.code).toBe(0);
    expect(run.output).toContain('locked.boss@test.local');
    expect(run.output).not.toContain('recovered-123');

    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: oldSession })).statusCode).toBe(401);
    expect(
      (await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email: locked.email, password: PASSWORD } }))
        .statusCode,
    ).toBe(401);
    const token = await t.login(locked.email, 'recovered-123');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).json().id).toBe(locked.id);
    const [row] = (await t.auditRows('user.password_change')).slice(-1);
    expect(row).toMatchObject({ actor_id: null, entity_id: locked.id });
  });

  it('prints a generated password when ADMIN_PASSWORD is not set, and that password works', async () => {
    const u = await t.createUser('admin');
    const run = await runAdminCommand(t, ['reset-password', u.email]);
    t = run.t;
    expect(run.code).toBe(0);
    const printed = /password: ([A-Za-z0-9!@#$%^&*]+)/.exec(run.output)?.[1];
    expect(printed).toBeDefined();
    await t.login(u.email, printed!);
  });
});
