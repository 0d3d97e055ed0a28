import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, PASSWORD, type TestApp } from './helpers.js';
import { arrivedMail, linkToken, outboxCount, PUBLIC_URL, randomIp, uniqueEmail } from './mail-links.js';
import { startTestSmtp, type TestSmtp } from './smtp.js';
import { fund } from './trading-helpers.js';

const CLIENT_PASSWORD = 'secret-123';
const CARD = {
  card_number: '4111111111111111',
  card_holder: 'Ivan Petrov',
  card_expiry: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`,
};

/**
 * Issue 22 §2 (and the new-device mail of §5) over a real SMTP server: the verification e-mail ARRIVES, its link
 * verifies the address, and until then the money requests answer 409 email_unverified.
 */
describe.each(dbKinds())('verified e-mail on %s', (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    t = await createTestApp(kind, { SMTP_URL: smtp.url, PUBLIC_URL, LOGIN_RATE_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  interface Registered {
    email: string;
    token: string;
    userId: string;
    accountId: number;
    ip: string;
  }

  async function register(language?: 'ru' | 'en' | 'kk', ip = randomIp()): Promise<Registered> {
    const email = uniqueEmail('verify');
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register-client',
      payload: { name: 'Verify Me', email, password: CLIENT_PASSWORD, ...(language ? { language } : {}) },
      remoteAddress: ip,
      headers: { 'user-agent': 'Browser A' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { access_token: token, user } = res.json() as { access_token: string; user: { id: string } };
    const account = await t.db
      .selectFrom('trading_accounts')
      .select('id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    return { email, token, userId: user.id, accountId: Number(account.id), ip };
  }

  const me = async (token: string) => {
    const res = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const verify = (token: string) => t.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
  const resend = (token: string) => t.inject({ method: 'POST', url: '/api/auth/verify-email/resend', token });
  /** Moves the user's verification links `seconds` into the past, as if that much time had gone by. */
  const age = (userId: string, seconds: number) =>
    t.db
      .updateTable('auth_tokens')
      .set({
        created_at: sql`created_at - make_interval(secs => ${seconds})`,
        expires_at: sql`expires_at - make_interval(secs => ${seconds})`,
      })
      .where('user_id', '=', userId)
      .where('purpose', '=', 'verify_email')
      .execute();

  it('registration mails a link that verifies the address once; until then withdrawal and top-up answer 409', async () => {
    const client = await register('kk');
    const before = await me(client.token);
    expect(before).toMatchObject({ email_verified: false, pending_email: null, language: 'kk', mail_opt_out: false });

    // Demo trading and looking around work; money requests do not.
    await fund(t, client.accountId, 500_00);
    const withdraw = () =>
      t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: client.token,
        payload: { amount: 100, ...CARD },
      });
    const methods = await t.db.selectFrom('deposit_methods').select('id').where('enabled', '=', true).execute();
    const topUp = () =>
      t.inject({
        method: 'POST',
        url: '/api/deposit-intents',
        token: client.token,
        payload: { amount: 50, method_id: Number(methods[0]!.id) },
      });
    for (const res of [await withdraw(), await topUp()]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().code).toBe('email_unverified');
      expect(res.json().detail).toMatch(/email/i);
    }

    const mail = await arrivedMail(t, smtp, client.email, 'verify_email');
    expect(mail.envelopeTo).toEqual([client.email]);
    const stored = await t.db
      .selectFrom('mail_outbox')
      .select(['language', 'status'])
      .where('to_address', '=', client.email)
      .where('template', '=', 'verify_email')
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ language: 'kk', status: 'sent' });
    const token = linkToken(mail, '/verify-email');
    // Only the hash is stored.
    const tokens = await t.db.selectFrom('auth_tokens').select('token_hash').execute();
    expect(tokens.some((r) => r.token_hash === token)).toBe(false);

    const ok = await verify(token);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ ok: true, email: client.email });
    expect(await me(client.token)).toMatchObject({ email_verified: true, pending_email: null });

    const again = await verify(token);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('link_used');

    // Verified: the requests go through.
    const filed = await withdraw();
    expect(filed.statusCode, filed.body).toBe(201);
    const intent = await topUp();
    expect(intent.statusCode, intent.body).toBe(201);
    // Nothing to resend any more.
    const nothing = await resend(client.token);
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().code).toBe('email_already_verified');
  });

  it('an expired or unknown link answers 400 and verifies nothing', async () => {
    const client = await register();
    const token = linkToken(await arrivedMail(t, smtp, client.email, 'verify_email'), '/verify-email');
    await age(client.userId, 25 * 3600);
    const expired = await verify(token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().code).toBe('link_expired');
    expect(expired.json().detail).toBeTruthy();
    const unknown = await verify('not-a-token-we-ever-sent');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('link_invalid');
    expect((await me(client.token)).email_verified).toBe(false);
  });

  it('resend: at most once a minute and ten a day; the resent link works', async () => {
    const client = await register('en');
    // The registration's mail was just sent.
    const soon = await resend(client.token);
    expect(soon.statusCode).toBe(429);
    expect(soon.json().code).toBe('resend_too_soon');
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(soon.headers['retry-after'])).toBeLessThanOrEqual(60);

    for (let sent = 1; sent < 10; sent++) {
      await age(client.userId, 61);
      const res = await resend(client.token);
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ ok: true });
    }
    expect(await outboxCount(t, client.email, 'verify_email')).toBe(10);
    await age(client.userId, 61);
    const daily = await resend(client.token);
    expect(daily.statusCode).toBe(429);
    expect(daily.json().code).toBe('resend_daily_limit');
    expect(Number(daily.headers['retry-after'])).toBeGreaterThan(0);
    expect(await outboxCount(t, client.email, 'verify_email')).toBe(10);

    // The newest link (a resend's) arrives and verifies.
    const mail = await arrivedMail(t, smtp, client.email, 'verify_email');
    expect((await verify(linkToken(mail, '/verify-email'))).statusCode).toBe(200);
    expect((await me(client.token)).email_verified).toBe(true);
  });

  it('an e-mail change: the new address proves itself before it replaces the old, which is told', async () => {
    const client = await register();
    await verify(linkToken(await arrivedMail(t, smtp, client.email, 'verify_email'), '/verify-email'));
    await age(client.userId, 120);
    const newEmail = uniqueEmail('changed');
    const change = (payload: object) =>
      t.inject({ method: 'POST', url: '/api/auth/email-change', token: client.token, payload });

    const wrong = await change({ email: newEmail, password: 'not-my-password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('password_wrong');
    const other = await t.createUser('client');
    const taken = await change({ email: other.email.toUpperCase(), password: CLIENT_PASSWORD });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('email_taken');

    const asked = await change({ email: newEmail, password: CLIENT_PASSWORD });
    expect(asked.statusCode, asked.body).toBe(202);
    expect(await me(client.token)).toMatchObject({
      email: client.email,
      pending_email: newEmail,
      email_verified: true,
    });

    const notice = await arrivedMail(t, smtp, client.email, 'email_changed');
    expect(notice.envelopeTo).toEqual([client.email]);
    expect(notice.parsed.text).toContain(newEmail);
    const link = await arrivedMail(t, smtp, newEmail, 'verify_email');
    expect(link.envelopeTo).toEqual([newEmail]);
    // Until the link is opened the old address signs in, the new one does not.
    const signIn = (email: string) =>
      t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: CLIENT_PASSWORD } });
    expect((await signIn(newEmail)).statusCode).toBe(401);

    const opened = await verify(linkToken(link, '/verify-email'));
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json()).toEqual({ ok: true, email: newEmail });
    expect(await me(client.token)).toMatchObject({ email: newEmail, pending_email: null, email_verified: true });
    const crm = await t.db
      .selectFrom('clients')
      .select('email')
      .where('user_id', '=', client.userId)
      .executeTakeFirstOrThrow();
    expect(crm.email).toBe(newEmail);
    expect((await signIn(newEmail)).statusCode).toBe(200);
    expect((await signIn(client.email)).statusCode).toBe(401);
    const audit = await t.auditRows('auth.email_changed');
    expect(audit.at(-1)).toMatchObject({ entity_id: client.userId, after: { email: newEmail } });
  });

  it('a sign-in from a new address or browser is mailed; the same device, and a first sign-in, are not', async () => {
    const client = await register('ru', '198.51.100.7');
    const signIn = (ip: string, agent: string) =>
      t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: client.email, password: CLIENT_PASSWORD },
        remoteAddress: ip,
        headers: { 'user-agent': agent },
      });
    expect((await signIn('198.51.100.7', 'Browser A')).statusCode).toBe(200);
    expect(await outboxCount(t, client.email, 'new_sign_in')).toBe(0);
    expect((await signIn('203.0.113.99', 'Browser B')).statusCode).toBe(200);
    expect(await outboxCount(t, client.email, 'new_sign_in')).toBe(1);
    const mail = await arrivedMail(t, smtp, client.email, 'new_sign_in');
    expect(mail.parsed.text).toContain('203.0.113.99');
    // That device is known now.
    expect((await signIn('203.0.113.99', 'Browser B')).statusCode).toBe(200);
    expect(await outboxCount(t, client.email, 'new_sign_in')).toBe(1);

    // A staff member's very first sign-in is not "new": there is nothing to compare with.
    const staff = await t.createUser('admin');
    await t.login(staff.email, PASSWORD);
    expect(await outboxCount(t, staff.email, 'new_sign_in')).toBe(0);
  });

  it('the profile sets the mail language and switches; a staff-created client login is sent a link too', async () => {
    const client = await register();
    const res = await t.inject({
      method: 'PUT',
      url: '/api/auth/profile',
      token: client.token,
      payload: { language: 'en', mail_opt_out: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ language: 'en', mail_opt_out: true, digest_opt_in: false });
    expect(await me(client.token)).toMatchObject({ language: 'en', mail_opt_out: true });
    const empty = await t.inject({ method: 'PUT', url: '/api/auth/profile', token: client.token, payload: {} });
    expect(empty.statusCode).toBe(400);
    const audit = await t.auditRows('user.profile_update');
    expect(audit.at(-1)).toMatchObject({
      entity_id: client.userId,
      before: { language: 'ru', mail_opt_out: false },
      after: { language: 'en', mail_opt_out: true },
    });

    // Staff type the address of a client's login: it stays unverified and the link goes to it.
    const admin = await t.userWithToken('admin');
    const leadEmail = uniqueEmail('lead');
    const created = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: admin.token,
      payload: { name: 'Phone Lead', email: leadEmail, phone: '+380501112299', country: 'Украина' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const lead = { id: created.json().id as number, email: leadEmail };
    const made = await t.inject({
      method: 'POST',
      url: `/api/clients/${lead.id}/register-user`,
      token: admin.token,
      payload: { name: 'Phone Lead', email: lead.email, password: CLIENT_PASSWORD },
    });
    expect(made.statusCode, made.body).toBe(201);
    const login = await t.login(lead.email, CLIENT_PASSWORD);
    expect((await me(login)).email_verified).toBe(false);
    const mail = await arrivedMail(t, smtp, lead.email, 'verify_email');
    expect((await verify(linkToken(mail, '/verify-email'))).statusCode).toBe(200);
    expect((await me(login)).email_verified).toBe(true);
  });
});
