import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot } from '../support/browser.js';
import { accountFor, apiLogin, demoAccounts, signedInPage, type DemoAccount } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

/** A lead file: `count` new leads, then three rows the import refuses (against the demo base and the file itself). */
function leadsCsv(prefix: string, count: number, operator: string): string {
  const lines = ['full name,Email,Phone,Country,Campaign'];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(6, '0');
    lines.push(
      `Лид ${prefix} ${n},${prefix}.${n}@example.org,+7 ${operator} ${n.slice(0, 3)} ${n.slice(3)} 9,Kazakhstan,E2E ${prefix}`,
    );
  }
  // The demo lead Айгуль Сапарова has +77011234567: the same number written the Kazakh way is a duplicate.
  lines.push(`Дубль телефона,phone.dup.${prefix}@example.org,8 (701) 123-45-67,Kazakhstan,E2E ${prefix}`);
  // The first row's e-mail again, in capitals.
  lines.push(`Дубль почты,${prefix.toUpperCase()}.000000@EXAMPLE.ORG,+7 705 000 00 01,Kazakhstan,E2E ${prefix}`);
  lines.push(`Без телефона,no.phone.${prefix}@example.org,,Kazakhstan,E2E ${prefix}`);
  return `${lines.join('\n')}\n`;
}

/** Drops a file on the drop area the way a browser does: a DataTransfer carried by dragenter, dragover and drop. */
async function dropFile(page: Page, name: string, content: string, type = 'text/csv'): Promise<void> {
  await page.getByTestId('lead-import-dropzone').evaluate(
    (zone, file) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([file.content], file.name, { type: file.type }));
      for (const type of ['dragenter', 'dragover', 'drop'])
        zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    },
    { name, content, type },
  );
}

