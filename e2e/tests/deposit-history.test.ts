import type { DepositsResponse, Role } from '@brokerage/shared';
import ExcelJS from 'exceljs';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, PHONE, shot } from '../support/browser.js';
import { accountFor, apiLogin, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/** Deposit history (back-office.md §2.10): filters, summary cards, table and the XLSX export, per role. */
describe.runIf(browserAvailable())('deposit history page', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  const account = (role: Role) => accountFor(accounts, role);

  async function apiDeposits(role: Role, query = ''): Promise<DepositsResponse> {
    const { email, password } = account(role);
    const { token: access_token } = await apiLogin(server, email, password);
    const res = await fetch(`${server.url}/api/deposits?per_page=100${query}`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as DepositsResponse;
  }

  async function signIn(role: Role, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    return signedInPage(browser, server, account(role), { viewport, acceptDownloads: true });
  }

  const rowIds = (page: Page) =>
    page
      .locator('[data-testid="history-row"]')
      .evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-deposit-id'))));

  /** The downloaded export opened as a workbook: its rows under the header, as arrays of cell values. */
  async function download(page: Page): Promise<{ name: string; header: unknown[]; rows: unknown[][] }> {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('history-export').click()]);
    const target = await file.path();
    const bytes = fs.readFileSync(target);
    expect(bytes.subarray(0, 2).toString()).toBe('PK'); // a zip container, as every XLSX
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const rows: unknown[][] = [];
    sheet.eachRow((r, n) => {
      if (n > 1) rows.push((r.values as unknown[]).slice(1));
    });
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    return { name: file.suggestedFilename(), header, rows };
  }

  it('superadmin: cards, filters applied with the button, the manager column, and the filtered export', async () => {
    const all = await apiDeposits('superadmin');
    expect(all.total).toBeGreaterThan(2);
    const { page, problems } = await signIn('superadmin');
    await page.getByTestId('side-menu').locator('[data-path="/crm/history"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/history');
    await expect.poll(() => rowIds(page)).toEqual(all.items.slice(0, 50).map((d) => d.id));
    expect(await page.getByTestId('history-card-total-value').textContent()).toBe(String(all.summary.count));
    expect(await page.getByTestId('history-card-ftd-value').textContent()).toBe(String(all.summary.ftd_count));
    expect(await page.getByTestId('history-card-amount-value').textContent()).toMatch(/^\$[\d,]+\.\d{2}$/);
    await page.getByTestId('history-manager-column').waitFor();
    expect(await page.locator('[data-testid="history-row"]').first().textContent()).toMatch(/\+\$[\d,]+\.\d{2}/);
    await shot(page, 'history-desktop');

    // Reload deposits only: nothing changes until 'Применить'.
    await page.getByTestId('history-type-filter').click();
    await page.getByRole('option', { name: 'Повторный', exact: true }).click();
    await page.keyboard.press('Escape');
    expect(await rowIds(page)).toEqual(all.items.slice(0, 50).map((d) => d.id));
    await page.getByTestId('history-apply').click();
    const reloads = await apiDeposits('superadmin', '&deposit_type=reload');
    expect(reloads.total).toBeGreaterThan(0);
    expect(reloads.total).toBeLessThan(all.total);
    await expect.poll(() => rowIds(page)).toEqual(reloads.items.slice(0, 50).map((d) => d.id));
    expect(await page.getByTestId('history-card-reload-value').textContent()).toBe(String(reloads.total));
    expect(await page.getByTestId('history-card-ftd-value').textContent()).toBe('0');

    // The export holds exactly the filtered deposits, newest first, with the manager column.
    const file = await download(page);
    expect(file.name).toMatch(/^deposits_export_\d{4}-\d{2}-\d{2}\.xlsx$/);
    expect(file.rows.map((r) => r[0])).toEqual(reloads.items.map((d) => d.id).sort((a, b) => b - a));
    expect(file.rows.every((r) => r[3] === 'Повторный')).toBe(true);
    expect(file.header).toContain('Назначенный менеджер');

    // Dates: a range in the future leaves nothing.
    await page.getByTestId('history-date-from').click();
    await page.getByTestId('history-date-from').fill('01.01.2099');
    await page.keyboard.press('Enter');
    await page.getByTestId('history-apply').click();
    await page.getByTestId('history-empty').waitFor();
    expect(await page.getByTestId('history-empty').textContent()).toBe('Депозиты не найдены');
    await page.getByTestId('history-clear').click();
    await expect.poll(() => rowIds(page)).toEqual(all.items.slice(0, 50).map((d) => d.id));
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('a retention manager sees only their clients’ deposits, without the manager filter or column; phone layout', async () => {
    const own = await apiDeposits('retention_manager');
    const all = await apiDeposits('superadmin');
    expect(own.total).toBeLessThan(all.total);
    const { page } = await signIn('retention_manager', PHONE);
    await page.goto(`${server.url}/crm/history`);
    await page.getByTestId('history-card-total-value').waitFor();
    await expect.poll(() => page.getByTestId('history-card-total-value').textContent()).toBe(String(own.total));
    await expect.poll(() => rowIds(page)).toEqual(own.items.map((d) => d.id));
    expect(await page.getByTestId('history-manager-filter').count()).toBe(0);
    expect(await page.getByTestId('history-manager-column').count()).toBe(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const file = await download(page);
    expect(file.rows.map((r) => r[0])).toEqual(own.items.map((d) => d.id).sort((a, b) => b - a));
    expect(file.header).not.toContain('Назначенный менеджер');
    await shot(page, 'history-phone');
    await page.context().close();
  });
});
