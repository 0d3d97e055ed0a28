import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { loginThroughUi } from '../support/flows.js';
import { startServer, type RunningServer } from '../support/server.js';

const BOSS = { email: 'boss@outbox.local', password: 'outbox-boss-pass' };
const CLIENT = { name: 'Дана Без Почты', email: `dana.${Date.now()}@example.com`, password: 'dana-pass-1' };

/**
 * Issue 22 §1: without SMTP_URL nothing leaves the server, and every flow can still be finished from 'Исходящая
 * почта' (/crm/outbox): the superadmin finds the kept verification e-mail, reads it as rendered, and its link,
 * opened by the client, verifies the address.
 */
describe.runIf(browserAvailable())('the outbox page without an SMTP server', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '0', ADMIN_EMAIL: BOSS.email, ADMIN_PASSWORD: BOSS.password });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists the kept verification e-mail with its rendered body, and its link verifies the address', async () => {
    // The client registers (the site's own request) and holds its session.
    const clientContext = await browser.newContext({ viewport: DESKTOP });
    const client = await clientContext.newPage();
    const clientProblems = watchConsole(client);
    await client.goto(`${server.url}/`);
    const registered = await client.evaluate(async (body) => {
      const res = await fetch('/api/auth/register-client', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return res.status;
    }, CLIENT);
    expect(registered).toBe(201);

    const staff = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    const staffProblems = watchConsole(staff);
    await loginThroughUi(staff, server.url, BOSS.email, BOSS.password);
    await staff.getByTestId('side-menu').locator('[data-path="/crm/outbox"]').click();
    await staff.waitForURL((url) => url.pathname === '/crm/outbox');
    await staff.getByTestId('outbox-kept-note').waitFor();
    const row = staff.getByTestId('outbox-row').filter({ hasText: CLIENT.email });
    await row.first().waitFor();
    expect(await row.first().getAttribute('data-template')).toBe('verify_email');
    expect(await row.first().getByTestId('outbox-status').getAttribute('data-status')).toBe('kept');
    await shot(staff, 'outbox-list-desktop');

    await row.first().getByTestId('outbox-open').click();
    const message = staff.getByTestId('outbox-message');
    await message.waitFor();
    // The HTML part first, in a sandboxed frame (no scripts); then the text part, with the link on its own line.
    const frame = message.getByTestId('outbox-html');
    expect(await frame.getAttribute('sandbox')).toBe('');
    const html = (await frame.getAttribute('srcdoc')) ?? '';
    await shot(staff, 'outbox-message-desktop');
    await message.getByRole('tab', { name: 'Текст' }).click();
    const text = (await message.getByTestId('outbox-text').textContent()) ?? '';
    expect(text).toContain(CLIENT.name);
    const link = /https?:\/\/\S+\/verify-email\?token=[\w-]+/.exec(text)?.[0];
    expect(link, text).toBeDefined();
    expect(html).toContain(new URL(link!).searchParams.get('token')!);

    // The client opens the link (the server's own address: PUBLIC_URL defaults to localhost with its port).
    const target = new URL(link!);
    await client.goto(`${server.url}${target.pathname}${target.search}`);
    await client.getByTestId('verify-done').waitFor();
    const me = await client.evaluate(async () => (await fetch('/api/auth/me')).json());
    expect(me.email_verified).toBe(true);

    // On a phone the outbox is still usable.
    await staff.keyboard.press('Escape');
    await staff.setViewportSize(PHONE);
    await staff.getByTestId('outbox-row').first().waitFor();
    await shot(staff, 'outbox-list-phone');

    // Both first loads were anonymous (the site, /login): the session check answers 401 by design; nothing else may
    // fail.
    expect(clientProblems.filter((p) => !p.includes('401'))).toEqual([]);
    expect(staffProblems.filter((p) => !p.includes('401'))).toEqual([]);
  });
});
