import { type ClientsResponse, type Role } from '@brokerage/shared';
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

/** The clients list (back-office.md §2.5) on the demo data set, checked against what the API answers each role. */
describe.runIf(browserAvailable())('clients list', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  const account = (role: Role) => accountFor(accounts, role);

  async function bearer(role: Role): Promise<string> {
    const { email, password } = account(role);
    return (await apiLogin(server, email, password)).token;
  }

  /** GET /api/clients as a role, with a Bearer token of its own session. */
  /** perPage defaults to the list's own page size (50), so the first page the list shows is the one compared. */
  async function apiClients(role: Role, query = '', perPage = 50): Promise<ClientsResponse> {
    const res = await fetch(`${server.url}/api/clients?per_page=${perPage}${query}`, {
      headers: { authorization: `Bearer ${await bearer(role)}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ClientsResponse;
  }

  async function signIn(role: Role, viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    return signedInPage(browser, server, account(role), { viewport });
  }

  const rows = (page: Page) => page.locator('[data-testid="client-row"]');
  const rowIds = (page: Page) =>
    rows(page).evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-client-id'))));
  const total = (page: Page) => page.getByTestId('clients-total').getAttribute('data-total').then(Number);

  /** Waits until the list shows exactly these client ids, in this order. */
  async function expectIds(page: Page, ids: number[]) {
    await expect.poll(() => rowIds(page), { timeout: 10_000 }).toEqual(ids);
  }

  async function pickOption(page: Page, select: string, option: string) {
    await page.getByTestId(select).click();
    await page.getByRole('option', { name: option, exact: true }).click();
    await page.keyboard.press('Escape');
  }

  it('admin lands on /crm/clients, searches, filters by status and country, and keeps the choice over a reload', async () => {
    const { page, problems } = await signIn('admin');
    await page.waitForURL((url) => url.pathname === '/crm/clients');
    const all = await apiClients('admin');
    expect(all.total).toBeGreaterThanOrEqual(6);
    await expectIds(
      page,
      all.items.map((c) => c.id),
    );
    expect(await total(page)).toBe(all.total);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Клиенты');
    // admin has no manager filter or column (§6: superadmin and team leads only).
    expect(await page.getByTestId('clients-manager-filter').count()).toBe(0);
    expect(await page.getByTestId('clients-manager-column').count()).toBe(0);
    const firstRow = await rows(page).first().textContent();
    expect(firstRow).toMatch(/\$\d[\d,]*\.\d{2}/);
    // Created: the day over the time, in Europe/Kyiv.
    expect(firstRow).toMatch(/\d{2}\.\d{2}\.\d{4}\d{2}:\d{2}/);
    await shot(page, 'clients-admin');

    // Search: name, e-mail or phone, debounced.
    await page.getByTestId('clients-search').fill('anna');
    const anna = await apiClients('admin', '&search=anna');
    expect(anna.total).toBe(1);
    await expectIds(
      page,
      anna.items.map((c) => c.id),
    );
    expect(await rows(page).first().textContent()).toContain('Anna Schmidt');
    await page.getByTestId('clients-search').fill('+38067');
    await expectIds(
      page,
      (await apiClients('admin', `&search=${encodeURIComponent('+38067')}`)).items.map((c) => c.id),
    );
    expect(await rows(page).count()).toBe(1);
    await page.getByTestId('clients-search').fill('');
    await expectIds(
      page,
      all.items.map((c) => c.id),
    );

    // A search nobody matches shows the empty state.
    await page.getByTestId('clients-search').fill('no-such-demo-client');
    await expectIds(page, []);
    await expect.poll(() => page.getByTestId('clients-empty').textContent()).toBe('Клиенты не найдены');
    await shot(page, 'clients-empty');
    await page.getByTestId('clients-search').fill('');
    // Status: 'Фейк' leaves the demo leads marked fake.
    await pickOption(page, 'clients-status-filter', 'Фейк');
    const fakes = await apiClients('admin', '&status=fake');
    expect(fakes.total).toBeGreaterThan(0);
    await expectIds(
      page,
      fakes.items.map((c) => c.id),
    );
    await page.getByTestId('clients-status-filter').click();
    await page.getByRole('option', { name: 'Новый', exact: true }).click();
    await expect.poll(() => page.getByTestId('clients-status-filter').textContent()).toBe('Выбрано: 2');
    await shot(page, 'clients-status-open');
    await page.keyboard.press('Escape');
    await pickOption(page, 'clients-status-filter', 'Фейк');
    await expect.poll(() => page.getByTestId('clients-status-filter').textContent()).toBe('Новый');
    const fresh = await apiClients('admin', '&status=new');
    await expectIds(
      page,
      fresh.items.map((c) => c.id),
    );

    // The status filter works from the keyboard too: Enter opens it, the arrows move, Enter toggles, Escape closes.
    const statusFilter = page.getByTestId('clients-status-filter');
    await statusFilter.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => statusFilter.getAttribute('data-count')).toBe('2');
    await page.keyboard.press('Enter');
    await expect.poll(() => statusFilter.getAttribute('data-count')).toBe('1');
    await page.keyboard.press('Escape');
    expect(await statusFilter.getAttribute('aria-expanded')).toBe('false');
    expect(await statusFilter.textContent()).toBe('Новый');

    // Country: a multi-select of the countries of the caller's clients.
    await pickOptions(page, 'clients-country-filter', ['Germany', 'Казахстан']);
    const countries = await apiClients('admin', '&status=new&country=Germany&country=Казахстан');
    expect(countries.total).toBeGreaterThan(0);
    await expectIds(
      page,
      countries.items.map((c) => c.id),
    );
    await shot(page, 'clients-filtered');

    // The filters survive a reload (localStorage 'clientsPageFilters').
    const stored = await page.evaluate(() => window.localStorage.getItem('clientsPageFilters'));
    expect(JSON.parse(stored!)).toMatchObject({ status: ['new'], countries: ['Germany', 'Казахстан'] });
    await page.reload();
    await expectIds(
      page,
      countries.items.map((c) => c.id),
    );
    expect(await page.getByTestId('clients-status-filter').textContent()).toBe('Новый');
    expect(await page.getByTestId('clients-country-filter').textContent()).toBe('Выбрано: 2');

    // 'Сбросить' clears them all.
    await page.getByTestId('clients-reset').click();
    await expectIds(
      page,
      all.items.map((c) => c.id),
    );
    expect(await page.getByTestId('clients-country-filter').getAttribute('data-count')).toBe('0');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('sorts on the server from the headers, also from the keyboard, and changes the page size', async () => {
    const { page } = await signIn('admin');
    await page.waitForURL((url) => url.pathname === '/crm/clients');
    const byIdDesc = await apiClients('admin', '&sort=id&order=desc');
    await expectIds(
      page,
      byIdDesc.items.map((c) => c.id),
    );
    expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('descending');

    await page.getByTestId('clients-sort-name').click();
    const byName = await apiClients('admin', '&sort=name&order=asc');
    await expectIds(
      page,
      byName.items.map((c) => c.id),
    );
    await page.getByTestId('clients-sort-name').focus();
    await page.keyboard.press('Enter');
    const byNameDesc = await apiClients('admin', '&sort=name&order=desc');
    await expectIds(
      page,
      byNameDesc.items.map((c) => c.id),
    );
    expect(await page.locator('th[aria-sort]').textContent()).toBe('Имя');
    expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('descending');

    await page.getByTestId('per-page').click();
    await page.getByRole('option', { name: '25', exact: true }).click();
    await expect
      .poll(() => page.evaluate(() => JSON.parse(window.localStorage.getItem('clientsPageFilters') ?? '{}')))
      .toMatchObject({ sort: 'name', order: 'desc', perPage: 25 });
    await page.reload();
    await expectIds(
      page,
      (await apiClients('admin', '&sort=name&order=desc', 25)).items.map((c) => c.id),
    );
    expect(await page.getByTestId('per-page').inputValue()).toBe('25');
    await page.context().close();
  });

  it('a failed load shows the error with a retry, and the retry recovers', async () => {
    const { page } = await signIn('admin');
    await page.waitForURL((url) => url.pathname === '/crm/clients');
    await rows(page).first().waitFor();
    await page.route('**/api/clients?**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'Сервис недоступен' }),
      }),
    );
    await page.getByTestId('clients-search').fill('ivan');
    const error = page.getByTestId('clients-error');
    await error.waitFor({ timeout: 20_000 });
    expect(await error.textContent()).toContain('Не удалось загрузить список клиентов');
    expect(await error.textContent()).toContain('Сервис недоступен');
    await shot(page, 'clients-error');
    await page.unroute('**/api/clients?**');
    await error.getByRole('button', { name: 'Повторить' }).click();
    await expectIds(
      page,
      (await apiClients('admin', '&search=ivan')).items.map((c) => c.id),
    );
    expect(await error.count()).toBe(0);
    await page.context().close();
  });

  it('superadmin sees the manager column and filters by "Не назначен"', async () => {
    const { page } = await signIn('superadmin');
    await page.goto(`${server.url}/crm/clients`);
    const all = await apiClients('superadmin');
    await expectIds(
      page,
      all.items.map((c) => c.id),
    );
    await page.getByTestId('clients-manager-column').waitFor();
    const unassignedRow = all.items.find((c) => c.assigned_manager === null)!;
    expect(await page.locator(`[data-client-id="${unassignedRow.id}"]`).textContent()).toContain('Не назначен');
    const assignedRow = all.items.find((c) => c.assigned_manager !== null)!;
    expect(await page.locator(`[data-client-id="${assignedRow.id}"]`).textContent()).toContain(
      assignedRow.assigned_manager_name!,
    );

    await pickOption(page, 'clients-manager-filter', 'Не назначен');
    const unassigned = await apiClients('superadmin', '&assigned_manager=null');
    expect(unassigned.total).toBeGreaterThan(0);
    await expectIds(
      page,
      unassigned.items.map((c) => c.id),
    );
    await shot(page, 'clients-superadmin-unassigned');
    await page.context().close();
  });

  it('a sales manager sees only their own clients, without the manager column or filter', async () => {
    const { page, problems } = await signIn('sales_manager');
    await page.getByTestId('side-menu').locator('[data-path="/crm/clients"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/clients');
    const own = await apiClients('sales_manager');
    const all = await apiClients('superadmin');
    expect(own.total).toBeGreaterThan(0);
    expect(own.total).toBeLessThan(all.total);
    await expectIds(
      page,
      own.items.map((c) => c.id),
    );
    expect(await total(page)).toBe(own.total);
    expect(own.items.every((c) => c.assigned_manager === own.items[0]!.assigned_manager)).toBe(true);
    expect(await page.getByTestId('clients-manager-column').count()).toBe(0);
    expect(await page.getByTestId('clients-manager-filter').count()).toBe(0);
    await shot(page, 'clients-sales-manager');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('on a phone the clients are cards, not the wide table', async () => {
    const { page } = await signIn('team_lead_sales', PHONE);
    await page.goto(`${server.url}/crm/clients`);
    const scoped = await apiClients('team_lead_sales');
    await expectIds(
      page,
      scoped.items.map((c) => c.id),
    );
    expect(await page.getByTestId('clients-table').count()).toBe(0);
    expect(await page.getByTestId('clients-cards').locator('li[data-testid="client-row"]').count()).toBe(
      scoped.items.length,
    );
    // The filters fold under 'Фильтры', which counts the ones set.
    const toggle = page.getByTestId('clients-filters-toggle');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByTestId('clients-status-filter').isVisible()).toBe(false);
    await toggle.click();
    await page.getByTestId('clients-status-filter').waitFor({ state: 'visible' });
    await pickOptions(page, 'clients-country-filter', ['Germany']);
    const germany = await apiClients('team_lead_sales', '&country=Germany');
    await expectIds(
      page,
      germany.items.map((c) => c.id),
    );
    await expect.poll(() => toggle.textContent()).toBe('Фильтры1');
    await shot(page, 'clients-phone-filters');
    await page.getByTestId('clients-reset').click();
    await toggle.click();
    await expectIds(
      page,
      scoped.items.map((c) => c.id),
    );
    // The cards fit the screen: nothing scrolls sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'clients-phone');
    await page.context().close();
  });
});
