import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AffiliateStats } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../apps/server/src/platform/db/index.js';
import { browserAvailable, launchBrowser, PHONE, shot } from '../support/browser.js';
import { accountFor, apiLogin, demoAccounts, signedInPage, type DemoAccount } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A partner's endpoint on 127.0.0.1: records each request and answers 200. */
async function startReceiver(): Promise<{
  url: string;
  hits: Hit[];
  next: () => Promise<Hit>;
  close: () => Promise<void>;
}> {
  const hits: Hit[] = [];
  const waiters: ((hit: Hit) => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const hit = { path: req.url ?? '/', headers: req.headers, body };
      hits.push(hit);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      waiters.splice(0).forEach((w) => w(hit));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The affiliates page (back-office.md §2.13; D17) and the integration tabs of §2.11 in Chromium. The affiliates are
 * seeded straight into the embedded database between two starts of the server (affiliates come with their first token,
 * which another screen creates): two affiliates, the first with demo leads that have deposits.
 */
describe.runIf(browserAvailable())('affiliates page', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let alpha = 0;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-e2e-affiliates-'));
  const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_WEBHOOKS: '1' };

  beforeAll(async () => {
    receiver = await startReceiver();
    // First start: migrations and the demo data set.
    const first = await startServer(env);
    await first.stop();
    const database = await openDb({ dataDir });
    try {
      const db = database.db;
      const [a, b] = await db
        .insertInto('affiliates')
        .values([
          {
            name: 'Alpha Leads',
            contact_person: 'Aruzhan Bekova',
            contact_email: 'aruzhan@alpha.test',
            status: 'active',
          },
          { name: 'Beta Partners', contact_person: 'Ivan Petrov', contact_email: 'ivan@beta.test', status: 'paused' },
        ])
        .returning('id')
        .execute();
      alpha = Number(a!.id);
      await db
        .insertInto('affiliate_tokens')
        .values({
          affiliate_id: alpha,
          name: 'Alpha Leads',
          token_hash: 'e2e-alpha-token-hash',
          token_prefix: 'AlPhA123',
          token_suffix: 'wxyz',
        })
        .execute();
      // Three demo leads with deposits and three without become Alpha's, under two campaigns.
      const withDeposits = await sql<{ id: number }>`
        select distinct client_id as id from deposits where deleted_at is null order by client_id limit 3`.execute(db);
      const without = await sql<{ id: number }>`
        select id from clients c where not exists (select 1 from deposits d where d.client_id = c.id)
        order by id limit 3`.execute(db);
      const ids = [...withDeposits.rows, ...without.rows].map((r) => Number(r.id));
      expect(ids.length).toBe(6);
      for (const [i, id] of ids.entries()) {
        await db
          .updateTable('clients')
          .set({ affiliate_id: alpha, campaign: i % 2 === 0 ? 'Spring KZ' : 'Search Almaty' })
          .where('id', '=', id)
          .execute();
      }
      expect(Number(b!.id)).toBeGreaterThan(alpha);
    } finally {
      await database.close();
    }
    server = await startServer(env);
    browser = await launchBrowser();
    accounts = await demoAccounts(server);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const superadmin = () => accountFor(accounts, 'superadmin');
  async function api<T>(urlPath: string, init: RequestInit = {}): Promise<T> {
    const { token } = await apiLogin(server, superadmin().email, superadmin().password);
    const res = await fetch(`${server.url}${urlPath}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as T;
  }
  const row = (page: Page, name: string) => page.locator('[data-testid="affiliate-row"]', { hasText: name });

  it('cards, table, the masked token copied, the Stats modal; edit shows the secret once; postbacks arrive signed', async () => {
    const { page, problems } = await signedInPage(browser, server, superadmin());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.getByTestId('side-menu').locator('[data-path="/crm/affiliates"]').click();
    await page.waitForURL((url) => url.pathname === '/crm/affiliates');
    await row(page, 'Alpha Leads').waitFor();
    expect(await page.getByRole('heading', { name: 'Аффилиаты' }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('affiliates-card-total-value').textContent()).toBe('2');
    expect(await page.getByTestId('affiliates-card-active-value').textContent()).toBe('1');
    expect(await page.getByTestId('affiliates-card-paused-value').textContent()).toBe('1');
    expect(await page.getByTestId('affiliates-card-clients-value').textContent()).toBe('6');
    const alphaRow = row(page, 'Alpha Leads');
    expect(await alphaRow.getByTestId('affiliate-clients').textContent()).toBe('6');
    expect(await alphaRow.getByTestId('affiliate-campaigns').textContent()).toBe('2');
    expect(await alphaRow.getByTestId('affiliate-status').textContent()).toBe('Активен');
    expect(await alphaRow.getByTestId('affiliate-token').textContent()).toBe('AlPhA123...');
    expect(await row(page, 'Beta Partners').getByTestId('affiliate-status').textContent()).toBe('На паузе');
    await alphaRow.getByTestId('affiliate-token-copy').click();
    await page.getByText('API токен скопирован в буфер обмена').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('AlPhA123...');
    await shot(page, 'affiliates-desktop');

    // Edit: a webhook URL creates the signing secret, shown once with the warning.
    await alphaRow.getByTestId('affiliate-edit').click();
    const form = page.getByTestId('edit-affiliate-form');
    await form.getByLabel('Webhook URL').fill(`${receiver.url}/postbacks`);
    await form.getByLabel('Описание').fill('Лид-формы и поиск, Казахстан');
    await page.getByTestId('affiliate-save').click();
    await page.getByTestId('affiliate-secret-panel').waitFor();
    expect(await page.getByTestId('affiliate-secret-panel').textContent()).toContain('показывается один раз');
    const secret = (await page.getByTestId('affiliate-secret-value').textContent())!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByTestId('affiliate-secret-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByTestId('affiliate-secret-done').click();
    await page.getByTestId('affiliate-secret-panel').waitFor({ state: 'detached' });
    // Never again: not in the list, not when the dialog opens again.
    const listed = await api<unknown[]>('/api/affiliates');
    expect(JSON.stringify(listed)).not.toContain(secret);
    await alphaRow.getByTestId('affiliate-edit').click();
    await page.getByTestId('edit-affiliate-form').waitFor();
    expect(await page.getByTestId('affiliate-secret-panel').count()).toBe(0);
    expect(await page.getByTestId('edit-affiliate-form').textContent()).not.toContain(secret);
    expect(await page.getByTestId('edit-affiliate-form').getByLabel('Webhook URL').inputValue()).toBe(
      `${receiver.url}/postbacks`,
    );
    await page.keyboard.press('Escape');
    await page.getByTestId('edit-affiliate-form').waitFor({ state: 'detached' });

    // A status change of one of its leads reaches the partner, signed with that secret, from the server's worker.
    const lead = (await api<{ items: { id: number; status: string }[] }>('/api/clients?affiliate=Alpha%20Leads'))
      .items[0]!;
    const arrived = receiver.next();
    await api(`/api/clients/${lead.id}`, {
      method: 'PUT',
      body: JSON.stringify({ status: lead.status === 'in_progress' ? 'potential' : 'in_progress' }),
    });
    const hit = await arrived;
    const expected = createHmac('sha256', secret)
      .update(`${String(hit.headers['x-timestamp'])}.${hit.body}`)
      .digest('hex');
    expect(hit.headers['x-signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(hit.body)).toMatchObject({ event: 'STATUS', client_id: lead.id });

    // The Stats modal: the server's figures, the campaign chips, the chart and the delivery.
    const stats = await api<AffiliateStats>(`/api/affiliates/${alpha}/stats`);
    expect(stats.total_clients).toBe(6);
    expect(stats.ftd_clients).toBeGreaterThan(0);
    await expect
      .poll(async () => (await api<AffiliateStats>(`/api/affiliates/${alpha}/stats`)).deliveries[0]?.status)
      .toBe('delivered');
    await alphaRow.getByTestId('affiliate-stats').click();
    await page.getByTestId('affiliate-stats-body').waitFor();
    expect(await page.getByRole('dialog').getByText('Статистика: Alpha Leads').count()).toBe(1);
    expect(await page.getByTestId('stats-total-clients-value').textContent()).toBe('6');
    expect(await page.getByTestId('stats-ftd-clients-value').textContent()).toBe(String(stats.ftd_clients));
    expect(await page.getByTestId('stats-conversion-value').textContent()).toBe(`${stats.conversion_rate.toFixed(1)}%`);
    expect(await page.getByTestId('stats-total-deposits-value').textContent()).toMatch(/^\$[\d,\s]+\.\d{2}$/);
    expect(await page.getByTestId('affiliate-campaign-chips').textContent()).toBe('Search AlmatySpring KZ');
    await page.getByTestId('affiliate-stats-chart').waitFor();
    const delivery = page.getByTestId('affiliate-delivery').first();
    expect(await delivery.getAttribute('data-status')).toBe('delivered');
    expect(await delivery.textContent()).toContain('Смена статуса');
    expect(await delivery.textContent()).toContain('200');
    await shot(page, 'affiliates-stats-desktop');
    await page.getByTestId('affiliate-stats-close').click();
    await page.getByTestId('affiliate-stats-body').waitFor({ state: 'detached' });

    // Rotate, behind its confirmation: a new secret, shown once.
    await alphaRow.getByTestId('affiliate-edit').click();
    await page.getByTestId('affiliate-rotate').click();
    await page.getByTestId('affiliate-rotate-confirm').waitFor();
    await page.getByTestId('affiliate-rotate-submit').click();
    await page.getByTestId('affiliate-secret-panel').waitFor();
    const rotated = (await page.getByTestId('affiliate-secret-value').textContent())!;
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(secret);
    await page.getByTestId('affiliate-secret-done').click();

    // Delete, behind the spec's confirmation: the affiliate leaves the list and the cards.
    await row(page, 'Beta Partners').getByTestId('affiliate-delete').click();
    await page.getByText('Вы уверены, что хотите удалить аффилиата "Beta Partners"?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Удалить', exact: true }).click();
    await row(page, 'Beta Partners').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('affiliates-card-total-value').textContent()).toBe('1');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('the integration tabs: test connection through the server; the lead-ads URL of this deployment', async () => {
    const { page, problems } = await signedInPage(browser, server, superadmin());
    await page.goto(`${server.url}/crm/integration`);
    await page.getByRole('tab', { name: 'API интеграция' }).click();
    await page.getByTestId('api-test').click();
    expect(await page.getByTestId('api-test-missing').textContent()).toBe('API ключ и URL обязательны');
    await page.getByTestId('api-key').fill('sk_test_partner_42');
    await page.getByTestId('api-url').fill(`${receiver.url}/partner/api`);
    const arrived = receiver.next();
    await page.getByTestId('api-test').click();
    const hit = await arrived;
    expect(hit.headers.authorization).toBe('Bearer sk_test_partner_42');
    await page.getByTestId('api-test-result').waitFor();
    expect(await page.getByTestId('api-test-result').getAttribute('data-ok')).toBe('true');
    expect(await page.getByTestId('api-test-result').textContent()).toMatch(
      /Соединение установлено: HTTP 200 за \d+ мс/,
    );
    expect(await page.getByTestId('api-supported').textContent()).toContain('Пагинация');
    await shot(page, 'affiliates-api-tab-desktop');

    await page.getByRole('tab', { name: 'Лид-формы' }).click();
    const url = `${server.url}/api/external/lead-ads?token=ВАШ_ТОКЕН`;
    expect(await page.getByTestId('lead-ads-url-value').textContent()).toBe(url);
    expect(await page.getByTestId('lead-ads-curl-value').textContent()).toContain(`curl -X POST '${url}'`);
    expect(await page.getByTestId('lead-ads-fields').textContent()).toContain('campaign_name');
    await shot(page, 'affiliates-lead-ads-desktop');

    await page.getByRole('tab', { name: 'Поисковая реклама' }).click();
    expect(await page.getByTestId('search-ads-url-value').textContent()).toBe(
      `${server.url}/api/external/search-ads?token=ВАШ_ТОКЕН`,
    );
    expect(await page.getByTestId('search-ads-goals').textContent()).toContain('ADD_TO_CART');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('phone layout: cards two by two, the table scrolls sideways', async () => {
    const { page, problems } = await signedInPage(browser, server, superadmin(), { viewport: PHONE });
    await page.goto(`${server.url}/crm/affiliates`);
    await row(page, 'Alpha Leads').waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'affiliates-phone');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });
});
