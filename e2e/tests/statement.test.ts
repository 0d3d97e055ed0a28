import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { signedInPage } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

/**
 * Issue 14 in Chromium against the real server with the demo data (DEMO_DATA=1: at least 20 client accounts with
 * settled trades). The client's 'История операций' — entries with kind, signed amount, balance and trade, the opening
 * and closing balance of the page, a kind filter, a CSV download — and the true risk warning on the landing page in
 * ru/en/kk, in the registration modal and on the trading screen.
 */
interface Facts {
  losing_accounts_percent: number | null;
  losing_accounts_as_of: string;
  accounts_traded: number;
}
interface Statement {
  opening_balance: number;
  closing_balance: number;
  total: number;
  entries: { id: number; amount: number; kind: string; trade_id: number | null }[];
}

const RESOURCE_401 = /status of 401/;
const money = (n: number) =>
  `$${Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe.runIf(browserAvailable())('account statement and risk warning', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ LOGIN_RATE_PER_MINUTE: '1000' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const facts = async () => (await (await fetch(`${server.url}/api/site/facts`)).json()) as Facts;

  it('the landing page states the share of losing accounts with its date in ru, en and kk, and so does the registration modal', async () => {
    const f = await facts();
    expect(f.accounts_traded).toBeGreaterThanOrEqual(20);
    expect(f.losing_accounts_percent).toEqual(expect.any(Number));
    const n = f.losing_accounts_percent!;
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/`);
    const hero = page.getByTestId('hero-risk');
    await hero.waitFor();
    const year = f.losing_accounts_as_of.slice(0, 4);
    expect(await hero.getByTestId('risk-figure').textContent()).toMatch(
      new RegExp(
        `^${n}% клиентских счетов потеряли деньги, торгуя у нас за последние 12 месяцев \\(данные на .*${year}.*\\)\\.$`,
      ),
    );
    expect(await page.getByTestId('risk-warning').textContent()).toContain(`${n}% клиентских счетов`);
    await hero.scrollIntoViewIfNeeded();
    await shot(page, 'risk-warning-desktop');

    await page.getByTestId('site-language').selectOption('en');
    await expect
      .poll(() => hero.getByTestId('risk-figure').textContent())
      .toMatch(
        new RegExp(
          `^${n}% of client accounts lost money trading with us in the last 12 months \\(figure as of .*${year}\\)\\.$`,
        ),
      );
    await page.getByTestId('site-language').selectOption('kk');
    await expect
      .poll(() => hero.getByTestId('risk-figure').textContent())
      .toMatch(new RegExp(`^Клиенттік шоттардың ${n}%-ы соңғы 12 айда бізбен сауда жасап, ақша жоғалтты`));
    await page.getByTestId('site-language').selectOption('ru');

    // The registration modal shows the same figure above its button.
    await page.locator('#home').getByRole('button', { name: 'Начать торговлю' }).click();
    const modalRisk = page.getByTestId('auth-modal').getByTestId('auth-risk');
    await modalRisk.waitFor();
    expect(await modalRisk.textContent()).toContain(`${n}% клиентских счетов потеряли деньги`);
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  async function openStatement(page: Page) {
    await page.waitForURL(/\/trading/);
    await page.getByTestId('view-statement').click();
    await page.getByTestId('statement-view').waitFor();
  }

  it("a trader's statement: entries with balance and trade, the page's opening and closing, a kind filter, a CSV download", async () => {
    const { page, problems } = await signedInPage(
      browser,
      server,
      { email: 'client2@demo.local', password: 'demo12345' },
      { acceptDownloads: true },
    );
    // The trading screen shows the risk figure too.
    const f = await facts();
    await page.getByTestId('risk-warning').getByTestId('risk-figure').waitFor();
    expect(await page.getByTestId('risk-warning').textContent()).toContain(`${f.losing_accounts_percent}%`);

    await openStatement(page);
    const api = await page.evaluate(async () => (await fetch('/api/trading/statement?per_page=20')).json());
    const statement = api as Statement;
    expect(statement.total).toBeGreaterThan(3);
    await page.getByTestId('statement-table').waitFor();
    const rows = page.getByTestId('statement-table').getByTestId('statement-row');
    await expect.poll(() => rows.count()).toBe(Math.min(20, statement.total));
    expect(await page.getByTestId('statement-opening').textContent()).toBe(money(statement.opening_balance));
    expect(await page.getByTestId('statement-closing').textContent()).toBe(money(statement.closing_balance));
    // The first entry is the first deposit; stakes say which trade they belong to, in red with a minus.
    expect(await rows.first().textContent()).toContain('Пополнение');
    const stake = page.getByTestId('statement-table').locator('[data-kind="trade_stake"]').first();
    expect(await stake.getByTestId('statement-trade').textContent()).toMatch(/^Сделка №\d+$/);
    expect(await stake.getByTestId('statement-amount').textContent()).toMatch(/^−\$/);
    await shot(page, 'statement-desktop');

    // Kind filter: only stakes, then back to all.
    await page.getByTestId('statement-kind').click();
    await page.getByRole('option', { name: 'Ставка', exact: true }).click();
    await page.keyboard.press('Escape');
    await expect
      .poll(async () => new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))))
      .toEqual(new Set(['trade_stake']));
    expect(await page.getByText('Итог выбранных видов до этой страницы').count()).toBe(1);

    // The CSV of the period (the filter applies): BOM, opening line, every stake, closing line.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('statement-download-csv').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^statement-\d+-.*\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.startsWith('\ufeff')).toBe(true);
    const lines = csv.slice(1).trimEnd().split('\r\n');
    const stakes = statement.entries.filter((e) => e.kind === 'trade_stake').length;
    expect(lines.length).toBe(stakes + 3);
    expect(lines[1]).toContain('Итого выбранных видов на начало периода');
    // Russian convention (semicolons), the times in the browser's own zone, named in the title (issue 27 items 17–18).
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(lines[0]!.split(';')[1]).toBe(`Время (${zone})`);
    expect(lines.at(-1)).toContain('Итого выбранных видов на конец периода');

    // On a phone the entries are cards.
    await page.setViewportSize(PHONE);
    await page.getByTestId('statement-cards').waitFor();
    await shot(page, 'statement-phone');
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await page.context().close();
  });
});
