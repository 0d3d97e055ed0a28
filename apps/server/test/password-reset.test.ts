import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, PASSWORD, type TestApp } from './helpers.js';
import { arrivedMail, linkToken, outboxCount, PUBLIC_URL, randomIp, uniqueEmail } from './mail-links.js';
import { startTestSmtp, type TestSmtp } from './smtp.js';

const KEY = randomBytes(32).toString('base64');
const NEW_PASSWORD = 'brand-new-pass-7';

function codeAt(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

/**
 * Issue 22 §3 over a real SMTP server: the reset request answers alike for a known and an unknown address and only
 * the known one gets mail; the link works once, ends every session, lifts the sign-in delays and keeps 2FA; every
 * password change is mailed to the owner.
 */
describe.each(dbKinds())('password reset on %s', (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    t = await createTestApp(kind, {
      SMTP_URL: smtp.url,
      PUBLIC_URL,
      LOGIN_RATE_PER_MINUTE: '100000',
      CARD_ENCRYPTION_KEY: KEY,
      LOGIN_DELAY_BASE_SECONDS: '60',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const ask = (email: string, ip = randomIp()) =>
    t.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email }, remoteAddress: ip });
  const confirm = (token: string, password = NEW_PASSWORD) =>
    t.inject({ method: 'POST', url: '/api/auth/password-reset/confirm', payload: { token, password } });
  const signIn = (email: string, password: string, ip = '192.0.2.10') =>
    t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress: ip });
  const resetRequests = (key: string) =>
    t.db
      .selectFrom('auth_requests')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('email_key', '=', key)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));

  it('a known and an unknown address get the same answer; only the known one gets mail', async () => {
    const client = await t.createUser('client');
    const unknown = uniqueEmail('nobody');
    const known = await ask(client.email.toUpperCase());
    const other = await ask(unknown);
    expect(known.statusCode).toBe(202);
    expect(other.statusCode).toBe(202);
    expect(known.body).toBe(other.body);
    expect(known.json()).toEqual({ ok: true });
    expect(known.headers['content-type']).toBe(other.headers['content-type']);
    // Both were counted.
    expect(await resetRequests(client.email.toLowerCase())).toBe(1);
    expect(await resetRequests(unknown)).toBe(1);

    const mail = await arrivedMail(t, smtp, client.email, 'password_reset');
    expect(mail.envelopeTo).toEqual([client.email]);
    expect(linkToken(mail, '/reset-password')).toBeTruthy();
    expect(await outboxCount(t, unknown)).toBe(0);
    expect(smtp.received.some((m) => m.envelopeTo.includes(unknown))).toBe(false);
  });

  it('the link works once: it sets the password, ends every session and mails the owner', async () => {
    const client = await t.createUser('client');
    const oldToken = await t.login(client.email);
    const cookieLogin = await signIn(client.email, PASSWORD);
    const cookie = cookieLogin.cookies.find((c) => c.name === 'session')!.value;
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: oldToken })).statusCode).toBe(200);

    expect((await ask(client.email)).statusCode).toBe(202);
    const token = linkToken(await arrivedMail(t, smtp, client.email, 'password_reset'), '/reset-password');
    const done = await confirm(token);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ ok: true });

    // Every old session ended: the bearer token and the cookie both.
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token: oldToken })).statusCode).toBe(401);
    const byCookie = await t.inject({ method: 'GET', url: '/api/auth/me', cookies: { session: cookie } });
    expect(byCookie.statusCode).toBe(401);

    const again = await confirm(token, 'another-pass-9');
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('link_used');
    expect((await signIn(client.email, PASSWORD)).statusCode).toBe(401);
    expect((await signIn(client.email, NEW_PASSWORD)).statusCode).toBe(200);

    const changed = await arrivedMail(t, smtp, client.email, 'password_changed');
    expect(changed.envelopeTo).toEqual([client.email]);
    const audit = await t.auditRows('auth.password_reset');
    expect(audit.at(-1)).toMatchObject({ entity_id: client.id, actor_id: client.id });
    // No token in any audit row.
    const everything = JSON.stringify(await t.auditRows());
    expect(everything).not.toContain(token);
  });

  it('an expired or unknown link answers 400 and changes nothing', async () => {
    const client = await t.createUser('client');
    await ask(client.email);
    const token = linkToken(await arrivedMail(t, smtp, client.email, 'password_reset'), '/reset-password');
    await t.db
      .updateTable('auth_tokens')
      .set({ expires_at: sql`now() - interval '1 minute'` })
      .where('user_id', '=', client.id)
      .where('purpose', '=', 'password_reset')
      .execute();
    const expired = await confirm(token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().code).toBe('link_expired');
    const unknown = await confirm('nothing-like-a-real-token');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('link_invalid');
    expect((await signIn(client.email, PASSWORD)).statusCode).toBe(200);
  });

  it('lifts the sign-in delays of the address from every client address', async () => {
    const client = await t.createUser('client');
    const attacker = '203.0.113.77';
    let last = 0;
    for (let i = 0; i < 8 && last !== 429; i++) last = (await signIn(client.email, `guess-${i}`, attacker)).statusCode;
    expect(last).toBe(429);
    await ask(client.email);
    await confirm(linkToken(await arrivedMail(t, smtp, client.email, 'password_reset'), '/reset-password'));
    const after = await signIn(client.email, NEW_PASSWORD, attacker);
    expect(after.statusCode, after.body).toBe(200);
  });

  it('a staff member with two-factor sign-in still needs the code after a reset', async () => {
    const member = await t.createUser('sales_manager');
    const token = await t.login(member.email);
    const started = await t.inject({
      method: 'POST',
      url: '/api/auth/2fa/setup',
      token,
      payload: { password: PASSWORD },
    });
    expect(started.statusCode, started.body).toBe(200);
    const secret = started.json().secret as string;
    const enrolled = await t.inject({
      method: 'POST',
      url: '/api/auth/2fa/setup/confirm',
      token,
      payload: { code: codeAt(secret) },
    });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    // The enrollment is mailed to the member.
    expect((await arrivedMail(t, smtp, member.email, 'two_factor_enrolled')).envelopeTo).toEqual([member.email]);

    await ask(member.email);
    const reset = await confirm(
      linkToken(await arrivedMail(t, smtp, member.email, 'password_reset'), '/reset-password'),
    );
    expect(reset.statusCode).toBe(200);
    const next = await signIn(member.email, NEW_PASSWORD);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json()).toMatchObject({ otp_required: true });
    expect(next.json().access_token).toBeUndefined();
  });

  it('limits: 3 an hour per address (known or not) and 20 an hour per client address, with Retry-After', async () => {
    const client = await t.createUser('client');
    const unknown = uniqueEmail('ghost');
    for (const email of [client.email, unknown]) {
      for (let i = 0; i < 3; i++) expect((await ask(email)).statusCode).toBe(202);
      const limited = await ask(email);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().code).toBe('password_reset_limited');
      const wait = Number(limited.headers['retry-after']);
      expect(wait).toBeGreaterThan(3500);
      expect(wait).toBeLessThanOrEqual(3600);
    }
    // The known one got its three mails, no more.
    expect(await outboxCount(t, client.email, 'password_reset')).toBe(3);

    const ip = '198.51.100.200';
    for (let i = 0; i < 20; i++) expect((await ask(uniqueEmail(`ip${i}`), ip)).statusCode).toBe(202);
    const byIp = await ask(uniqueEmail('one-more'), ip);
    expect(byIp.statusCode).toBe(429);
    expect(byIp.json().code).toBe('password_reset_limited');
  });

  it('a password set by staff is mailed to its owner, staff member or client', async () => {
    const superadmin = await t.userWithToken('superadmin');
    const member = await t.createUser('manager');
    const set = await t.inject({
      method: 'PUT',
      url: `/api/users/${member.id}/password`,
      token: superadmin.token,
      payload: { new_password: NEW_PASSWORD },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect((await arrivedMail(t, smtp, member.email, 'password_changed')).envelopeTo).toEqual([member.email]);

    const created = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: superadmin.token,
      payload: { name: 'Card Client', email: uniqueEmail('card'), phone: '+380501112277', country: 'Украина' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const email = uniqueEmail('login');
    const registered = await t.inject({
      method: 'POST',
      url: `/api/clients/${created.json().id}/register-user`,
      token: superadmin.token,
      payload: { name: 'Card Client', email, password: 'secret-123' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const changed = await t.inject({
      method: 'PUT',
      url: `/api/clients/${created.json().id}/change-password`,
      token: superadmin.token,
      payload: { new_password: NEW_PASSWORD },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await arrivedMail(t, smtp, email, 'password_changed')).envelopeTo).toEqual([email]);
  });
});
