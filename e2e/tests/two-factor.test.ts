import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { logoutThroughUi } from '../support/flows.js';
import { startServer, type RunningServer } from '../support/server.js';

const BOSS = { email: 'boss@e2e.local', password: 'e2e-boss-pass' };
const MANAGER = { email: 'olga.2fa@e2e.local', password: 'olga-2fa-pass' };

/** The code an authenticator app shows for this secret at this time. */
function codeAt(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}
/** One 30-second step ahead: inside the ±1 step of drift and newer than the code used before. */
const nextCode = (secret: string) => codeAt(secret, Date.now() + 30_000);

/** Staff two-factor sign-in (issue 13 item 1) in a real Chromium against the real server. */
describe.runIf(browserAvailable())('two-factor sign-in in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let bossSecret = '';
  let bossRecovery: string[] = [];

  beforeAll(async () => {
    server = await startServer({
      DEMO_DATA: '0',
      ADMIN_EMAIL: BOSS.email,
      ADMIN_PASSWORD: BOSS.password,
      REQUIRE_2FA_ROLES: 'superadmin,admin',
      LOGIN_RATE_PER_MINUTE: '1000',
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function newPage(viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    return context.newPage();
  }

  async function submitPassword(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${server.url}/login`);
    const form = page.getByTestId('login-form');
    await form.locator('input[type="email"]').fill(email);
    await form.locator('input[type="password"]').fill(password);
    await form.locator('button[type="submit"]').click();
  }

  const leftLogin = (page: Page) => page.waitForURL((url) => url.pathname !== '/login', { timeout: 20_000 });

  /** The QR code is an image the browser drew, not an empty box. */
  async function expectQrDrawn(page: Page): Promise<void> {
    const qr = page.getByTestId('totp-qr');
    await qr.waitFor();
    expect(await qr.isVisible()).toBe(true);
    const drawn = await qr.evaluate((img) => {
      const el = img as HTMLImageElement;
      return { complete: el.complete, width: el.naturalWidth, src: el.src.slice(0, 22) };
    });
    expect(drawn.src).toBe('data:image/png;base64,');
    expect(drawn.width).toBeGreaterThan(100);
  }

  it('a superadmin enrolls at the first sign-in (QR code, key, first code, recovery codes), then signs in with a code', async () => {
    const page = await newPage();
    const problems = watchConsole(page);
    await submitPassword(page, BOSS.email, BOSS.password);

    // The enrollment step: the QR code drawn in the page, the key as text, no session yet.
    await page.getByTestId('totp-enroll-form').waitFor();
    await expectQrDrawn(page);
    bossSecret = (await page.getByTestId('totp-secret-value').textContent())!.trim();
    expect(bossSecret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new URL(page.url()).pathname).toBe('/login');
    await shot(page, 'two-factor-enroll-desktop');

    await page.getByTestId('totp-code').fill(codeAt(bossSecret));
    await page.getByTestId('totp-enroll-form').locator('button[type="submit"]').click();
    await page.getByTestId('recovery-codes').waitFor();
    bossRecovery = await page.getByTestId('recovery-code').allTextContents();
    expect(bossRecovery).toHaveLength(10);
    await shot(page, 'two-factor-recovery-codes-desktop');
    await page.getByTestId('recovery-codes-done').click();
    await leftLogin(page);
    expect(new URL(page.url()).pathname).toBe('/crm/dashboard');

    // The next sign-in asks for the code from the app.
    await logoutThroughUi(page);
    await submitPassword(page, BOSS.email, BOSS.password);
    await page.getByTestId('otp-form').waitFor();
    await shot(page, 'two-factor-otp-desktop');
    await page.getByTestId('otp-code').fill(nextCode(bossSecret));
    await page.getByTestId('otp-form').locator('button[type="submit"]').click();
    await leftLogin(page);
    expect(new URL(page.url()).pathname).toBe('/crm/dashboard');
    // The anonymous /login page asks /api/auth/me and gets 401: expected; nothing else went wrong.
    expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  });

  it('a recovery code signs in once; the user menu shows the codes left', async () => {
    const page = await newPage();
    await submitPassword(page, BOSS.email, BOSS.password);
    await page.getByTestId('otp-form').waitFor();
    await page.getByTestId('otp-code').fill(bossRecovery[0]!);
    await page.getByTestId('otp-form').locator('button[type="submit"]').click();
    await leftLogin(page);

    await page.getByTestId('two-factor-menu').first().click();
    const status = page.getByTestId('two-factor-status');
    await status.waitFor();
    expect(await status.textContent()).toContain('Резервных кодов осталось: 9');
    await shot(page, 'two-factor-menu-enabled-desktop');
    await page.keyboard.press('Escape');

    // The same recovery code a second time: refused, the page stays on the code step.
    await logoutThroughUi(page);
    await submitPassword(page, BOSS.email, BOSS.password);
    await page.getByTestId('otp-form').waitFor();
    await page.getByTestId('otp-code').fill(bossRecovery[0]!);
    await page.getByTestId('otp-form').locator('button[type="submit"]').click();
    const error = page.getByTestId('error-box');
    await error.waitFor();
    expect(await error.textContent()).toBe('Неверный код');
    expect(new URL(page.url()).pathname).toBe('/login');
    await shot(page, 'two-factor-recovery-reused-desktop');
  });

  it('on a phone, a manager enrolls from the user menu, then signs in with a code and sees the failed attempt', async () => {
    // The superadmin (through the API, with a recovery code) creates the manager.
    const login = await (
      await fetch(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(BOSS),
      })
    ).json();
    expect(login.otp_required).toBe(true);
    const session = await (
      await fetch(`${server.url}/api/auth/login/otp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ challenge: login.challenge, code: bossRecovery[1] }),
      })
    ).json();
    const created = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` },
      body: JSON.stringify({ name: 'Ольга Двухфакторная', ...MANAGER, role: 'sales_manager' }),
    });
    expect(created.status).toBe(201);

    const page = await newPage(PHONE);
    const problems = watchConsole(page);
    // A sales manager is not required to: the password alone signs in.
    await submitPassword(page, MANAGER.email, MANAGER.password);
    await leftLogin(page);
    await page.getByTestId('burger').click();
    await page.getByTestId('two-factor-menu').first().click();
    await page.getByTestId('two-factor-password').fill(MANAGER.password);
    await page.getByTestId('two-factor-setup-form').locator('button[type="submit"]').click();
    await expectQrDrawn(page);
    await shot(page, 'two-factor-menu-enroll-phone');
    const secret = (await page.getByTestId('totp-secret-value').textContent())!.trim();
    await page.getByTestId('totp-code').fill(codeAt(secret));
    await page.getByTestId('totp-enroll-form').locator('button[type="submit"]').click();
    await page.getByTestId('recovery-codes').waitFor();
    expect(await page.getByTestId('recovery-code').count()).toBe(10);
    await shot(page, 'two-factor-menu-recovery-codes-phone');
    await page.getByTestId('recovery-codes-done').click();

    // From now on the manager's sign-in asks for a code; a wrong one is refused and reported at the next sign-in.
    if (!(await page.getByTestId('logout').first().isVisible())) await page.getByTestId('burger').click();
    await logoutThroughUi(page);
    await submitPassword(page, MANAGER.email, MANAGER.password);
    await page.getByTestId('otp-form').waitFor();
    await page.getByTestId('otp-code').fill(nextCode(secret) === '000000' ? '111111' : '000000');
    await page.getByTestId('otp-form').locator('button[type="submit"]').click();
    await page.getByTestId('error-box').waitFor();
    await shot(page, 'two-factor-otp-wrong-phone');
    await page.getByTestId('otp-code').fill(nextCode(secret));
    await page.getByTestId('otp-form').locator('button[type="submit"]').click();
    await leftLogin(page);
    const notice = page.getByTestId('failed-attempts-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('неудачных попыток: 1');
    expect(await notice.textContent()).toContain('127.0.0.1');
    await shot(page, 'two-factor-failed-attempts-phone');
    // 401s: the anonymous /login page's /api/auth/me and the wrong code; nothing else went wrong.
    expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  });
});
