import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../apps/server/test/server-process.js';
import { linkIn, startTestSmtp, type ReceivedMail, type TestSmtp } from '../../apps/server/test/smtp.js';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { startServer, type RunningServer } from '../support/server.js';

const BOSS = { email: 'boss@e2e.local', password: 'e2e-boss-pass' };
const CLIENT = { name: 'Айгерим Почтовая', email: `aigerim.${Date.now()}@example.com`, password: 'first-pass-1' };
const NEW_PASSWORD = 'second-pass-2';
const STAFF = { name: 'Олжас Приглашённый', email: `olzhas.${Date.now()}@e2e.local`, password: 'olzhas-pass-1' };

/**
 * Issue 22 in a real Chromium against the real server, which sends its mail over SMTP to a real SMTP server: the
 * verification link of a new client, the self-service password reset, and a staff invitation.
 */
describe.runIf(browserAvailable())('e-mail flows in the browser', () => {
  let smtp: TestSmtp;
  let server: RunningServer;
  let browser: Browser;
  /** The server's address: the links in the mail point here (PUBLIC_URL), so it is fixed before the start. */
  let base = '';
  /** The client's signed-in context from the registration (its session must end with the reset). */
  let clientContext: BrowserContext | null = null;
  /** The console problems of every page (each page's list fills as it runs). */
  const watched: string[][] = [];

  beforeAll(async () => {
    smtp = await startTestSmtp();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startServer({
      DEMO_DATA: '0',
      ADMIN_EMAIL: BOSS.email,
      ADMIN_PASSWORD: BOSS.password,
      LOGIN_RATE_PER_MINUTE: '1000',
      PORT: String(port),
      PUBLIC_URL: base,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Broker <noreply@e2e.local>',
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  async function newPage(viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    const page = await context.newPage();
    watched.push(watchConsole(page));
    return page;
  }

  /** The first message to `to` that carries a link starting with `prefix`, as it arrived over SMTP. */
  async function mailWithLink(to: string, prefix: string): Promise<{ mail: ReceivedMail; link: string }> {
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(to) && (m.parsed.text ?? '').includes(prefix), 30_000);
    return { mail, link: linkIn(mail, prefix) };
  }

  /** GET /api/auth/me from inside the page (its session cookie): the status and the body. */
  function me(page: Page): Promise<{ status: number; body: Record<string, unknown> | null }> {
    return page.evaluate(async () => {
      const res = await fetch('/api/auth/me', { headers: { Accept: 'application/json' } });
      return { status: res.status, body: res.ok ? ((await res.json()) as Record<string, unknown>) : null };
    });
  }

  it('a client registers on the site, the verification e-mail arrives, its link verifies the address', async () => {
    const page = await newPage();
    clientContext = page.context();
    await page.goto(`${base}/`);
    await page.locator('#home').getByRole('button', { name: 'Начать торговлю' }).click();
    const form = page.getByTestId('register-form');
    await form.waitFor();
    await form.locator('#auth-name').fill(CLIENT.name);
    await form.locator('#auth-phone').fill('+7 701 555 22 11');
    await form.locator('#auth-email').fill(CLIENT.email);
    await form.locator('#auth-password').fill(CLIENT.password);
    await form.locator('#auth-confirmPassword').fill(CLIENT.password);
    await form.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.pathname === '/trading', { timeout: 20_000 });

    // Unverified: the banner says so, and /me agrees.
    const banner = page.getByTestId('email-unverified-banner');
    await banner.waitFor({ timeout: 20_000 });
    expect(await banner.textContent()).toContain(CLIENT.email);
    expect((await me(page)).body?.email_verified).toBe(false);
    await shot(page, 'email-banner-desktop');

    // The e-mail came over SMTP, in Russian (the site's language), with the verification link to this server.
    const { mail, link } = await mailWithLink(CLIENT.email, `${base}/verify-email?token=`);
    expect(mail.parsed.from?.text).toContain('noreply@e2e.local');
    expect(link).toMatch(/\/verify-email\?token=[\w-]{20,}/);

    // Opened in the signed-in browser: the page confirms, the trading screen no longer shows the banner.
    await page.goto(link);
    const done = page.getByTestId('verify-done');
    await done.waitFor({ timeout: 20_000 });
    expect(await done.textContent()).toContain(CLIENT.email);
    await shot(page, 'verify-email-done-desktop');
    expect((await me(page)).body?.email_verified).toBe(true);
    await page.goto(`${base}/trading`);
    await page.getByTestId('account-button').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('email-unverified-banner').count()).toBe(0);

    // The profile shows the address as verified, with the mail settings.
    await page.getByTestId('account-button').click();
    await page.getByTestId('menu-profile').click();
    await page.getByTestId('profile-verified').waitFor();
    expect(await page.getByTestId('profile-verified').textContent()).toBe('подтверждён');
    expect(await page.getByTestId('profile-email').textContent()).toBe(CLIENT.email);
    await shot(page, 'profile-dialog-desktop');

    // The link works once: opened again (on a phone), it is refused with a reason.
    const phone = await newPage(PHONE);
    await phone.goto(link);
    const error = phone.getByTestId('verify-error');
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).toContain('уже использована');
    await shot(phone, 'verify-email-used-phone');
    await phone.context().close();
  });

  it("'Забыли пароль?' on the site: the reset e-mail's link sets a new password; the old one and old sessions end", async () => {
    expect(clientContext).not.toBeNull();
    const page = await newPage();
    await page.goto(`${base}/`);
    await page.locator('.site-header').getByRole('button', { name: 'Войти' }).first().click();
    const modal = page.getByTestId('auth-modal');
    await modal.getByTestId('login-form').waitFor();
    await modal.locator('#auth-email').fill(CLIENT.email);
    await modal.getByTestId('forgot-link').click();

    // The request form, with the typed address, and where to get help.
    const forgot = modal.getByTestId('forgot-form');
    await forgot.waitFor();
    expect(await forgot.locator('#forgot-email').inputValue()).toBe(CLIENT.email);
    expect(await modal.getByTestId('reset-help').textContent()).toContain('Поддержку');
    await shot(page, 'site-forgot-desktop');
    await forgot.locator('button[type="submit"]').click();
    await modal.getByTestId('forgot-sent').waitFor();
    expect(await modal.getByTestId('forgot-sent').textContent()).toContain(CLIENT.email);

    const { link } = await mailWithLink(CLIENT.email, `${base}/reset-password?token=`);
    const phone = await newPage(PHONE);
    await phone.goto(link);
    const reset = phone.getByTestId('reset-form');
    await reset.waitFor({ timeout: 20_000 });
    await shot(phone, 'reset-password-phone');
    // The browser checks the pair first: too short, then different.
    const [first, second] = [reset.locator('input').nth(0), reset.locator('input').nth(1)];
    await first.fill('abc');
    await second.fill('abc');
    await phone.getByTestId('reset-submit').click();
    await expect.poll(() => reset.textContent()).toContain('6');
    await first.fill(NEW_PASSWORD);
    await second.fill(`${NEW_PASSWORD}x`);
    await phone.getByTestId('reset-submit').click();
    await expect.poll(() => reset.textContent()).toContain('Пароли не совпадают');
    await second.fill(NEW_PASSWORD);
    await phone.getByTestId('reset-submit').click();
    await phone.getByTestId('reset-done').waitFor({ timeout: 20_000 });
    await shot(phone, 'reset-password-done-phone');
    await phone.context().close();

    // The registration's session is over.
    const oldPage = clientContext!.pages()[0]!;
    expect((await me(oldPage)).status).toBe(401);

    // The new password signs in at /login (to /trading); the old one is refused.
    const signIn = await newPage();
    await signIn.goto(`${base}/login`);
    const loginForm = signIn.getByTestId('login-form');
    await loginForm.locator('input[type="email"]').fill(CLIENT.email);
    await loginForm.locator('input[type="password"]').fill(CLIENT.password);
    await loginForm.locator('button[type="submit"]').click();
    await signIn.getByTestId('error-box').waitFor();
    await loginForm.locator('input[type="password"]').fill(NEW_PASSWORD);
    await loginForm.locator('button[type="submit"]').click();
    await signIn.waitForURL((url) => url.pathname === '/trading', { timeout: 20_000 });
    expect((await me(signIn)).body?.email).toBe(CLIENT.email);
  });

  it('the reset request on /login answers the same for an unknown address, and the link page of a dead link offers a new one', async () => {
    const page = await newPage(PHONE);
    await page.goto(`${base}/login`);
    await page.getByTestId('forgot-link').click();
    const form = page.getByTestId('forgot-form');
    await form.waitFor();
    await form.locator('input[type="email"]').fill('nobody.here@example.com');
    await form.locator('button[type="submit"]').click();
    await page.getByTestId('forgot-sent').waitFor();
    await shot(page, 'login-forgot-sent-phone');

    await page.goto(`${base}/reset-password?token=not-a-real-token-at-all`);
    const reset = page.getByTestId('reset-form');
    await reset.locator('input').nth(0).fill(NEW_PASSWORD);
    await reset.locator('input').nth(1).fill(NEW_PASSWORD);
    await page.getByTestId('reset-submit').click();
    await page.getByTestId('reset-request-new').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('error-box').textContent()).toContain('недействительна');
    // No mail went to the unknown address.
    expect(smtp.received.some((m) => m.envelopeTo.includes('nobody.here@example.com'))).toBe(false);
  });

  it('an admin invites a staff member without a password; the invitation sets it and signs in to /crm', async () => {
    const admin = await newPage();
    await admin.goto(`${base}/login`);
    const loginForm = admin.getByTestId('login-form');
    await loginForm.locator('input[type="email"]').fill(BOSS.email);
    await loginForm.locator('input[type="password"]').fill(BOSS.password);
    await loginForm.locator('button[type="submit"]').click();
    await admin.waitForURL((url) => url.pathname.startsWith('/crm'), { timeout: 20_000 });
    await admin.goto(`${base}/crm/staff`);
    await admin.getByTestId('staff-add').click();
    const add = admin.getByTestId('add-staff-form');
    await add.waitFor();
    await add.getByLabel('ФИО').fill(STAFF.name);
    await add.locator('input[type="email"]').fill(STAFF.email);
    // The password stays empty: the button says it invites.
    expect(await admin.getByTestId('add-staff-submit').textContent()).toBe('Пригласить');
    await shot(admin, 'staff-invite-form-desktop');
    await admin.getByTestId('add-staff-submit').click();
    await add.waitFor({ state: 'detached' });

    const row = admin.locator(`[data-testid="staff-row"][data-email="${STAFF.email}"]`);
    await row.getByTestId('staff-invited').waitFor({ timeout: 20_000 });
    expect(await row.getByTestId('staff-invited').textContent()).toMatch(/приглашён.*ссылка до/);
    await shot(admin, 'staff-invited-desktop');

    const { link } = await mailWithLink(STAFF.email, `${base}/invitation?token=`);
    const page = await newPage();
    await page.goto(link);
    const form = page.getByTestId('invitation-form');
    await form.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('invitation-who').textContent()).toContain(STAFF.email);
    await shot(page, 'invitation-desktop');
    const phone = await newPage(PHONE);
    await phone.goto(link);
    await phone.getByTestId('invitation-form').waitFor({ timeout: 20_000 });
    await shot(phone, 'invitation-phone');
    await phone.context().close();

    await form.locator('input[type="password"]').nth(0).fill(STAFF.password);
    await form.locator('input[type="password"]').nth(1).fill(STAFF.password);
    await page.getByTestId('invitation-submit').click();
    await page.waitForURL((url) => url.pathname.startsWith('/crm'), { timeout: 20_000 });
    expect((await me(page)).body?.email).toBe(STAFF.email);

    // On the staff page the member is no longer 'invited'.
    await admin.reload();
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByTestId('staff-invited').count()).toBe(0);
  });

  it('ran without page errors', () => {
    // The refused calls the flows make on purpose (a wrong password, a dead link, the anonymous session check) are
    // logged by the browser as failed requests; nothing else may be.
    const unexpected = watched
      .flat()
      .filter((p) => !/Failed to load resource: the server responded with a status of (400|401|409)/.test(p));
    expect(unexpected).toEqual([]);
  });
});
