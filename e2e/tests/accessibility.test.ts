import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, browserAvailable, DESKTOP, launchBrowser, shot } from '../support/browser.js';
import { accountFor, apiLogin, demoAccounts } from '../support/demo.js';
import { startServer, type RunningServer } from '../support/server.js';

/**
 * Issue 15 defect 17 (WCAG 2.1 A/AA): axe-core, injected into each page, over every screen — the landing page, login,
 * registration, /demo, /trading, and every back-office page a superadmin opens — in the light and the dark theme. It
 * prints the per-page counts of violations by impact and fails on any critical or serious one. No rule is disabled.
 * One browser context per theme; the client's and the superadmin's sessions are signed in once over the API and
 * reused as cookies.
 */

/** axe-core's source, evaluated in the page (the server's CSP rightly refuses an inline script tag). */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];
type Who = 'visitor' | 'client' | 'staff';

interface Screen {
  name: string;
  path: string;
  who: Who;
  /** What shows once the screen has its content. */
  ready: string;
  /** Brings the screen into the state to check (e.g. opens the registration form). */
  open?: (page: Page) => Promise<void>;
}

interface AxeNode {
  target: string[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: AxeNode[];
}

describe.runIf(browserAvailable())('accessibility (axe-core, WCAG 2.1 A/AA)', () => {
  let server: RunningServer;
  let browser: Browser;
  let staffToken: string;
  let clientToken: string;
  let clientId: number;
  let accountId: number;
  const counts: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    const admin = accountFor(await demoAccounts(server), 'superadmin');
    staffToken = (await apiLogin(server, admin.email, admin.password)).token;
    const reg = await fetch(`${server.url}/api/auth/register-client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Алия Доступная', email: `a11y.${Date.now()}@e2e.local`, password: 'a11y-pass-1' }),
    });
    expect(reg.status).toBe(201);
    clientToken = ((await reg.json()) as { access_token: string }).access_token;
    const accounts = await fetch(`${server.url}/api/trading/admin/accounts?per_page=5`, {
      headers: { authorization: `Bearer ${staffToken}` },
    });
    const first = ((await accounts.json()) as { accounts: { id: number; client_id: number }[] }).accounts[0]!;
    accountId = first.id;
    clientId = first.client_id;
  });
  afterAll(async () => {
    if (counts.length > 0)
      console.log(`axe-core, violations by page (critical/serious/moderate/minor):\n${counts.join('\n')}`);
    await browser?.close();
    await server?.stop();
  });

  const screens = (): Screen[] => [
    { name: 'landing', path: '/', who: 'visitor', ready: '[data-testid="assets-table"]' },
    { name: 'login', path: '/login', who: 'visitor', ready: 'form' },
    {
      name: 'registration',
      path: '/',
      who: 'visitor',
      ready: '[data-testid="register-form"]',
      open: async (page) => {
        await page.locator('#home').getByRole('button', { name: 'Начать торговлю' }).click();
      },
    },
    { name: 'demo', path: '/demo', who: 'visitor', ready: '[data-testid="price-chart"][data-state="ready"]' },
    { name: 'trading', path: '/trading', who: 'client', ready: '[data-testid="price-chart"][data-state="ready"]' },
    { name: 'crm dashboard', path: '/crm/dashboard', who: 'staff', ready: 'main h1, main h2' },
    { name: 'crm clients', path: '/crm/clients', who: 'staff', ready: '[data-testid="client-row"]' },
    {
      name: 'crm client card',
      path: `/crm/clients/${clientId}`,
      who: 'staff',
      ready: '[data-testid="client-comments"]',
    },
    { name: 'crm calendar', path: '/crm/calendar', who: 'staff', ready: 'main h1, main h2' },
    { name: 'crm applications', path: '/crm/applications', who: 'staff', ready: 'main table' },
    { name: 'crm history', path: '/crm/history', who: 'staff', ready: 'main table tbody tr' },
    { name: 'crm staff', path: '/crm/staff', who: 'staff', ready: 'main table tbody tr' },
    { name: 'crm access', path: '/crm/access', who: 'staff', ready: 'main h1, main h2' },
    { name: 'crm audit', path: '/crm/audit', who: 'staff', ready: '[data-testid="audit-row"]' },
    { name: 'crm trading accounts', path: '/crm/trading-accounts', who: 'staff', ready: '[data-testid="account-row"]' },
    {
      name: 'crm trading account',
      path: `/crm/trading-accounts/${accountId}`,
      who: 'staff',
      ready: 'main h1, main h2, main h3',
    },
    { name: 'crm trading admin', path: '/crm/trading-management', who: 'staff', ready: 'main h1, main h2' },
    { name: 'crm integration', path: '/crm/integration', who: 'staff', ready: 'main h1, main h2' },
    { name: 'crm affiliates', path: '/crm/affiliates', who: 'staff', ready: 'main h1, main h2' },
  ];

  async function themedContext(theme: Theme): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    await context.addInitScript((scheme) => window.localStorage.setItem('theme', scheme), theme);
    return context;
  }

  async function signIn(context: BrowserContext, who: Who): Promise<void> {
    await context.clearCookies();
    if (who === 'visitor') return;
    const value = who === 'client' ? clientToken : staffToken;
    await context.addCookies([{ name: 'session', value, url: server.url, httpOnly: true, sameSite: 'Strict' }]);
  }

  /** Waits until the screen's content is there and no spinner is left (the loaded page is what axe checks). */
  async function settle(page: Page, screen: Screen): Promise<void> {
    await page.locator(screen.ready).first().waitFor({ timeout: 20_000 });
    await expect
      .poll(() => page.locator('.mantine-Loader:visible, [role="status"]:visible .mantine-Loader').count(), {
        timeout: 10_000,
      })
      .toBe(0);
    // The entrance transitions of Mantine (reduced motion: none) and the fonts have finished.
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
  }

  async function runAxe(page: Page): Promise<AxeViolation[]> {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    return page.evaluate(async () => {
      const axe = (
        window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: unknown }> } }
      ).axe;
      // axe's standard rule set (WCAG 2.0/2.1 A and AA and best practices), nothing turned off.
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations as AxeViolation[];
    });
  }

  for (const theme of THEMES) {
    it(`finds no critical or serious violation on any screen in the ${theme} theme`, async () => {
      const context = await themedContext(theme);
      const page = await context.newPage();
      const failures: string[] = [];
      const report: Record<string, AxeViolation[]> = {};
      let who: Who | null = null;
      for (const screen of screens()) {
        if (screen.who !== who) {
          await signIn(context, screen.who);
          who = screen.who;
        }
        await page.goto(`${server.url}${screen.path}`);
        await screen.open?.(page);
        await settle(page, screen);
        // The Mantine screens follow the chosen theme; the landing page (no UI kit) has one look.
        const scheme = await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
        if (screen.path !== '/') expect(scheme, screen.name).toBe(theme);
        const violations = await runAxe(page);
        report[screen.name] = violations;
        const by = (impact: string) =>
          violations.filter((v) => v.impact === impact).reduce((n, v) => n + v.nodes.length, 0);
        counts.push(
          `${theme.padEnd(5)} ${screen.name.padEnd(22)} ${by('critical')}/${by('serious')}/${by('moderate')}/${by('minor')}`,
        );
        for (const v of violations.filter((x) => x.impact === 'critical' || x.impact === 'serious')) {
          const sample = v.nodes
            .slice(0, 3)
            .map(
              (n) =>
                `    ${n.target.join(' ')} — ${n.html.slice(0, 140)}\n      ${(n.failureSummary ?? '').split('\n').slice(1, 2).join(' ')}`,
            )
            .join('\n');
          failures.push(`${theme} ${screen.name}: ${v.impact} ${v.id} ×${v.nodes.length} (${v.help})\n${sample}`);
        }
        if (screen.name === 'trading' || screen.name === 'crm clients' || screen.name === 'landing')
          await shot(page, `a11y-${screen.name.replace(/\s+/g, '-')}-${theme}`);
      }
      await context.close();
      // The full findings, for whoever fixes them.
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      fs.writeFileSync(path.join(ARTIFACTS, `a11y-${theme}.json`), JSON.stringify(report, null, 2));
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }
});
