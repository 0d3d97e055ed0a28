import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { loginThroughUi } from '../support/flows.js';
import { startServer, type RunningServer } from '../support/server.js';

const SUPERADMIN = { email: 'superadmin@demo.local', password: 'demo12345' };

/** §2.11 'Affiliates' tab: create a token, see it once, set its whitelist, delete it (D17). */
describe.runIf(browserAvailable())('affiliate tokens', () => {
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

  async function openTab(viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await loginThroughUi(page, server.url, SUPERADMIN.email, SUPERADMIN.password);
    await page.goto(`${server.url}/crm/integration`);
    await page.getByRole('tab', { name: 'Аффилиаты' }).click();
    await page.getByTestId('affiliate-tokens-tab').waitFor();
    return { page, problems };
  }

  const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

  const postLead = (token: string, email: string) =>
    fetch(`${server.url}/api/external/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'E2E Lead', email, phone: '+7 701 555 12 34', campaign_name: 'E2E campaign' }),
    });

  it('creates a token, shows it once with a copy button, sets its whitelist, and deletes it', async () => {
    const { page, problems } = await openTab(DESKTOP);
    const rows = page.getByTestId('token-row');
    await page.getByTestId('tokens-empty').waitFor();
    expect(await page.getByTestId('tokens-empty').textContent()).toBe('Токенов пока нет');

    // 'Create token' waits for a name.
    const submit = page.getByTestId('token-create-submit');
    expect(await submit.isDisabled()).toBe(true);
    await page.getByTestId('token-name').fill('E2E Partner');
    expect(await submit.isDisabled()).toBe(false);
    await submit.click();

    // The one-time dialog: the full token, its copy button and the warning.
    const dialog = page.getByTestId('token-created');
    await dialog.waitFor();
    const token = (await page.getByTestId('token-full').textContent())!.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await dialog.textContent()).toContain('показывается только один раз');
    await page.getByTestId('token-full-copy').click();
    await expect.poll(() => page.getByTestId('token-full-copy').textContent()).toBe('Токен скопирован');
    expect(await clipboard(page)).toBe(token);
    await shot(page, 'affiliate-tokens-created');
    await page.getByTestId('token-created-close').click();
    await page.getByRole('dialog', { name: 'Токен создан' }).waitFor({ state: 'detached' });

    // Afterwards the page shows the masked form only, and its copy button copies that form.
    const masked = `${token.slice(0, 8)}...${token.slice(-4)}`;
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getByTestId('token-masked').textContent()).toBe(masked);
    expect(await page.content()).not.toContain(token);
    await rows.first().getByTestId('token-masked-copy').click();
    await expect.poll(() => rows.first().getByTestId('token-masked-copy').getAttribute('data-copied')).toBe('true');
    expect(await clipboard(page)).toBe(masked);
    expect(await rows.first().textContent()).toContain('Не использовался');
    expect(await rows.first().textContent()).toContain('Доступ с любого IP');

    // The token works; the table then shows when it was last used.
    const created = await postLead(token, 'e2e.lead@example.com');
    expect(created.status).toBe(200);
    const lead = (await created.json()) as { status: string; client_id: number };
    expect(lead.status).toBe('created');
    await page.reload();
    await page.getByRole('tab', { name: 'Аффилиаты' }).click();
    await expect.poll(() => rows.first().textContent()).not.toContain('Не использовался');

    // The whitelist: a bad line is named before sending; two good ones are saved.
    await rows.first().getByTestId('token-whitelist-edit').click();
    const text = page.getByTestId('whitelist-text');
    await text.fill('10.0.0.0/8\nnot-an-ip');
    await expect.poll(() => page.getByTestId('whitelist-modal').textContent()).toContain('not-an-ip');
    expect(await page.getByTestId('whitelist-save').isDisabled()).toBe(true);
    await text.fill('10.0.0.0/8\n2001:db8::/32');
    await page.getByTestId('whitelist-save').click();
    await page.getByTestId('whitelist-modal').waitFor({ state: 'detached' });
    await expect.poll(() => rows.first().getByTestId('token-whitelist').textContent()).toContain('2 IP');
    expect(await rows.first().getByTestId('token-whitelist-edit').textContent()).toBe('Изменить');
    await shot(page, 'affiliate-tokens-desktop');

    // This test's machine is outside 10.0.0.0/8: the partner is now refused.
    const refused = await postLead(token, 'e2e.other@example.com');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toBe('Access denied');

    // The lead's card names its affiliate.
    await page.goto(`${server.url}/crm/clients/${lead.client_id}`);
    await page.getByTestId('client-source').waitFor();
    expect(await page.getByTestId('client-source-affiliate').textContent()).toBe('E2E Partner');
    await shot(page, 'affiliate-tokens-client-card');

    // Delete, after a confirmation.
    await page.goto(`${server.url}/crm/integration`);
    await page.getByRole('tab', { name: 'Аффилиаты' }).click();
    await rows.first().getByTestId('token-delete').click();
    const confirm = page.getByRole('dialog', { name: 'Удалить токен' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('Вы уверены, что хотите удалить этот токен?');
    await confirm.getByRole('button', { name: 'Удалить' }).click();
    await page.getByTestId('tokens-empty').waitFor();
    // The login screen's own session check answers 401 before signing in.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('is usable on a phone', async () => {
    const { page, problems } = await openTab(PHONE);
    await page.getByTestId('token-name').fill('Phone Partner');
    await page.getByTestId('token-create-submit').click();
    await page.getByTestId('token-created').waitFor();
    // The dialog has finished fading in.
    const dialog = page.getByRole('dialog', { name: 'Токен создан' });
    await expect.poll(() => dialog.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    await shot(page, 'affiliate-tokens-created-phone');
    await page.getByTestId('token-created-close').click();
    await page.getByRole('dialog', { name: 'Токен создан' }).waitFor({ state: 'detached' });
    await page.getByTestId('token-row').first().waitFor();
    // The page itself does not scroll sideways; the wide table scrolls inside its own container.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'affiliate-tokens-phone');
    // The login screen's own session check answers 401 before signing in.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });
});
