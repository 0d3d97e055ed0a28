import type { WithdrawRequestsResponse } from '@brokerage/shared';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, PHONE, shot } from '../support/browser.js';
import { apiLogin, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

const CARD = '4111 1111 1111 1111';

/** Withdrawal requests (back-office.md §2.9): filed by a client through the API, processed by staff in the page. */
describe.runIf(browserAvailable())('withdrawal requests page', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  const tokens = new Map<string, string>();
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  async function token(email: string): Promise<string> {
    if (!tokens.has(email)) {
      const { password } = accounts.find((a) => a.email === email)!;
      const { status, token } = await apiLogin(server, email, password);
      expect(status).toBe(200);
      tokens.set(email, token);
    }
    return tokens.get(email)!;
  }

  async function api<T>(email: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${await token(email)}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  const superadmin = () => accounts.find((a) => a.role === 'superadmin')!.email;

  async function signIn(email: string, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    return signedInPage(
      browser,
      server,
      accounts.find((a) => a.email === email)!,
      { viewport },
    );
  }

  const row = (page: Page, id: number) => page.locator(`[data-testid="withdrawal-row"][data-request-id="${id}"]`);

  it('a superadmin approves one request and rejects another, reveals a card, and the cards follow', async () => {
    // The demo client files two requests (its balance is $1000), exactly as the trading screen would.
    const expiry = `12/${String((new Date().getFullYear() + 2) % 100).padStart(2, '0')}`;
    const file = (amount: number) =>
      api<{ id: number }>('client@demo.local', '/api/withdraw-requests', {
        method: 'POST',
        body: JSON.stringify({ amount, card_number: CARD, card_holder: 'DEMO CLIENT', card_expiry: expiry }),
      });
    const first = await file(21.5);
    const second = await file(33);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);

    const before = (await api<WithdrawRequestsResponse>(superadmin(), '/api/withdraw-requests?per_page=100')).body;
    const { page, problems } = await signIn(superadmin());
    await page.getByTestId('side-menu').locator('[data-path="/crm/applications"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/applications');
    await row(page, second.body.id).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Заявки на вывод');
    await expect
      .poll(() => page.getByTestId('withdrawal-card-total-value').textContent())
      .toBe(String(before.summary.total_count));
    expect(await page.getByTestId('withdrawal-card-pending-value').textContent()).toBe(
      String(before.summary.pending_count),
    );
    // Masked until 'Показать'; the reveal is the server's (and audited there).
    const card = row(page, first.body.id).getByTestId('withdrawal-card-number');
    expect(await card.textContent()).toBe('**** **** **** 1111');
    expect(await row(page, first.body.id).textContent()).toContain('$21.50');
    await row(page, first.body.id).getByTestId('withdrawal-reveal').click();
    await expect.poll(() => card.textContent()).toBe(CARD);
    await row(page, first.body.id).getByTestId('withdrawal-reveal').click();
    await expect.poll(() => card.textContent()).toBe('**** **** **** 1111');
    await shot(page, 'withdrawals-desktop');

    // Approve the first: confirmation, the spec's message, the row leaves 'pending' and loses its buttons.
    await row(page, first.body.id).getByTestId('withdrawal-approve').click();
    const confirm = page.getByTestId('withdrawal-confirm');
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('$21.50');
    await page.getByTestId('withdrawal-confirm-button').click();
    await page.getByText('Заявка успешно одобрена').waitFor();
    await expect
      .poll(() => row(page, first.body.id).getByTestId('withdrawal-status').getAttribute('data-status'))
      .toBe('approved');
    expect(await row(page, first.body.id).getByTestId('withdrawal-approve').count()).toBe(0);

    // Reject the second with a reason.
    await row(page, second.body.id).getByTestId('withdrawal-reject').click();
    await page.getByTestId('withdrawal-reject-reason').fill('Карта не принадлежит клиенту');
    await page.getByTestId('withdrawal-confirm-button').click();
    await page.getByText('Заявка отклонена').waitFor();
    await expect
      .poll(() => row(page, second.body.id).getByTestId('withdrawal-status').getAttribute('data-status'))
      .toBe('rejected');

    const after = (await api<WithdrawRequestsResponse>(superadmin(), '/api/withdraw-requests?per_page=100')).body;
    expect(after.summary.pending_count).toBe(before.summary.pending_count - 2);
    expect(after.summary.approved_count).toBe(before.summary.approved_count + 1);
    const rejected = after.items.find((r) => r.id === second.body.id)!;
    expect(rejected.reject_reason).toBe('Карта не принадлежит клиенту');
    expect(rejected.processed_by_name).toBeTruthy();
    await expect
      .poll(() => page.getByTestId('withdrawal-card-approved-value').textContent())
      .toBe(String(after.summary.approved_count));

    // Filters: the status select and the search (by the request's id) ask the server.
    await page.getByTestId('withdrawal-status-filter').click();
    await page.getByRole('option', { name: 'Отклонена', exact: true }).click();
    const rejectedOnly = (
      await api<WithdrawRequestsResponse>(superadmin(), '/api/withdraw-requests?status=rejected&per_page=100')
    ).body;
    await expect.poll(() => page.getByTestId('withdrawal-row').count()).toBe(Math.min(50, rejectedOnly.items.length));
    await page.getByTestId('withdrawal-search').fill(String(second.body.id));
    await expect.poll(() => page.getByTestId('withdrawal-row').count()).toBe(1);
    await page.getByTestId('withdrawal-clear').click();
    await expect.poll(() => page.getByTestId('withdrawal-row').count()).toBe(Math.min(50, after.items.length));
    await shot(page, 'withdrawals-processed');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('on a phone the page fits, the requests are cards with Approve on screen; sales roles are sent home', async () => {
    const { page } = await signIn(superadmin(), PHONE);
    await page.goto(`${server.url}/crm/applications`);
    // Issue 15 defect 14: cards like the clients list, not a table clipped with Approve off screen.
    await page.getByTestId('withdrawal-cards').waitFor();
    expect(await page.getByTestId('withdrawal-table').count()).toBe(0);
    const approve = page.getByTestId('withdrawal-approve').first();
    await approve.scrollIntoViewIfNeeded();
    const box = (await approve.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'withdrawals-phone');
    await page.context().close();

    const sales = accounts.find((a) => a.role === 'sales_manager')!;
    const { page: salesPage } = await signIn(sales.email);
    await salesPage.goto(`${server.url}/crm/applications`);
    await salesPage.waitForURL((url) => url.pathname === '/crm/dashboard');
    await salesPage.context().close();
  });
});
