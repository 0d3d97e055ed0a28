import { type Client, type ClientsResponse, type Role } from '@brokerage/shared';
import ExcelJS from 'exceljs';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, PHONE, shot } from '../support/browser.js';
import { accountFor, apiLogin, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/** Ticks values in a §2.5 multi-select fed by /api/clients/filter-options (its search narrows the list), then closes it. */
async function pickOptions(page: Page, testId: string, values: string[]) {
  await page.getByTestId(testId).click();
  for (const value of values) await page.getByRole('option', { name: value, exact: true }).click();
  await page.keyboard.press('Escape');
  await expect.poll(() => page.getByTestId(testId).getAttribute('data-count')).toBe(String(values.length));
}

/**
 * The clients list's writing side (back-office.md §2.5): paging a filtered list, bulk assign with a status, the
 * Excel export, the add-client modal and the ID lookup. Kept apart from clients.test.ts so each file stays quick.
 */
describe.runIf(browserAvailable())('clients list: bulk assign, export, add, lookup', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  const account = (role: Role) => accountFor(accounts, role);

  async function bearer(role: Role): Promise<string> {
    const { email, password } = account(role);
    return (await apiLogin(server, email, password)).token;
  }

  async function apiClients(role: Role, query = '', perPage = 100): Promise<ClientsResponse> {
    const res = await fetch(`${server.url}/api/clients?per_page=${perPage}${query}`, {
      headers: { authorization: `Bearer ${await bearer(role)}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ClientsResponse;
  }

  async function signIn(role: Role, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    return signedInPage(browser, server, account(role), { viewport, acceptDownloads: true });
  }

  const rows = (page: Page) => page.locator('[data-testid="client-row"]');
  const rowIds = (page: Page) =>
    rows(page).evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-client-id'))));

  async function expectIds(page: Page, ids: number[]) {
    await expect.poll(() => rowIds(page), { timeout: 10_000 }).toEqual(ids);
  }

  it('superadmin pages a filtered list, bulk-assigns a manager with a status, exports, adds a client and looks one up', async () => {
    // Thirty leads of one campaign, so the list has pages to turn.
    const token = await bearer('superadmin');
    const campaign = 'E2E Paging';
    for (let i = 1; i <= 30; i++) {
      const res = await fetch(`${server.url}/api/clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `Paging Lead ${String(i).padStart(2, '0')}`,
          email: `paging${i}@e2e.test`,
          phone: `+1 555 010 ${String(i).padStart(4, '0')}`,
          country: 'Germany',
          campaign,
        }),
      });
      expect(res.status).toBe(201);
    }
    const { page, problems } = await signIn('superadmin');
    await page.goto(`${server.url}/crm/clients`);
    await rows(page).first().waitFor();

    // Campaign filter (a multi-select of the campaigns in scope) and 25 per page: two pages of this campaign.
    await pickOptions(page, 'clients-campaign-filter', [campaign]);
    await page.getByTestId('per-page').click();
    await page.getByRole('option', { name: '25', exact: true }).click();
    const first = await apiClients('superadmin', `&campaign=${encodeURIComponent(campaign)}`, 25);
    expect(first.total).toBe(30);
    await expectIds(
      page,
      first.items.map((c) => c.id),
    );
    expect(await page.getByTestId('clients-shown').textContent()).toBe('Показаны 1–25 из 30 клиентов');
    await page.getByRole('button', { name: '2', exact: true }).click();
    const second = await apiClients('superadmin', `&campaign=${encodeURIComponent(campaign)}&page=2`, 25);
    await expectIds(
      page,
      second.items.map((c) => c.id),
    );
    expect(await page.getByTestId('clients-shown').textContent()).toBe('Показаны 26–30 из 30 клиентов');
    await page.getByRole('button', { name: '1', exact: true }).click();
    await expectIds(
      page,
      first.items.map((c) => c.id),
    );

    // Select two rows, then the whole page, then back to two; the bulk panel counts them.
    const picked = first.items.slice(0, 2);
    for (const c of picked) await page.locator(`[data-client-id="${c.id}"]`).getByTestId('client-select').check();
    await expect.poll(() => page.getByTestId('clients-selected-count').textContent()).toBe('Выбрано клиентов: 2');
    await page.getByTestId('clients-select-all').check();
    await expect.poll(() => page.getByTestId('clients-selected-count').getAttribute('data-count')).toBe('25');
    await page.getByTestId('clients-select-all').uncheck();
    expect(await page.getByTestId('clients-bulk').count()).toBe(0);
    for (const c of picked) await page.locator(`[data-client-id="${c.id}"]`).getByTestId('client-select').check();
    await shot(page, 'clients-bulk-selected');

    // Assign a retention manager and the status 'В работе'.
    await page.getByTestId('clients-bulk-assign').click();
    await page.getByTestId('bulk-assign-form').waitFor();
    expect(await page.getByTestId('bulk-assign-form').textContent()).toContain('Выбрано клиентов: 2');
    await page.getByTestId('bulk-assign-manager').click();
    const option = page.getByRole('option').filter({ hasText: 'Менеджер удержания' }).first();
    const managerLabel = (await option.textContent())!;
    await option.click();
    await page.getByTestId('bulk-assign-status').click();
    await page.getByRole('option', { name: 'В работе', exact: true }).click();
    await shot(page, 'clients-bulk-modal');
    await page.getByTestId('bulk-assign-submit').click();
    await page.getByText('Обновлено клиентов: 2').waitFor();
    expect(await page.getByTestId('clients-bulk').count()).toBe(0);
    const after = await apiClients('superadmin', `&campaign=${encodeURIComponent(campaign)}`, 25);
    const updated = after.items.filter((c: Client) => picked.some((p) => p.id === c.id));
    expect(updated).toHaveLength(2);
    for (const c of updated) {
      expect(c.status).toBe('in_progress');
      expect(managerLabel.startsWith(c.assigned_manager_name!)).toBe(true);
    }
    await expect
      .poll(() => page.locator(`[data-client-id="${picked[0]!.id}"]`).textContent())
      .toContain(updated[0]!.assigned_manager_name!);

    // Excel: the filtered clients (both pages), a real workbook with the formula-safe text cells.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('clients-export').click()]);
    expect(download.suggestedFilename()).toMatch(/^clients_export_\d{4}-\d{2}-\d{2}\.xlsx$/);
    const bytes = fs.readFileSync(await download.path());
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.rowCount).toBe(31);
    const names: string[] = [];
    sheet.eachRow((r, n) => {
      if (n > 1) names.push(String(r.getCell(2).value));
    });
    expect(names.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `Paging Lead ${String(i + 1).padStart(2, '0')}`));

    // Add client: the required fields first, then a created client the list shows.
    await page.getByTestId('clients-add').click();
    await page.getByTestId('add-client-submit').click();
    await expect.poll(() => page.getByTestId('add-client-form').getByText('Обязательное поле').count()).toBe(4);
    await page.getByTestId('add-client-name').fill('Новый Клиент E2E');
    await page.getByTestId('add-client-email').fill('new.client@e2e.test');
    await page.getByTestId('add-client-phone').fill('+380 67 000 1122');
    await page.getByTestId('add-client-country').fill('Украина');
    await page.getByTestId('add-client-campaign').fill(campaign);
    await shot(page, 'clients-add-modal');
    await page.getByTestId('add-client-submit').click();
    await page.getByTestId('add-client-form').waitFor({ state: 'detached' });
    const created = (await apiClients('superadmin', '&search=new.client@e2e.test')).items[0]!;
    expect(created).toMatchObject({ name: 'Новый Клиент E2E', status: 'new', campaign });
    await expect.poll(() => page.getByTestId('clients-shown').textContent()).toBe('Показаны 1–25 из 31 клиентов');

    // ID lookup: a bad text and an unknown id are told; a known one opens the card.
    const idField = page.getByTestId('clients-id-lookup');
    await idField.fill('12a');
    await idField.press('Enter');
    await page.getByText('Введите корректный ID клиента').waitFor();
    await idField.fill('98765432');
    await idField.press('Enter');
    await page.getByText('Клиент с ID 98765432 не найден').waitFor();
    await idField.fill(String(created.id));
    await idField.press('Enter');
    await page.waitForURL((url) => url.pathname === `/crm/clients/${created.id}`);
    expect(problems.filter((p) => !p.includes('401') && !p.includes('404'))).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('admin has the export but no checkboxes; a team lead on a phone has no export (§6, D5)', async () => {
    const { page } = await signIn('admin');
    await page.goto(`${server.url}/crm/clients`);
    await rows(page).first().waitFor();
    expect(await page.getByTestId('client-select').count()).toBe(0);
    expect(await page.getByTestId('clients-export').count()).toBe(1);
    await page.context().close();

    const lead = await signIn('team_lead_retention', PHONE);
    await lead.page.goto(`${server.url}/crm/clients`);
    await rows(lead.page).first().waitFor();
    // Team leads have no Excel export (D5) but may add clients.
    expect(await lead.page.getByTestId('clients-export').count()).toBe(0);
    expect(await lead.page.getByTestId('clients-add').count()).toBe(1);
    await shot(lead.page, 'clients-bulk-phone');
    await lead.page.context().close();
  });
});
