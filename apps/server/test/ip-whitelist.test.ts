import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { entryCovers } from '../src/platform/access/ip.js';
import {
  PASSWORD,
  createTestApp,
  dbKinds,
  runAdminCommand,
  sessionCookie,
  type DbKind,
  type TestApp,
} from './helpers.js';

const OFFICE = '10.1.2.3'; // where the superadmin works
const BRANCH = '10.9.9.9'; // inside 10.0.0.0/8
const HOME = '192.168.5.5'; // outside it

/** The staff IP whitelist of back-office.md §2.14, enforced as decisions.md D8 says. */
describe.each(dbKinds())('staff IP whitelist on %s', (kind) => {
  let t: TestApp;
  let boss: { id: string; email: string; token: string };
  let member: { id: string; email: string; token: string };

  beforeAll(async () => {
    // A long first sign-in delay, so a refusal is still running when the next call comes, however slow the machine.
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '1000', LOGIN_DELAY_BASE_SECONDS: '60' });
    const b = await t.createUser('superadmin', { name: 'Whitelist Boss' });
    boss = { ...b, token: await t.login(b.email, PASSWORD, OFFICE) };
    member = await t.userWithToken('sales_manager');
  });
  afterAll(() => t.close());

  const list = (remoteAddress = OFFICE) =>
    t.inject({ method: 'GET', url: '/api/ip-whitelist', token: boss.token, remoteAddress });
  const add = (
    ip_address: unknown,
    opts: { description?: string; from?: string; headers?: Record<string, string> } = {},
  ) =>
    t.inject({
      method: 'POST',
      url: '/api/ip-whitelist',
      token: boss.token,
      remoteAddress: opts.from ?? OFFICE,
      payload: { ip_address, ...(opts.description !== undefined ? { description: opts.description } : {}) },
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  const remove = (id: number | string, from = OFFICE) =>
    t.inject({ method: 'DELETE', url: `/api/ip-whitelist/${id}`, token: boss.token, remoteAddress: from });
  const staffCall = (token: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.inject({ method: 'GET', url: '/api/staff', token, remoteAddress, headers });
  const loginFrom = (email: string, remoteAddress: string, password = PASSWORD) =>
    t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });

  /** Empties the list through the API, removing the entries that do not cover the office first. */
  afterEach(async () => {
    const rows = await t.db.selectFrom('ip_whitelist').select(['id', 'ip_address']).execute();
    rows.sort((a, b) => Number(entryCovers(a.ip_address, OFFICE)) - Number(entryCovers(b.ip_address, OFFICE)));
    for (const row of rows) expect((await remove(row.id)).statusCode).toBe(200);
  });

  it('lets staff in from anywhere while the list is empty, and tells the caller its address', async () => {
    const res = await list(HOME);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ items: [], your_ip: HOME });
    expect((await staffCall(member.token, HOME)).statusCode).toBe(200);
    expect((await loginFrom(member.email, HOME)).statusCode).toBe(200);
  });

  it('adds a range, after which staff outside it are refused on every call and at login, and inside it are let in', async () => {
    const audit0 = await t.auditCount();
    const res = await add('10.0.0.0/8', { description: 'Head office' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      ip_address: '10.0.0.0/8',
      description: 'Head office',
      created_at: expect.any(String),
      created_by_name: 'Whitelist Boss',
    });
    expect(await t.auditCount()).toBe(audit0 + 1);
    const [row] = (await t.auditRows('ip_whitelist.add')).slice(-1);
    expect(row).toMatchObject({ actor_id: boss.id, after: { ip_address: '10.0.0.0/8', description: 'Head office' } });

    // At once, not after a cache runs out.
    const refused = await staffCall(member.token, HOME);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toBe(`Доступ с IP-адреса ${HOME} запрещен`);
    const en = await staffCall(member.token, HOME, { 'accept-language': 'en' });
    expect(en.json().detail).toBe(`Access from IP address ${HOME} is not allowed`);
    expect((await staffCall(member.token, BRANCH)).statusCode).toBe(200);
    // The superadmin is staff too.
    expect((await list(HOME)).statusCode).toBe(403);

    const blockedLogin = await loginFrom(member.email, HOME);
    expect(blockedLogin.statusCode).toBe(401);
    expect(blockedLogin.json().code).toBe('login_invalid');
    expect(sessionCookie(blockedLogin)).toBeUndefined();
    expect((await loginFrom(member.email, BRANCH)).statusCode).toBe(200);
  });

  it('answers a staff login from outside the list exactly like a wrong password, an unknown e-mail or a client', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const someone = await t.createUser('retention_manager');
    const client = await t.createUser('client');
    const right = await loginFrom(someone.email, HOME);
    const wrong = await loginFrom(someone.email, HOME, 'not-the-password');
    // What an address outside the list could compare against: an e-mail nobody has, and a client's wrong password.
    const unknown = await loginFrom('nobody-here@example.com', HOME, 'not-the-password');
    const clientWrong = await loginFrom(client.email, HOME, 'not-the-password');
    for (const res of [right, wrong, unknown, clientWrong]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(unknown.json());
      expect(res.json().code).toBe('login_invalid');
      expect(sessionCookie(res)).toBeUndefined();
    }
    expect(right.body).toBe(wrong.body);
    expect(right.body).toBe(unknown.body);
    // Every header the same, but the clock: the date and the caller's own rate-limit countdown and reset.
    const clockHeaders = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
    const headersOf = (res: typeof right) =>
      Object.fromEntries(Object.entries(res.headers).filter(([name]) => !clockHeaders.has(name)));
    expect(headersOf(right)).toEqual(headersOf(wrong));

    // The log tells the superadmin which attempt had the right password; the caller never learns it.
    const rows = (await t.auditRows('access.denied')).slice(-2);
    expect(rows.map((r) => r.after)).toEqual([
      { reason: 'ip_not_allowed', credentials_correct: true, failures_in_a_row: 1 },
      { reason: 'ip_not_allowed', credentials_correct: false, failures_in_a_row: 2 },
    ]);
    // From inside the list the right password still works.
    expect((await loginFrom(someone.email, BRANCH)).statusCode).toBe(200);
  });

  it('counts every staff login from outside the list towards the sign-in delays, so a delay gives no password away', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const someone = await t.createUser('sales_manager');
    // LOGIN_FREE_FAILURES (3) and one more, right and wrong passwords alike.
    for (let i = 0; i < 4; i += 1) {
      const res = await loginFrom(someone.email, HOME, i % 2 === 0 ? PASSWORD : `wrong-${i}`);
      expect(res.statusCode, `attempt ${i + 1}`).toBe(401);
    }
    const right = await loginFrom(someone.email, HOME);
    const wrong = await loginFrom(someone.email, HOME, 'wrong-again');
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe('login_delayed');
    expect(right.body.replace(/\d+/g, 'N')).toBe(wrong.body.replace(/\d+/g, 'N'));
    // D8 as amended: a delay is per (account, address), never a lock: from the office the member signs in.
    expect((await loginFrom(someone.email, BRANCH)).statusCode).toBe(200);
  });

  it('writes one access.denied row for each refused call and refused login', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const denied0 = await t.auditCount('access.denied');
    const all0 = await t.auditCount();

    await staffCall(member.token, HOME);
    expect(await t.auditCount('access.denied')).toBe(denied0 + 1);
    const [callRow] = (await t.auditRows('access.denied')).slice(-1);
    expect(callRow).toMatchObject({
      actor_id: member.id,
      entity_id: 'GET /api/staff',
      after: { reason: 'ip_not_allowed' },
    });

    await loginFrom(member.email, HOME);
    expect(await t.auditCount('access.denied')).toBe(denied0 + 2);
    const [loginRow] = (await t.auditRows('access.denied')).slice(-1);
    expect(loginRow).toMatchObject({
      actor_id: member.id,
      entity_id: 'POST /api/auth/login',
      after: { reason: 'ip_not_allowed' },
    });
    // Nothing else was written: the refused login is not also a successful one.
    expect(await t.auditCount()).toBe(all0 + 2);

    const ip = await t.db.selectFrom('audit_log').select('ip').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(ip.ip).toBe(HOME);
  });

  it('does not restrict clients', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const client = await t.createUser('client');
    const res = await loginFrom(client.email, HOME);
    expect(res.statusCode).toBe(200);
    const me = await t.inject({
      method: 'GET',
      url: '/api/auth/me',
      token: res.json().access_token,
      remoteAddress: HOME,
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().role).toBe('client');
  });

  it('lets a blocked staff member still sign out', async () => {
    const token = await t.login(member.email, PASSWORD, BRANCH);
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const res = await t.inject({ method: 'POST', url: '/api/auth/logout', token, remoteAddress: HOME });
    expect(res.statusCode).toBe(200);
    expect((await staffCall(token, BRANCH)).statusCode).toBe(401);
  });

  it('uses the socket address and ignores X-Forwarded-For when no proxy is trusted', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const spoofed = await staffCall(member.token, HOME, { 'x-forwarded-for': BRANCH });
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json().detail).toContain(HOME);
  });

  it('stores IPv6 entries in canonical form and matches IPv6 and IPv4-mapped callers', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    const v6 = await add('2001:0DB8:0000::/32', { description: 'VPN' });
    expect(v6.statusCode).toBe(201);
    expect(v6.json().ip_address).toBe('2001:db8::/32');
    const single = await add('2001:0db8:ffff::0001');
    expect(single.statusCode).toBe(201);
    expect(single.json().ip_address).toBe('2001:db8:ffff::1');

    expect((await staffCall(member.token, '2001:db8:abcd::7')).statusCode).toBe(200);
    expect((await staffCall(member.token, '2001:db9::1')).statusCode).toBe(403);
    expect((await staffCall(member.token, '::ffff:10.1.2.3')).statusCode).toBe(200);
    expect((await staffCall(member.token, '::ffff:192.168.5.5')).statusCode).toBe(403);
    expect((await loginFrom(member.email, '2001:db8::42')).statusCode).toBe(200);

    const items = (await list()).json().items.map((i: { ip_address: string }) => i.ip_address);
    expect(items).toEqual(['10.0.0.0/8', '2001:db8::/32', '2001:db8:ffff::1']);
  });

  it("refuses a malformed address with 'Некорректный формат IP-адреса', naming nothing else", async () => {
    for (const bad of ['999.1.1.1', '1.2.3', '10.1.2.3/8', 'abc', '1.2.3.4/33', 'fe80::1%eth0']) {
      const res = await add(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().detail, bad).toBe('Некорректный формат IP-адреса');
    }
    const en = await add('abc', { headers: { 'accept-language': 'en' } });
    expect(en.json().detail).toBe('Invalid IP address format');
    const blank = await add('   ');
    expect(blank.statusCode).toBe(400);
    expect(blank.json().detail).toBe('ip_address: Обязательное поле');
    const wrongType = await add(10);
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().detail).toContain('ip_address');
    expect((await list()).json().items).toEqual([]);
  });

  it('refuses a duplicate, also when written differently', async () => {
    expect((await add('10.0.0.0/8')).statusCode).toBe(201);
    expect((await add('2001:db8::/32')).statusCode).toBe(201);
    for (const dup of ['10.0.0.0/8', ' 10.0.0.0/8 ', '2001:0db8::/32']) {
      const res = await add(dup);
      expect(res.statusCode, dup).toBe(409);
      expect(res.json().detail).toBe('Этот IP-адрес уже есть в списке');
    }
    expect((await list()).json().items).toHaveLength(2);
  });

  it('refuses a first entry that would lock the caller out, then allows it once the caller is covered', async () => {
    const audit0 = await t.auditCount();
    const res = await add('192.168.0.0/16');
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain(OFFICE);
    expect((await list()).json().items).toEqual([]);
    expect(await t.auditCount()).toBe(audit0);
    expect((await staffCall(member.token, HOME)).statusCode).toBe(200);

    expect((await add(OFFICE)).statusCode).toBe(201);
    expect((await add('192.168.0.0/16')).statusCode).toBe(201);
    expect((await staffCall(member.token, HOME)).statusCode).toBe(200);
    expect((await staffCall(member.token, BRANCH)).statusCode).toBe(403);
  });

  it('refuses to remove the last entry covering the caller, while others remain; removes the rest, audited', async () => {
    const office = (await add('10.0.0.0/8')).json();
    const other = (await add('192.168.0.0/16')).json();

    const lockout = await remove(office.id);
    expect(lockout.statusCode).toBe(409);
    expect(lockout.json().detail).toContain(OFFICE);
    expect((await list()).json().items).toHaveLength(2);

    const audit0 = await t.auditCount();
    expect((await remove(other.id)).statusCode).toBe(200);
    expect(await t.auditCount()).toBe(audit0 + 1);
    const [row] = (await t.auditRows('ip_whitelist.remove')).slice(-1);
    expect(row).toMatchObject({
      actor_id: boss.id,
      entity_id: String(other.id),
      before: { ip_address: '192.168.0.0/16' },
    });
    // Refused at once from the address just removed.
    expect((await staffCall(member.token, HOME)).statusCode).toBe(403);

    // The very last entry may go: an empty list is open to all.
    expect((await remove(office.id)).statusCode).toBe(200);
    expect((await staffCall(member.token, HOME)).statusCode).toBe(200);
    expect((await remove(office.id)).statusCode).toBe(404);
  });

  it('is managed by a superadmin only', async () => {
    const admin = await t.userWithToken('admin');
    for (const req of [
      { method: 'GET' as const, url: '/api/ip-whitelist' },
      { method: 'POST' as const, url: '/api/ip-whitelist', payload: { ip_address: '127.0.0.1' } },
      { method: 'DELETE' as const, url: '/api/ip-whitelist/1' },
    ]) {
      expect((await t.inject({ ...req, token: admin.token })).statusCode, req.method).toBe(403);
    }
    expect((await list()).json().items).toEqual([]);
  });
});

