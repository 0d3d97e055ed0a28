import { menuFor } from '@brokerage/shared';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot } from '../support/browser.js';
import { loginThroughUi, logoutThroughUi, menuPaths } from '../support/flows.js';
import { startServer, type RunningServer } from '../support/server.js';

const ADMIN = { email: 'owner@e2e.local', password: 'e2e-owner-pass' };

/** The foundation's main flows in a real Chromium against the real server (issue 2, "What it must show"). */
describe.runIf(browserAvailable())('back-office shell', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '0', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signedInPage(viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    const page = await context.newPage();
    await loginThroughUi(page, server.url, ADMIN.email, ADMIN.password);
    return page;
  }

  it('the superadmin from ADMIN_EMAIL creates a sales manager, who then signs in and sees a manager menu', async () => {
    const page = await signedInPage();
    expect(new URL(page.url()).pathname).toBe('/crm/dashboard');
    await page.getByTestId('side-menu').locator('[data-path="/crm/staff"]').click();
    await page.getByTestId('staff-table').waitFor();
    await page.getByTestId('staff-add').click();
    const form = page.getByTestId('add-staff-form');
    await form.getByLabel('ФИО').fill('Мария Продажи');
    await form.getByLabel('Email').fill('maria.sales@e2e.local');
    await form.getByTestId('generate-password').click();
    const passwordInput = form.locator('input[autocomplete="new-password"]');
    const generated = await passwordInput.inputValue();
    expect(generated).toHaveLength(12);
    await passwordInput.fill('maria-pass-1');
    await shot(page, 'staff-add-modal');
    await form.locator('button[type="submit"]').click();
    const row = page.locator('[data-testid="staff-row"][data-email="maria.sales@e2e.local"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('Sales manager');
    await shot(page, 'staff-list');

    await logoutThroughUi(page);
    await loginThroughUi(page, server.url, 'maria.sales@e2e.local', 'maria-pass-1');
    await page.waitForURL((url) => url.pathname === '/crm/dashboard');
    expect(await menuPaths(page)).toEqual(menuFor('sales_manager').map((m) => m.path));
    await shot(page, 'sales-manager-dashboard');
    await page.context().close();
  });

  it('adds an IP range on the access page and keeps working from it', async () => {
    const page = await signedInPage();
    await page.goto(`${server.url}/crm/access`);
    await expect.poll(() => page.getByTestId('access-status-text').textContent()).toContain('Доступ открыт');
    await page.getByTestId('add-ip').click();
    const form = page.getByTestId('add-ip-form');
    await form.getByLabel('IP-адрес').fill('127.0.0.0/8');
    await form.getByLabel('Описание').fill('Офис (loopback)');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => page.getByTestId('access-status-text').textContent()).toContain('Доступ ограничен');
    expect(await page.getByTestId('ip-table').textContent()).toContain('127.0.0.0/8');
    await shot(page, 'access-page');
    // The list covers this browser's address, so the back office keeps answering.
    await page.reload();
    await page.getByTestId('ip-table').waitFor();
    await page.context().close();
  });

  it('the audit log shows the staff writes and logins', async () => {
    const page = await signedInPage();
    await page.goto(`${server.url}/crm/audit`);
    await page.getByTestId('audit-table').waitFor();
    const actions = await page
      .locator('[data-testid="audit-row"]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    expect(actions).toEqual(expect.arrayContaining(['auth.login', 'user.create', 'ip_whitelist.add', 'auth.logout']));
    await shot(page, 'audit-page');
    await page.context().close();
  });

  it('the theme toggle is kept across a reload', async () => {
    const page = await signedInPage();
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    const before = await scheme();
    await page.getByTestId('theme-toggle').first().click();
    await expect.poll(scheme).not.toBe(before);
    const after = await scheme();
    await page.reload();
    await page.getByTestId('side-menu').waitFor();
    expect(await scheme()).toBe(after);
    await shot(page, `dashboard-${after}`);
    await page.context().close();
  });

  it('on a phone the menu slides in from the burger and closes on a swipe left and on navigation', async () => {
    const page = await signedInPage(PHONE);
    const burger = page.getByTestId('burger');
    await expect.poll(() => page.getByTestId('page-title').textContent()).toBe('Главная');
    await burger.click();
    await expect.poll(() => burger.getAttribute('aria-expanded')).toBe('true');
    await shot(page, 'phone-menu-open');
    const box = (await page.getByTestId('side-menu').boundingBox())!;
    const y = box.y + box.height / 2;
    await page.getByTestId('side-menu').evaluate(
      (el, pos) => {
        const touch = (x: number) => new Touch({ identifier: 1, target: el, clientX: x, clientY: pos.y });
        el.dispatchEvent(
          new TouchEvent('touchstart', {
            bubbles: true,
            touches: [touch(pos.from)],
            changedTouches: [touch(pos.from)],
          }),
        );
        el.dispatchEvent(new TouchEvent('touchend', { bubbles: true, touches: [], changedTouches: [touch(pos.to)] }));
      },
      { from: box.x + box.width - 20, to: box.x + 20, y },
    );
    await expect.poll(() => burger.getAttribute('aria-expanded')).toBe('false');
    await shot(page, 'phone-menu-closed');

    await burger.click();
    await expect.poll(() => burger.getAttribute('aria-expanded')).toBe('true');
    await page.getByTestId('side-menu').locator('[data-path="/crm/staff"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/staff');
    await expect.poll(() => burger.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => page.getByTestId('page-title').textContent()).toBe('Сотрудники');
    await shot(page, 'phone-staff');
    await page.context().close();
  });

  it('an unknown path shows the not-found page', async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    await page.goto(`${server.url}/no-such-page`);
    await page.getByTestId('not-found').waitFor();
    await page.close();
  });
});
