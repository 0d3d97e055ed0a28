import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delayAfter, type DelayPolicy } from '../src/platform/auth/sign-in-delays.js';
import { PASSWORD, createTestApp, dbKinds, sessionCookie, type TestApp } from './helpers.js';

describe('the delay rule', () => {
  it('is free for the first failures, then doubles from the base up to the cap', () => {
    const policy: DelayPolicy = {
      freeFailures: 3,
      baseSeconds: 1,
      maxSeconds: 900,
      ipFreeFailures: 50,
      windowMinutes: 60,
    };
    const waits = Array.from({ length: 16 }, (_, i) => delayAfter(i + 1, policy.freeFailures, policy));
    expect(waits).toEqual([0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    expect(delayAfter(10_000, 3, policy)).toBe(900);
  });
});

/** Sign-in delays instead of the hard lock (issue 13 item 4, D8 as amended by D20), on each database. */
describe.each(dbKinds())('sign-in delays on %s', (kind) => {
  let t: TestApp;
  const ATTACKER = '203.0.113.66';
  const OWNER = '198.51.100.20';
  beforeAll(async () => {
    t = await createTestApp(kind, {
      LOGIN_RATE_PER_MINUTE: '100000',
      // A long first delay, so a refusal is still running when the next call comes, however slow the machine.
      LOGIN_DELAY_BASE_SECONDS: '60',
      LOGIN_IP_FREE_FAILURES: '10',
    });
  });
  afterAll(() => t.close());

  const login = (email: string, password: string, remoteAddress: string, lang?: string) =>
    t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress,
      ...(lang ? { headers: { 'accept-language': lang } } : {}),
    });

  it('twenty wrong passwords from one address do not stop the right password from another', async () => {
    const admin = await t.createUser('admin');
    const answers: number[] = [];
    for (let i = 0; i < 20; i++) answers.push((await login(admin.email, `guess-${i}`, ATTACKER)).statusCode);
    // The free failures, then refusals: the attacker's address is slowed down, not the account locked.
    expect(answers.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(answers.slice(4).every((s) => s === 429)).toBe(true);
    // Even the right password waits from the attacker's address.
    expect((await login(admin.email, PASSWORD, ATTACKER)).statusCode).toBe(429);

    const owner = await login(admin.email, PASSWORD, OWNER);
    expect(owner.statusCode).toBe(200);
    expect(sessionCookie(owner)).toBeDefined();
    // The notice of the failed attempts since the previous sign-in: the twenty-one from the attacker.
    const notice = owner.json().failed_attempts;
    expect(notice).toEqual({ count: 21, last_at: expect.any(String), last_ip: ATTACKER });
    expect(Math.abs(Date.parse(notice.last_at) - Date.now())).toBeLessThan(5 * 60_000);
    // Shown once: the next sign-in has nothing to tell.
    const next = await login(admin.email, PASSWORD, OWNER);
    expect(next.statusCode).toBe(200);
    expect(next.json().failed_attempts).toBeUndefined();
  });

  it('refuses with 429, Retry-After and a detail naming the wait, in Russian and in English', async () => {
    const member = await t.createUser('sales_manager');
    const FROM = '203.0.113.67';
    for (let i = 0; i < 4; i++) await login(member.email, 'wrong', FROM);
    const ru = await login(member.email, 'wrong', FROM);
    expect(ru.statusCode).toBe(429);
    const wait = Number(ru.headers['retry-after']);
    expect(Number.isInteger(wait) && wait > 0 && wait <= 60).toBe(true);
    expect(ru.json()).toEqual({
      detail: `Слишком много неудачных попыток входа. Повторите через ${wait} с.`,
      code: 'login_delayed',
    });
    const en = await login(member.email, PASSWORD, FROM, 'en');
    expect(en.statusCode).toBe(429);
    expect(en.json().detail).toBe(`Too many failed sign-in attempts. Try again in ${en.headers['retry-after']} s.`);
    expect(sessionCookie(en)).toBeUndefined();
    const [row] = (await t.auditRows('auth.login_failed')).slice(-1);
    expect(row).toMatchObject({ entity_id: member.email, after: { reason: 'delayed' } });
  });

  it('slows down one address trying many accounts, while those accounts sign in from elsewhere', async () => {
    const SPRAYER = '203.0.113.90';
    const victims = await Promise.all(Array.from({ length: 11 }, () => t.createUser('retention_manager')));
    // One wrong password per account: no pair is slowed down, but the address has spent its free failures (10).
    for (const v of victims) expect((await login(v.email, 'Spring2026!', SPRAYER)).statusCode).toBe(401);
    const next = await t.createUser('retention_manager');
    const refused = await login(next.email, PASSWORD, SPRAYER);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(next.email, PASSWORD, OWNER)).statusCode).toBe(200);
    expect((await login(victims[0]!.email, PASSWORD, OWNER)).statusCode).toBe(200);
  });

  it('forgets failures once the window has passed without a new one', async () => {
    const member = await t.createUser('manager');
    const FROM = '203.0.113.68';
    for (let i = 0; i < 4; i++) await login(member.email, 'wrong', FROM);
    expect((await login(member.email, PASSWORD, FROM)).statusCode).toBe(429);
    await t.db
      .updateTable('sign_in_failures')
      .set({ last_failed_at: sql`now() - interval '2 hours'` })
      .where('email_key', '=', member.email)
      .execute();
    const ok = await login(member.email, PASSWORD, FROM);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().failed_attempts).toMatchObject({ count: 5, last_ip: FROM });
  });
});
