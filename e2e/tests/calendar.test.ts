import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { loginThroughUi } from '../support/flows.js';
import { startServer, type RunningServer } from '../support/server.js';

const SUPERADMIN = { email: 'superadmin@demo.local', password: 'demo12345' };

/** §2.7 the reminder calendar: filters and paging by the server, status changes, the edit modal, a click to the card. */
describe.runIf(browserAvailable())('reminder calendar', () => {
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

  async function signIn(viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport, timezoneId: 'Europe/Kyiv' });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await loginThroughUi(page, server.url, SUPERADMIN.email, SUPERADMIN.password);
    return { page, problems };
  }

  it('filters, pages, completes, cancels and edits reminders, and opens the client', async () => {
    const { page, problems } = await signIn();
    // Three reminders of one new client, tomorrow, so the default period (today to today + 7) holds them.
    const created = await page.request.post(`${server.url}/api/clients`, {
      headers: { origin: server.url },
      data: {
        name: `Calendar Client ${Date.now()}`,
        email: `cal.${Date.now()}@e2e.test`,
        phone: '+380671112233',
        country: 'UA',
      },
    });
    const clientId = ((await created.json()) as { id: number }).id;
    const tag = `cal-${Date.now()}`;
    // Tomorrow is a day in the business zone (Europe/Kyiv), which late in the UTC evening is already a day ahead of UTC.
    const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Kyiv' }).format(
      new Date(Date.now() + 24 * 3600_000),
    );
    const utcNoon = Date.parse(`${tomorrow}T12:00:00Z`);
    const kyivHourAtUtcNoon = Number(
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Kyiv', hour: '2-digit', hourCycle: 'h23' }).format(utcNoon),
    );
    const kyivNoon = utcNoon - (kyivHourAtUtcNoon - 12) * 3600_000;
    for (const [i, hour] of [9, 11, 13].entries()) {
      const at = new Date(kyivNoon + (hour - 12) * 3600_000);
      const res = await page.request.post(`${server.url}/api/clients/${clientId}/reminders`, {
        headers: { origin: server.url },
        data: { title: `${tag} #${i + 1}`, description: 'e2e', scheduled_time: at.toISOString() },
      });
      expect(res.status()).toBe(201);
    }

    await page.goto(`${server.url}/crm/calendar`);
    const calendar = page.getByTestId('reminder-calendar');
    await calendar.waitFor();
    expect(await calendar.textContent()).toContain('Календарь напоминаний');
    const items = page.locator('[data-testid="calendar-reminder"]');
    await items.first().waitFor();
    const summary = page.getByTestId('calendar-summary');
    expect(await summary.textContent()).toMatch(/Показано \d+ из \d+ напоминаний \(страница 1 из \d+\)/);

    // Status: pending only, then ours by the manager filter is not needed: ours are all pending and tomorrow. The demo
    // base has many pending reminders this week, so ours may be on a later page; they are checked in tomorrow's range.
    const ours = items.filter({ hasText: tag });
    await expect.poll(() => items.count()).toBeGreaterThan(0);
    await shot(page, 'calendar');

    // Period 'All' with 25 per page pages through the whole list on the server.
    await page.getByTestId('calendar-period').getByText('Все', { exact: true }).click();
    await expect.poll(async () => (await summary.textContent()) ?? '').toMatch(/из \d+ напоминаний/);
    const total = Number(/из (\d+) напоминаний/.exec((await summary.textContent()) ?? '')![1]);
    if (total > 25) {
      await page.getByTestId('calendar-next').click();
      await expect.poll(async () => (await summary.textContent()) ?? '').toContain('страница 2 из');
      await page.getByTestId('calendar-prev').click();
    }

    // Range: tomorrow only, oldest first: ours in time order.
    await page.getByTestId('calendar-period').getByText('Диапазон дат').click();
    // Issue 15 defect 13: the date fields read and show DD.MM.YYYY, not the browser's mm/dd/yyyy.
    const tomorrowRu = tomorrow.split('-').reverse().join('.');
    for (const id of ['calendar-date-from', 'calendar-date-to']) {
      await page.getByTestId(id).click();
      await page.getByTestId(id).fill(tomorrowRu);
      await page.keyboard.press('Enter');
      expect(await page.getByTestId(id).inputValue()).toBe(tomorrowRu);
    }
    await page.getByTestId('calendar-sort').click();
    await page.getByRole('option', { name: 'Сначала старые' }).click();
    await expect
      .poll(async () => (await ours.allTextContents()).map((t) => /#(\d)/.exec(t)?.[1]))
      .toEqual(['1', '2', '3']);

    // Complete #1, cancel #2: the status filter 'Ожидает' then shows only #3 of ours.
    await ours.filter({ hasText: '#1' }).getByTestId('calendar-complete').click();
    await expect.poll(() => ours.filter({ hasText: '#1' }).getAttribute('data-status')).toBe('completed');
    await ours.filter({ hasText: '#2' }).getByTestId('calendar-cancel').click();
    await expect.poll(() => ours.filter({ hasText: '#2' }).getAttribute('data-status')).toBe('cancelled');
    expect(await ours.filter({ hasText: '#1' }).getByTestId('calendar-complete').count()).toBe(0);
    await page.getByTestId('calendar-status').click();
    await page.getByRole('option', { name: 'Ожидает' }).click();
    await expect.poll(() => ours.count()).toBe(1);

    // Edit #3: a new title and back to completed through the modal's status select.
    await ours.first().getByTestId('calendar-edit').click();
    await page.getByTestId('reminder-edit-form').waitFor();
    await page.getByTestId('reminder-edit-title').fill(`${tag} #3 edited`);
    await shot(page, 'calendar-edit');
    await page.getByTestId('reminder-edit-save').click();
    await page.getByTestId('reminder-edit-form').waitFor({ state: 'detached' });
    await expect.poll(() => ours.first().textContent()).toContain('#3 edited');

    // A click on an item opens its client (ours, from the filtered view: the demo base's reminders fill the default one).
    await ours.first().getByTestId('calendar-reminder-open').click();
    await page.waitForURL((url) => url.pathname === `/crm/clients/${clientId}`);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);

    const phone = await signIn(PHONE);
    await phone.page.goto(`${server.url}/crm/calendar`);
    await phone.page.locator('[data-testid="calendar-reminder"]').first().waitFor();
    await shot(phone.page, 'calendar-phone');
  });
});
