import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot } from '../support/browser.js';
import { signedInPage } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

const SUPERADMIN = { email: 'superadmin@demo.local', password: 'demo12345' };
const MANAGER = { email: 'sales.manager@demo.local', password: 'demo12345' };

/** The dashboard (back-office.md §2.4, issue 11) on the demo data set. */
describe.runIf(browserAvailable())('dashboard', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const value = (page: Page, id: string) => page.getByTestId(`${id}-value`).textContent();

  it('as superadmin: filters change the figures and the URL, charts render, sections collapse', async () => {
    const { page, problems } = await signedInPage(browser, server, SUPERADMIN);
    await page.goto(`${server.url}/crm/dashboard`);
    await page.getByTestId('stat-total-clients-value').waitFor();
    const allTime = await value(page, 'stat-total-clients');
    // The charts are drawn (recharts renders SVG).
    await page.locator('[data-testid="chart-monthly"] svg.recharts-surface').first().waitFor();
    await page.locator('[data-testid="chart-statuses"] svg').first().waitFor();
    await page.locator('[data-testid="chart-managers"] svg.recharts-surface').first().waitFor();
    expect(await page.getByTestId('department-sales-row').count()).toBeGreaterThan(0);
    await shot(page, 'dashboard-desktop');

    // The period: the URL says it, the figures follow.
    await page.getByTestId('dashboard-period').click();
    await page.getByRole('option', { name: 'Сегодня' }).click();
    await page.waitForURL((url) => url.searchParams.get('period') === 'today');
    await expect.poll(() => value(page, 'stat-total-clients')).not.toBe(allTime);
    const today = await value(page, 'stat-total-clients');

    // Reload keeps the view.
    await page.reload();
    await expect.poll(() => value(page, 'stat-total-clients')).toBe(today);

    // One manager: the departments list that manager alone.
    await page.getByTestId('dashboard-period').click();
    await page.getByRole('option', { name: 'За всё время' }).click();
    await page.getByTestId('dashboard-managers').click();
    const option = page.getByRole('option').first();
    const label = (await option.textContent()) ?? '';
    await option.click();
    await page.keyboard.press('Escape');
    await page.waitForURL((url) => url.searchParams.getAll('manager').length === 1);
    await expect
      .poll(
        async () =>
          (await page.getByTestId('department-sales-row').count()) +
          (await page.getByTestId('department-retention-row').count()),
      )
      .toBe(1);
    expect(label).toMatch(/\(.+\)$/);
    await expect.poll(() => value(page, 'stat-total-clients')).not.toBe(allTime);

    // A section collapses and opens again.
    const section = page.getByTestId('section-departments');
    await page.getByTestId('section-departments-toggle').click();
    await expect.poll(() => section.getAttribute('data-open')).toBe('false');
    await page.getByTestId('section-departments-toggle').click();
    await expect.poll(() => section.getAttribute('data-open')).toBe('true');

    // Clear resets everything.
    await page.getByTestId('dashboard-clear-filters').click();
    await page.waitForURL((url) => url.search === '');
    await expect.poll(() => value(page, 'stat-total-clients')).toBe(allTime);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('is drawn at phone size and in the dark theme', async () => {
    const { page, problems } = await signedInPage(browser, server, SUPERADMIN, { viewport: PHONE });
    await page.goto(`${server.url}/crm/dashboard`);
    await page.locator('[data-testid="chart-monthly"] svg.recharts-surface').first().waitFor();
    await shot(page, 'dashboard-phone');
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await page.locator('[data-testid="chart-monthly"] svg.recharts-surface').first().waitFor();
    await shot(page, 'dashboard-phone-dark');
    await page.setViewportSize(DESKTOP);
    await page.locator('[data-testid="chart-managers"] svg.recharts-surface').first().waitFor();
    await shot(page, 'dashboard-desktop-dark');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('a manager sees their own figures and no superadmin sections or filters', async () => {
    const { page } = await signedInPage(browser, server, MANAGER);
    await page.goto(`${server.url}/crm/dashboard`);
    await page.getByTestId('stat-total-clients-value').waitFor();
    expect(await page.getByTestId('dashboard-extra-filters').count()).toBe(0);
    expect(await page.getByTestId('section-departments').count()).toBe(0);
    await page.locator('[data-testid="chart-monthly"] svg.recharts-surface').first().waitFor();
    await page.context().close();
  });
});
