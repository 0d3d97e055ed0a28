import { homePathFor, menuFor, type Role } from '@brokerage/shared';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, shot } from '../support/browser.js';
import { menuPaths } from '../support/flows.js';
import { accountFor, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/**
 * With DEMO_DATA=1 every role can sign in on the real server and lands where back-office.md §2.1 and D10 say, with
 * exactly the menu entries of §6.
 */
describe.runIf(browserAvailable())('every demo role signs in and lands home with its menu', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  it('prints the demo logins at start and offers them on the login screen', async () => {
    // One staff member of every role, plus the demo client users (several, so the CRM has trading accounts to show).
    const staff = accounts.filter((a) => a.role !== 'client');
    expect(accounts.filter((a) => a.role === 'client').length).toBeGreaterThanOrEqual(1);
    expect(staff.map((a) => a.role).sort()).toEqual(
      [
        'admin',
        'manager',
        'retention_manager',
        'sales_manager',
        'superadmin',
        'team_lead_retention',
        'team_lead_sales',
      ].sort(),
    );
    for (const a of accounts) expect(server.output()).toContain(a.email);
    const page = await browser.newPage({ viewport: DESKTOP });
    await page.goto(`${server.url}/login`);
    await page.getByTestId('demo-accounts').waitFor();
    for (const a of accounts) expect(await page.getByTestId('demo-accounts').textContent()).toContain(a.email);
    await shot(page, 'login-desktop');
    await page.close();
  });

  const staffRoles: Role[] = [
    'superadmin',
    'admin',
    'team_lead_sales',
    'team_lead_retention',
    'sales_manager',
    'retention_manager',
    'manager',
  ];
  it.each(staffRoles)('%s lands on its home path with exactly its menu', async (role) => {
    const { page, problems } = await signedInPage(browser, server, accountFor(accounts, role));
    const context = page.context();
    await page.waitForURL((url) => url.pathname === homePathFor(role));
    expect(await menuPaths(page)).toEqual(menuFor(role).map((m) => m.path));
    expect(await page.getByTestId('current-user-role').textContent()).toBeTruthy();
    await shot(page, `home-${role}`);
    // The session check before sign-in answers 401 by design; nothing else may fail.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await context.close();
  });

  it('a client is sent to /trading, also when it opens /crm', async () => {
    const { page } = await signedInPage(browser, server, accountFor(accounts, 'client'));
    const context = page.context();
    expect(new URL(page.url()).pathname).toBe('/trading');
    await page.goto(`${server.url}/crm/dashboard`);
    await page.waitForURL((url) => url.pathname === '/trading');
    await context.close();
  });

  it('a sales manager opening /crm/applications is sent to the dashboard', async () => {
    const { page } = await signedInPage(browser, server, accountFor(accounts, 'sales_manager'));
    const context = page.context();
    await page.goto(`${server.url}/crm/applications`);
    await page.waitForURL((url) => url.pathname === '/crm/dashboard');
    await context.close();
  });

  it('every other page a role may not open shows the same access-denied page with a link home (issue 15, defect 12)', async () => {
    const { page } = await signedInPage(browser, server, accountFor(accounts, 'sales_manager'));
    const context = page.context();
    for (const path of ['/crm/audit', '/crm/access', '/crm/staff', '/crm/integration', '/crm/affiliates']) {
      await page.goto(`${server.url}${path}`);
      const denied = page.getByTestId('access-denied');
      await denied.waitFor();
      // It stays on the address that was asked for, and says so in words instead of sending the user elsewhere.
      expect(new URL(page.url()).pathname).toBe(path);
      expect(await denied.textContent()).toContain('Доступ запрещён');
      expect(await page.getByTestId('access-denied-role').textContent()).toMatch(/^Ваша роль: \S/);
    }
    await shot(page, 'access-denied');
    await page.getByTestId('access-denied-home').click();
    await page.waitForURL((url) => url.pathname === homePathFor('sales_manager'));
    await context.close();
  });

  it('an anonymous visit to /crm/staff goes to /login and back there after signing in', async () => {
    const account = accounts.find((a) => a.role === 'admin')!;
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/crm/staff`);
    await page.waitForURL((url) => url.pathname === '/login');
    const form = page.getByTestId('login-form');
    await form.locator('input[type="email"]').fill(account.email);
    await form.locator('input[type="password"]').fill(account.password);
    await form.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/staff');
    await page.getByTestId('staff-table').waitFor();
    await context.close();
  });

  it('a wrong password shows the server error in the red box', async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    await page.goto(`${server.url}/login`);
    const form = page.getByTestId('login-form');
    await form.locator('input[type="email"]').fill('superadmin@demo.local');
    await form.locator('input[type="password"]').fill('wrong-password');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => page.getByTestId('error-box').textContent()).toContain('Неверный email или пароль');
    await shot(page, 'login-error');
    await page.close();
  });
});