/** §2.11 'File upload' on /crm/integration as an admin: drop, progress, processing, result panel, downloads. */
describe.runIf(browserAvailable())('lead file import page', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: DemoAccount;

  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '1' });
    browser = await launchBrowser();
    admin = accountFor(await demoAccounts(server), 'admin');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('an admin drops a file, watches the bytes go, and reads the result with its rejected rows', async () => {
    const { page, problems } = await signedInPage(browser, server, admin, { viewport: DESKTOP, acceptDownloads: true });
    await page.getByTestId('side-menu').locator('[data-path="/crm/integration"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/integration');
    await expect.poll(() => page.getByTestId('lead-import-upload').isDisabled()).toBe(true);

    // About 1.2 MB, sent at 300 KB/s (Chromium's network throttling), so the progress bar is seen moving.
    const count = 18_000;
    const csv = leadsCsv('desk', count, '702');
    await dropFile(page, 'leads-desktop.csv', csv);
    expect(await page.getByTestId('lead-import-file-name').textContent()).toBe('leads-desktop.csv');
    expect(await page.getByTestId('lead-import-file-size').textContent()).toBe(
      `${(Buffer.byteLength(csv) / 1024 / 1024).toFixed(2)} МБ`,
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 300 * 1024,
    });

    await page.getByTestId('lead-import-upload').click();
    expect(await page.getByTestId('lead-import-upload').textContent()).toBe('Загрузка...');
    expect(await page.getByTestId('lead-import-upload').isDisabled()).toBe(true);
    // A percentage strictly between 0 and 100 shows the bar follows the bytes sent.
    await expect
      .poll(
        async () => {
          const text = (await page.getByTestId('lead-import-progress-text').textContent({ timeout: 1000 })) ?? '';
          const percent = Number(/(\d+)%/.exec(text)?.[1] ?? 0);
          return percent > 0 && percent < 100;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    await shot(page, 'lead-import-desktop-progress');
    await page.getByTestId('lead-import-processing').waitFor({ timeout: 60_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });

    await page.getByTestId('lead-import-result').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('lead-import-result-title').textContent()).toBe('Загрузка завершена!');
    const value = async (id: string) =>
      Number((await page.getByTestId(`${id}-value`).textContent())!.replace(/\D/g, ''));
    expect(await value('lead-import-total')).toBe(count + 3);
    expect(await value('lead-import-created')).toBe(count);
    expect(await value('lead-import-duplicates')).toBe(2);
    expect(await value('lead-import-skipped')).toBe(1);
    expect(await page.getByTestId('lead-import-campaign').textContent()).toContain('Кампания: E2E desk');
    expect(await page.getByTestId('lead-import-campaign').textContent()).toContain('Статус новых клиентов: Новый');
    const rows = await page.getByTestId('lead-import-rejected-row').allTextContents();
    expect(rows).toEqual([
      `${count + 2}дубликат: такой телефон уже есть в базе`,
      `${count + 3}дубликат: тот же e-mail, что в строке 2`,
      `${count + 4}не заполнено: Phone`,
    ]);
    expect(await page.getByTestId('lead-import-upload').isDisabled()).toBe(true); // the file was consumed

    // The rejected rows download as CSV; the template too.
    const [rejected] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('lead-import-rejected-csv').click(),
    ]);
    const rejectedText = fs.readFileSync(await rejected.path(), 'utf8');
    expect(rejectedText.startsWith('\ufeffrow,reason,full name,Email,Phone,Country,Campaign,Source\r\n')).toBe(true);
    expect(rejectedText).toContain('8 (701) 123-45-67');
    const [template] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('lead-import-template').click(),
    ]);
    expect(template.suggestedFilename()).toBe('clients_template.csv');
    expect(fs.readFileSync(await template.path(), 'utf8')).toMatch(/^\ufefffull name,Email,Phone,Country\r\n/);

    // The new leads are in the base as the API lists them: status new, source import, no manager.
    const { token } = await apiLogin(server, admin.email, admin.password);
    const list = await fetch(`${server.url}/api/clients?search=desk.000001&per_page=5`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const found = (await list.json()) as {
      items: { status: string; source: string; assigned_manager: string | null }[];
    };
    expect(found.items).toEqual([expect.objectContaining({ status: 'new', source: 'import', assigned_manager: null })]);

    await shot(page, 'lead-import-desktop');
    // The sign-in screen's own session check answers 401 before the login.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('on a phone: a wrong file is refused in the browser, a picked CSV imports, a refusal shows the server detail', async () => {
    const { page, problems } = await signedInPage(browser, server, admin, { viewport: PHONE });
    await page.goto(`${server.url}/crm/integration`);
    await page.getByTestId('lead-import-dropzone').waitFor();

    await dropFile(page, 'photo.png', 'not a table', 'image/png');
    expect(await page.getByTestId('error-box').textContent()).toBe('Выберите файл CSV или Excel');
    expect(await page.getByTestId('lead-import-upload').isDisabled()).toBe(true);

    // A file whose columns are wrong: the server's 400 detail appears in the failure panel.
    await page.getByTestId('lead-import-input').setInputFiles({
      name: 'wrong.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Name,Email\nA,a@example.org\n'),
    });
    await page.getByTestId('lead-import-upload').click();
    await page.getByTestId('lead-import-error').waitFor();
    expect(await page.getByTestId('lead-import-error').textContent()).toContain(
      'В файле нет обязательных столбцов: Phone, Country',
    );

    await page.getByTestId('lead-import-input').setInputFiles({
      name: 'leads-phone.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(leadsCsv('phone', 5, '707')),
    });
    await page.getByTestId('lead-import-upload').click();
    await page.getByTestId('lead-import-result').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('lead-import-error').count()).toBe(0);
    expect(await page.getByTestId('lead-import-created-value').textContent()).toBe('5');
    expect(await page.getByTestId('lead-import-rejected-row').count()).toBe(3);
    // Nothing overflows the phone's width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'lead-import-phone');
    // 401: the sign-in screen's session check; 400: the refused file above.
    expect(problems.filter((p) => !p.includes('401') && !p.includes('400'))).toEqual([]);
    await page.context().close();
  });
});
