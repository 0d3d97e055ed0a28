import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../apps/server/src/platform/db/index.js';
import { browserAvailable, launchBrowser, PHONE, shot } from '../support/browser.js';
import { signedInPage } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

const SUPERADMIN = { email: 'superadmin@demo.local', password: 'demo12345' };

/**
 * The tamper-evident audit log (issue 13 item 5) on /crm/audit: the page says the chain is verified up to its newest
 * row; after a row is edited in SQL with the triggers off (the server stopped, as the embedded database requires), the
 * page names that row.
 */
describe.runIf(browserAvailable())('audit chain on the audit page', () => {
  let server: RunningServer | undefined;
  let browser: Browser;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-chain-e2e-'));

  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '1', DATA_DIR: dataDir });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the chain verified, then names a row edited by hand', async () => {
    const { page, problems } = await signedInPage(browser, server!, SUPERADMIN);
    await page.goto(`${server!.url}/crm/audit`);
    const banner = page.getByTestId('audit-chain');
    await banner.getByText(/Цепочка проверена до записи \d+/).waitFor();
    const verified = Number(/до записи (\d+)/.exec((await banner.textContent()) ?? '')![1]);
    expect(verified).toBeGreaterThan(0);
    await shot(page, 'audit-chain-verified');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]); // the sign-in page's own /me probe

    const phone = await signedInPage(browser, server!, SUPERADMIN, { viewport: PHONE });
    await phone.page.goto(`${server!.url}/crm/audit`);
    await phone.page
      .getByTestId('audit-chain')
      .getByText(/Цепочка проверена/)
      .waitFor();
    await shot(phone.page, 'audit-chain-verified-phone');
    await phone.page.context().close();
    await page.context().close();

    // Stop the server, edit the second row of the chain with the triggers off, start it again on the same data.
    await server!.stop();
    server = undefined;
    const handle = await openDb({ dataDir });
    let editedId = '';
    try {
      await handle.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        const row = await sql<{ id: string }>`
          update audit_log set actor_name = 'Someone Else'
          where seq = 2 returning id::text as id`.execute(trx);
        editedId = row.rows[0]!.id;
      });
    } finally {
      await handle.close();
    }
    server = await startServer({ DEMO_DATA: '1', DATA_DIR: dataDir });

    const again = await signedInPage(browser, server, SUPERADMIN);
    await again.page.goto(`${server.url}/crm/audit`);
    const broken = again.page.getByTestId('audit-chain');
    await broken.getByText('Журнал изменён в обход системы').waitFor();
    const text = (await broken.textContent()) ?? '';
    expect(text).toContain(`#${editedId}`);
    expect(text).toContain('её содержимое изменено');
    expect(text).toContain('до записи 1;');
    await shot(again.page, 'audit-chain-broken');
    expect(again.problems.filter((p) => !p.includes('401'))).toEqual([]);
  });
});
