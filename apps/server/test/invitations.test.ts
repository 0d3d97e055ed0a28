import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, PASSWORD, runAdminCommand, type TestApp } from './helpers.js';
import { arrivedMail, linkToken, PUBLIC_URL, uniqueEmail } from './mail-links.js';
import { startTestSmtp, type TestSmtp } from './smtp.js';

const KEY = randomBytes(32).toString('base64');
const CHOSEN = 'my-own-password-5';

function codeAt(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

/**
 * Issue 22 §4 over a real SMTP server: 'Добавить сотрудника' without a password invites by e-mail; the link sets the
 * password and signs in as /api/auth/login would; resend replaces the link, revoke removes the member. Also the
 * two_factor_reset mail of the reset-2fa command (§5).
 */
describe.each(dbKinds())('staff invitations on %s', (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  let dir: string | undefined;
  let boss: { id: string; email: string; token: string };

  beforeAll(async () => {
    smtp = await startTestSmtp();
    // The embedded database lives on disk so the command line (reset-2fa) can open it.
    dir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-invite-')) : undefined;
    t = await createTestApp(
      kind,
      {
        SMTP_URL: smtp.url,
        PUBLIC_URL,
        REQUIRE_2FA_ROLES: 'admin',
        CARD_ENCRYPTION_KEY: KEY,
        LOGIN_RATE_PER_MINUTE: '100000',
      },
      dir ? { dataDir: dir } : {},
    );
    boss = await t.userWithToken('superadmin');
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const invite = (payload: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: '/api/auth/register', token: boss.token, payload });
  const info = (token: string) =>
    t.inject({ method: 'GET', url: `/api/auth/invitation?token=${encodeURIComponent(token)}` });
  const accept = (token: string, password = CHOSEN) =>
    t.inject({ method: 'POST', url: '/api/auth/invitation/accept', payload: { token, password } });
  const staffList = async () => {
    const res = await t.inject({ method: 'GET', url: '/api/users?per_page=100', token: boss.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().items as { id: string; email: string; invited: boolean; invitation_expires_at: string | null }[];
  };
  const signIn = (email: string, password: string) =>
    t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });

  it('a member added without a password is invited; the link sets the password and signs in', async () => {
    const email = uniqueEmail('invited');
    const res = await invite({ name: 'Invited Manager', email, password: '', role: 'sales_manager' });
    expect(res.statusCode, res.body).toBe(201);
    const member = res.json();
    expect(member).toMatchObject({ email, role: 'sales_manager', invited: true });
    const expires = new Date(member.invitation_expires_at).getTime();
    expect(Math.abs(expires - (Date.now() + 72 * 3600_000))).toBeLessThan(60_000);
    expect((await staffList()).find((m) => m.id === member.id)).toMatchObject({
      invited: true,
      invitation_expires_at: member.invitation_expires_at,
    });

    // No password signs in before the invitation is accepted, not even the unusable marker.
    for (const password of ['!invited', PASSWORD, CHOSEN]) {
      expect((await signIn(email, password)).statusCode).toBe(401);
    }

    const mail = await arrivedMail(t, smtp, email, 'staff_invitation');
    expect(mail.envelopeTo).toEqual([email]);
    const token = linkToken(mail, '/invitation');
    const shown = await info(token);
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json()).toEqual({ name: 'Invited Manager', email, role: 'sales_manager', two_factor_required: false });

    const accepted = await accept(token);
    expect(accepted.statusCode, accepted.body).toBe(200);
    const session = accepted.json();
    expect(session.user).toMatchObject({ id: member.id, email });
    expect(accepted.cookies.some((c) => c.name === 'session')).toBe(true);
    const me = await t.inject({ method: 'GET', url: '/api/auth/me', token: session.access_token });
    expect(me.json()).toMatchObject({ id: member.id, email_verified: true });
    expect((await staffList()).find((m) => m.id === member.id)).toMatchObject({
      invited: false,
      invitation_expires_at: null,
    });

    // The link is spent; the chosen password signs in.
    const used = await info(token);
    expect(used.statusCode).toBe(400);
    expect(used.json().code).toBe('link_used');
    expect((await accept(token, 'hijack-attempt-1')).statusCode).toBe(400);
    expect((await signIn(email, CHOSEN)).statusCode).toBe(200);
    // Resending to a member who set a password is refused.
    const late = await t.inject({ method: 'POST', url: `/api/users/${member.id}/invitation`, token: boss.token });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('not_invited');

    const audit = await t.auditRows();
    expect(audit.some((r) => r.action === 'user.create' && r.entity_id === member.id)).toBe(true);
    expect(audit.some((r) => r.action === 'auth.invitation_accept' && r.entity_id === member.id)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('the typed-password path stays as it was', async () => {
    const email = uniqueEmail('typed');
    const res = await invite({ name: 'Typed', email, password: 'typed-pass-1', role: 'sales_manager' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ invited: false, invitation_expires_at: null });
    expect((await signIn(email, 'typed-pass-1')).statusCode).toBe(200);
  });

  it('resend replaces the link; revoke makes it fail and removes the member', async () => {
    const email = uniqueEmail('twice');
    const created = await invite({ name: 'Twice', email, role: 'retention_manager' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const first = linkToken(await arrivedMail(t, smtp, email, 'staff_invitation'), '/invitation');

    const again = await t.inject({ method: 'POST', url: `/api/users/${id}/invitation`, token: boss.token });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toEqual({ ok: true });
    const second = linkToken(await arrivedMail(t, smtp, email, 'staff_invitation'), '/invitation');
    expect(second).not.toBe(first);
    const old = await info(first);
    expect(old.statusCode).toBe(400);
    expect(old.json().code).toBe('link_invalid');
    expect((await info(second)).statusCode).toBe(200);
    // Editing an invited member keeps showing the invitation.
    const edited = await t.inject({
      method: 'PUT',
      url: `/api/users/${id}`,
      token: boss.token,
      payload: { name: 'Twice Renamed', email, role: 'retention_manager' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'Twice Renamed', invited: true });
    expect(edited.json().invitation_expires_at).toEqual(expect.any(String));

    const revoked = await t.inject({ method: 'DELETE', url: `/api/users/${id}/invitation`, token: boss.token });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const dead = await info(second);
    expect(dead.statusCode).toBe(400);
    expect(dead.json().code).toBe('link_invalid');
    expect((await accept(second)).statusCode).toBe(400);
    expect((await staffList()).some((m) => m.id === id)).toBe(false);
    expect((await signIn(email, CHOSEN)).statusCode).toBe(401);
    const actions = (await t.auditRows()).filter((r) => r.entity_id === id).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['user.invitation_resend', 'user.invitation_revoke']));
  });

  it('a role that must use two-factor sign-in gets the enrollment step after accepting; reset-2fa is mailed', async () => {
    const email = uniqueEmail('admin');
    const created = await invite({ name: 'New Admin', email, role: 'admin' });
    expect(created.statusCode, created.body).toBe(201);
    const token = linkToken(await arrivedMail(t, smtp, email, 'staff_invitation'), '/invitation');
    expect((await info(token)).json()).toMatchObject({ role: 'admin', two_factor_required: true });

    const accepted = await accept(token);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ enrollment_required: true, challenge: expect.any(String) });
    const challenge = accepted.json().challenge as string;
    const enroll = await t.inject({ method: 'POST', url: '/api/auth/2fa/enroll', payload: { challenge } });
    expect(enroll.statusCode, enroll.body).toBe(200);
    const done = await t.inject({
      method: 'POST',
      url: '/api/auth/2fa/confirm',
      payload: { challenge, code: codeAt(enroll.json().secret) },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().access_token).toBeTruthy();
    expect((await arrivedMail(t, smtp, email, 'two_factor_enrolled')).envelopeTo).toEqual([email]);

    if (!t.cliEnv) return;
    // The command runs with the server's environment, SMTP_URL included: its mail waits for the server's worker.
    const run = await runAdminCommand(t, ['reset-2fa', email], { SMTP_URL: smtp.url, PUBLIC_URL });
    t = run.t;
    expect(run.code, run.output).toBe(0);
    const reset = await arrivedMail(t, smtp, email, 'two_factor_reset');
    expect(reset.envelopeTo).toEqual([email]);
  });
});