/** Behind a trusted proxy the caller's address (and scheme) is the one the proxy reports. */
describe.each(dbKinds())('behind a trusted proxy on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('marks the session cookie Secure when the proxy reports HTTPS', async () => {
    const u = await t.createUser('admin');
    const login = (proto: string) =>
      t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: u.email, password: PASSWORD },
        headers: { 'x-forwarded-proto': proto, 'x-forwarded-for': OFFICE },
      });
    const https = await login('https');
    expect(https.statusCode).toBe(200);
    expect(sessionCookie(https)!.raw).toMatch(/;\s*Secure/i);
    expect(sessionCookie(https)!.raw).toMatch(/;\s*SameSite=Strict/i);
    expect(sessionCookie(await login('http'))!.raw).not.toMatch(/;\s*Secure/i);
  });

  it('checks the forwarded address from the trusted proxy, and the socket address from anyone else', async () => {
    const boss = await t.createUser('superadmin');
    const token = await t.login(boss.email);
    const forwarded = (xff: string, remoteAddress = '127.0.0.1') =>
      t.inject({ method: 'GET', url: '/api/ip-whitelist', token, remoteAddress, headers: { 'x-forwarded-for': xff } });
    const added = await t.inject({
      method: 'POST',
      url: '/api/ip-whitelist',
      token,
      payload: { ip_address: '10.0.0.0/8' },
      headers: { 'x-forwarded-for': OFFICE },
    });
    expect(added.statusCode).toBe(201);
    expect((await forwarded(BRANCH)).statusCode).toBe(200);
    expect((await forwarded(BRANCH)).json().your_ip).toBe(BRANCH);
    expect((await forwarded(HOME)).statusCode).toBe(403);
    // Not the trusted proxy: its X-Forwarded-For is ignored.
    expect((await forwarded(BRANCH, HOME)).statusCode).toBe(403);
  });
});

