import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, shot } from '../support/browser.js';
import { accountFor, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/**
 * The clients list tells the truth about its total (issue 12, item 3): an exact total as a number, and a capped one
 * (the server stops counting a search at 10,000, `total_capped`) as 'more than 10 000' in the badge, the 'shown' line
 * and the pager. The capped answer is the server's own answer with the flag set (a demo base has ~300 leads).
 */
describe.runIf(browserAvailable())('clients list total', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  it('shows an exact total as a number and a capped one as "more than"', async () => {
    const { page } = await signedInPage(browser, server, accountFor(accounts, 'superadmin'));
    await page.goto(`${server.url}/crm/clients`);
    const badge = page.getByTestId('clients-total');
    await badge.waitFor();
    const exact = Number(await badge.getAttribute('data-total'));
    expect(exact).toBeGreaterThan(50);
    expect(await badge.textContent()).not.toContain('более');

    await page.route('**/api/clients?**', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { total: number; total_capped: boolean };
      await route.fulfill({ response, json: { ...body, total: 10000, total_capped: true } });
    });
    await page.goto(`${server.url}/crm/clients?search=a`);
    await expect.poll(() => badge.textContent()).toContain('более 10');
    expect(await page.getByTestId('clients-shown').textContent()).toMatch(/из более чем 10.000 клиентов/);
    expect(await page.getByText(/Всего: более 10000/).count()).toBe(1);
    await shot(page, 'clients-total-capped');
    await page.context().close();
  });
});
