import type { ManualCreditsResponse, WithdrawRequestsResponse } from '@brokerage/shared';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, PHONE, shot } from '../support/browser.js';
import { apiLogin, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/**
 * Issue 13 items 2 and 3 (decisions.md D20) in Chromium, with the production thresholds ($1,000): a retention
 * manager's $2,000 credit waits in the 'Подтверждения' tab until an admin confirms it; the client's $1,500 withdrawal
 * then takes two approvals: the admin's first, the superadmin's second (on a phone, where the requests are cards).
 */
describe.runIf(browserAvailable())('four-eyes withdrawals and confirmations', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  const tokens = new Map<string, string>();
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  const email = (role: string) => accounts.find((a) => a.role === role)!.email;

  async function api<T>(who: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    if (!tokens.has(who)) {
      const { password } = accounts.find((a) => a.email === who)!;
      const { status, token } = await apiLogin(server, who, password);
      expect(status).toBe(200);
      tokens.set(who, token);
    }
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${tokens.get(who)!}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  const signIn = (who: string, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> =>
    signedInPage(
      browser,
      server,
      accounts.find((a) => a.email === who)!,
      { viewport },
    );

  async function clientAccount(): Promise<{ id: number; balance: number }> {
    const res = await api<{ accounts: { id: number; balance: number; client_email: string }[] }>(
      email('superadmin'),
      '/api/trading/admin/accounts?search=client%40demo.local',
    );
    const account = res.body.accounts.find((a) => a.client_email === 'client@demo.local')!;
    return { id: account.id, balance: account.balance };
  }

  it("a manager's $2,000 credit waits for an admin's confirmation in the 'Подтверждения' tab", async () => {
    const { id: accountId, balance } = await clientAccount();
    const asked = await api<{ status: string; credit_id: number }>(
      email('retention_manager'),
      `/api/trading/admin/accounts/${accountId}/balance`,
      { method: 'POST', body: JSON.stringify({ action: 'add', amount: 2000, reason: 'Бонус по акции (e2e)' }) },
    );
    expect(asked.status).toBe(202);
    expect(asked.body.status).toBe('awaiting_confirmation');
    expect((await clientAccount()).balance).toBe(balance);

    const { page, problems } = await signIn(email('admin'));
    await page.goto(`${server.url}/crm/applications`);
    await page.getByTestId('confirmations-count').waitFor();
    expect(await page.getByTestId('confirmations-count').textContent()).toBe('1');
    await page.getByTestId('tab-confirmations').click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'confirmations');
    const row = page.locator(`[data-testid="credit-row"][data-credit-id="${asked.body.credit_id}"]`);
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('$2,000.00');
    expect(text).toContain('Бонус по акции (e2e)');
    expect(text).toContain('Demo Client');
    await shot(page, 'four-eyes-confirmations-desktop');

    await row.getByTestId('credit-confirm').click();
    const dialog = page.getByTestId('credit-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('$2,000.00');
    await page.getByTestId('credit-dialog-submit').click();
    await page.getByText('Начисление $2,000.00 клиенту Demo Client подтверждено').waitFor();
    await page.getByTestId('credits-empty').waitFor();
    expect((await clientAccount()).balance).toBe(balance + 2000);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('a $1,500.00 withdrawal: the admin approves first, the superadmin second on a phone', async () => {
    const expiry = `12/${String((new Date().getFullYear() + 2) % 100).padStart(2, '0')}`;
    const filed = await api<{ id: number }>('client@demo.local', '/api/withdraw-requests', {
      method: 'POST',
      body: JSON.stringify({
        amount: 1500,
        card_number: '4111 1111 1111 1111',
        card_holder: 'DEMO',
        card_expiry: expiry,
      }),
    });
    expect(filed.status).toBe(201);
    const id = filed.body.id;
    const rowOf = (page: Page) => page.locator(`[data-testid="withdrawal-row"][data-request-id="${id}"]`);

    const admin = await signIn(email('admin'));
    await admin.page.goto(`${server.url}/crm/applications`);
    await rowOf(admin.page).waitFor();
    await rowOf(admin.page).getByTestId('withdrawal-approve').click();
    expect(await admin.page.getByTestId('withdrawal-confirm').textContent()).toContain('второй сотрудник');
    await admin.page.getByTestId('withdrawal-confirm-button').click();
    await admin.page.getByText('Первое одобрение записано').waitFor();
    await expect
      .poll(() => rowOf(admin.page).getByTestId('withdrawal-status').getAttribute('data-status'))
      .toBe('awaiting_second_approval');
    // The first approver cannot give the second, and the row says why (issue 20 finding 4) and who approved when.
    expect(await rowOf(admin.page).getByTestId('withdrawal-approve').count()).toBe(0);
    await expect
      .poll(() => rowOf(admin.page).getByTestId('withdrawal-approve-blocked').textContent())
      .toContain('Вы дали первое одобрение');
    expect(await rowOf(admin.page).getByTestId('withdrawal-first-approval').textContent()).toContain('Demo admin');
    expect(await admin.page.getByTestId('withdrawal-card-awaiting-value').textContent()).toBe('1');
    // The status filter has the new state.
    await admin.page.getByTestId('withdrawal-status-filter').click();
    await admin.page.getByRole('option', { name: 'Ждёт 2-го одобрения', exact: true }).click();
    await expect.poll(() => admin.page.getByTestId('withdrawal-row').count()).toBe(1);
    await shot(admin.page, 'four-eyes-awaiting-desktop');
    expect(admin.problems.filter((p) => !p.includes('401'))).toEqual([]);
    await admin.page.context().close();

    const mine = await api<{ items: { id: number; status: string }[] }>(
      'client@demo.local',
      '/api/my-withdraw-requests',
    );
    expect(mine.body.items.find((r) => r.id === id)?.status).toBe('awaiting_second_approval');

    // The superadmin on a phone: the requests are cards, Approve is on screen.
    const phone = await signIn(email('superadmin'), PHONE);
    await phone.page.goto(`${server.url}/crm/applications`);
    await phone.page.getByTestId('withdrawal-cards').waitFor();
    const approve = rowOf(phone.page).getByTestId('withdrawal-approve');
    await approve.scrollIntoViewIfNeeded();
    const box = await approve.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    expect(
      await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    await shot(phone.page, 'four-eyes-awaiting-phone');
    await approve.click();
    await phone.page.getByTestId('withdrawal-confirm-button').click();
    await phone.page.getByText('Заявка успешно одобрена').waitFor();
    await expect
      .poll(() => rowOf(phone.page).getByTestId('withdrawal-status').getAttribute('data-status'))
      .toBe('approved');

    await phone.page.getByTestId('tab-confirmations').click();
    await phone.page.getByTestId('credits-empty').waitFor();
    await shot(phone.page, 'four-eyes-confirmations-phone');
    expect(phone.problems.filter((p) => !p.includes('401'))).toEqual([]);
    await phone.page.context().close();

    const after = await api<WithdrawRequestsResponse>(email('superadmin'), `/api/withdraw-requests?search=${id}`);
    const request = after.body.items.find((r) => r.id === id)!;
    expect(request.status).toBe('approved');
    expect(request.first_approved_by_name).toBe('Demo admin');
    expect(request.processed_by_name).toBe('Demo superadmin');
    const credits = await api<ManualCreditsResponse>(email('admin'), '/api/manual-credits?status=confirmed');
    expect(credits.body.items.some((c) => c.amount === 2000 && c.decided_by_name === 'Demo admin')).toBe(true);
  });

  it("a balance change above the threshold says 'awaiting confirmation'; the account and the deposits card show what waits; cancel takes a reason", async () => {
    const { id: accountId, balance } = await clientAccount();
    const manager = await signIn(email('retention_manager'));
    await manager.page.goto(`${server.url}/crm/trading-accounts/${accountId}`);
    await manager.page.getByTestId('change-balance').click();
    const form = manager.page.getByTestId('balance-form');
    await form.getByTestId('balance-amount').fill('1200');
    await form.getByTestId('balance-reason').fill('Компенсация (e2e)');
    await form.getByTestId('balance-submit').click();
    await manager.page.getByText('Ожидает подтверждения').waitFor();
    const note = manager.page.getByTestId('account-pending-credits');
    await note.waitFor();
    expect(await note.textContent()).toContain('$1,200.00');
    expect(await note.textContent()).toContain('Компенсация (e2e)');
    expect((await clientAccount()).balance).toBe(balance);
    await shot(manager.page, 'four-eyes-account-pending');
    await manager.page.context().close();

    // A large deposit of the demo client: recorded at once, its crediting waits (the card says so).
    const clients = await api<{ items: { id: number; email: string }[] }>(
      email('superadmin'),
      '/api/clients?search=client%40demo.local',
    );
    const clientId = clients.body.items.find((c) => c.email === 'client@demo.local')!.id;
    const dep = await api<{ id: number; credit_id: number; credited: boolean }>(email('superadmin'), '/api/deposits', {
      method: 'POST',
      body: JSON.stringify({ client_id: clientId, amount: 3000, notes: 'e2e' }),
    });
    expect(dep.status).toBe(201);
    expect(dep.body.credited).toBe(false);

    const admin = await signIn(email('admin'));
    await admin.page.goto(`${server.url}/crm/clients/${clientId}`);
    await admin.page.getByTestId('deposit-credit-pending').waitFor();
    await admin.page.goto(`${server.url}/crm/applications?tab=confirmations`);
    const row = admin.page.locator(`[data-testid="credit-row"][data-credit-id="${dep.body.credit_id}"]`);
    await row.getByTestId('credit-cancel').click();
    // The reason is required.
    await admin.page.getByTestId('credit-dialog-submit').click();
    await admin.page.getByText('Обязательное поле').waitFor();
    await admin.page.getByTestId('credit-cancel-reason').fill('Платёж не поступил');
    await admin.page.getByTestId('credit-dialog-submit').click();
    await admin.page.getByText('Начисление $3,000.00 клиенту Demo Client отменено').waitFor();
    await admin.page.goto(`${server.url}/crm/clients/${clientId}`);
    await admin.page.getByTestId('deposit-not-credited').first().waitFor();
    expect(await admin.page.getByTestId('client-deposits').textContent()).toContain('Не зачислен: начисление отменено');
    expect(admin.problems.filter((p) => !p.includes('401'))).toEqual([]);
    await admin.page.context().close();
    expect((await clientAccount()).balance).toBe(balance);
  });

  it('a request nobody may approve says so, offers no Approve, and is rejected, which releases the hold', async () => {
    // Issue 20 finding 4: everyone who could approve client2's payouts recorded one of its deposits.
    const clients = await api<{ items: { id: number; email: string }[] }>(
      email('superadmin'),
      '/api/clients?search=client2%40demo.local',
    );
    const clientId = clients.body.items.find((c) => c.email === 'client2@demo.local')!.id;
    for (const [who, amount] of [
      ['superadmin', 100],
      ['admin', 100],
      ['team_lead_retention', 10],
    ] as const) {
      const dep = await api<{ credited: boolean }>(email(who), '/api/deposits', {
        method: 'POST',
        body: JSON.stringify({ client_id: clientId, amount, notes: 'e2e' }),
      });
      expect(dep.status).toBe(201);
    }
    const balance = async () =>
      (await api<{ balance: number }>('client2@demo.local', '/api/trading/balance')).body.balance;
    const before = await balance();
    const expiry = `12/${String((new Date().getFullYear() + 2) % 100).padStart(2, '0')}`;
    const filed = await api<{ id: number; balance: number }>('client2@demo.local', '/api/withdraw-requests', {
      method: 'POST',
      body: JSON.stringify({
        amount: 50,
        card_number: '4111 1111 1111 1111',
        card_holder: 'DEMO',
        card_expiry: expiry,
      }),
    });
    expect(filed.status).toBe(201);
    const id = filed.body.id;

    const { page, problems } = await signIn(email('superadmin'));
    await page.goto(`${server.url}/crm/applications`);
    const row = page.locator(`[data-testid="withdrawal-row"][data-request-id="${id}"]`);
    await row.waitFor();
    expect(await row.getByTestId('withdrawal-no-approver').textContent()).toContain(
      'нужен ещё один сотрудник с правом финансового одобрения, не работавший с деньгами клиента 30 дней',
    );
    expect(await row.getByTestId('withdrawal-approve').count()).toBe(0);
    expect(await row.getByTestId('withdrawal-approve-blocked').textContent()).toContain('Вы вносили депозит');
    await shot(page, 'four-eyes-no-approver-desktop');
    await row.getByTestId('withdrawal-reject').click();
    await page.getByTestId('withdrawal-confirm-button').click();
    await page.getByText('Заявка отклонена').waitFor();
    await expect.poll(() => row.getByTestId('withdrawal-status').getAttribute('data-status')).toBe('rejected');
    const mine = await api<{ items: { id: number; status: string }[] }>(
      'client2@demo.local',
      '/api/my-withdraw-requests',
    );
    expect(mine.body.items.find((r) => r.id === id)?.status).toBe('rejected');
    expect(await balance()).toBe(before);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });
});