/** `npm run admin -- clear-ip-whitelist`, the recovery of D8. */
describe.each(dbKinds())('clearing the whitelist from the command line on %s', (kind: DbKind) => {
  let t: TestApp;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-cli-')) : undefined;
    t = await createTestApp(kind, {}, dir ? { dataDir: dir } : {});
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('empties the list, audited, after which a blocked member signs in again', async () => {
    const boss = await t.createUser('superadmin');
    const token = await t.login(boss.email, PASSWORD, OFFICE);
    const member = await t.createUser('retention_manager');
    for (const ip of ['10.0.0.0/8', '2001:db8::/32']) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/ip-whitelist',
        token,
        remoteAddress: OFFICE,
        payload: { ip_address: ip },
      });
      expect(res.statusCode).toBe(201);
    }
    const login = () =>
      t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: member.email, password: PASSWORD },
        remoteAddress: HOME,
      });
    expect((await login()).statusCode).toBe(401);

    const run = await runAdminCommand(t, ['clear-ip-whitelist']);
    t = run.t;
    expect(run.code).toBe(0);
    expect(run.output).toContain('2 entries removed');
    expect(await t.db.selectFrom('ip_whitelist').select('id').execute()).toEqual([]);
    const [row] = (await t.auditRows('ip_whitelist.clear')).slice(-1);
    expect(row).toMatchObject({ actor_id: null, before: { entries: ['10.0.0.0/8', '2001:db8::/32'] } });

    // PostgreSQL: the server kept running and reads the list again once its 2-second cache has run out.
    if (kind === 'postgres') {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 2_100);
    }
    const res = await login();
    expect(res.statusCode).toBe(200);
    expect(res.json().user.id).toBe(member.id);
  });
});
