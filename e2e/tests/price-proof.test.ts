import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../apps/server/test/server-process.js';
import { ARTIFACTS, browserAvailable, DESKTOP, launchBrowser, PHONE, watchConsole } from '../support/browser.js';
import { startServer, type RunningServer } from '../support/server.js';

/**
 * Issue 30 in Chromium against the real server (a replayed price file in which EURUSD only rises, 5-second trades):
 * a visitor saves the latest signed head on '/verify'; a client's call settles; the client downloads its proof from
 * the contract audit panel and the period's proofs from the statement; '/verify' checks them in the browser with the
 * open verifier — every step green and 'passed' for the real file, the inclusion step red and 'failed' for the file
 * with one price changed — the very steps, marks and sentences the command line `brokerage-verify` prints.
 */

const DURATION = 5;
const RESOURCE_401 = /status of 401/;
const run = promisify(execFile);

function writeReplay(dir: string): string {
  const file = path.join(dir, 'ticks.csv');
  const lines = ['t_ms,symbol,price'];
  for (let i = 0; i <= (10 * 60 * 1000) / 250; i++) lines.push(`${i * 250},EURUSD,${(1.085 + i * 0.00001).toFixed(5)}`);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

interface TradeView {
  id: number;
  status: string;
}
interface Head {
  tree_size: number;
  time_ms: number;
  root: string;
  signature: string;
}
interface ProofDoc {
  trade: { id: number; close_price: string | null };
  ticks: { close: { price: string } | null };
  head: Head;
}

/** What the page shows for a file: each step's mark and the verifier's sentence, as the CLI prints them. */
type Line = string;
const MARK: Record<string, string> = { passed: '✓', failed: '✗', skipped: '–' };

/** `brokerage-verify` on a file, its exit status and its step lines (summaries and headings left out). */
async function cli(args: string[]): Promise<{ code: number; lines: Line[] }> {
  const cliPath = path.join(REPO_ROOT, 'packages/verifier/src/cli.ts');
  const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
  try {
    const { stdout } = await run(tsx, [cliPath, ...args], { cwd: REPO_ROOT });
    return { code: 0, lines: stepLines(stdout) };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number' || e.code === 2) throw new Error(`brokerage-verify: ${e.stderr ?? String(error)}`);
    return { code: e.code, lines: stepLines(e.stdout ?? '') };
  }
}

/** The CLI prints each step's line, then a blank line and the verdict's summary (a bundle adds headings). */
function stepLines(stdout: string): Line[] {
  const lines = stdout.split('\n');
  return lines.filter((line, i) => /^[✓✗–] /.test(line) && lines[i - 1] !== '');
}

async function pageLines(page: Page): Promise<Line[]> {
  return page.getByTestId('verify-step').evaluateAll(
    (els, marks) =>
      els.map((el) => {
        const state = el.getAttribute('data-state') ?? '';
        const text = el.querySelector('[data-testid="verify-step-text"]')?.textContent ?? '';
        return `${(marks as Record<string, string>)[state]} ${text}`;
      }),
    MARK,
  );
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's critical and serious findings on the page as it is (WCAG 2.1 A/AA, as accessibility.test.ts runs it). */
async function seriousA11yViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string | null }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.impact} ${v.id}`);
  });
}

/** Drops a file on the page's drop area the way a browser does: dragover, then drop with the file. */
async function dropFile(page: Page, testId: string, name: string, content: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ name, content }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], name, { type: 'application/json' }));
      return dt;
    },
    { name, content },
  );
  const zone = page.getByTestId(testId);
  await zone.dispatchEvent('dragover', { dataTransfer: transfer });
  await zone.dispatchEvent('drop', { dataTransfer: transfer });
}

describe.runIf(browserAvailable())('price proofs: download and check on /verify', () => {
  let server: RunningServer;
  let browser: Browser;
  let dir: string;
  let clientToken: string;
  let staffToken: string;
  let accountId: number;
  let trade: TradeView;
  let savedHeadFile: string;
  let proofFile: string;
  let tamperedFile: string;

  async function api<T>(token: string | null, url: string, init: { method?: string; body?: unknown } = {}) {
    const res = await fetch(`${server.url}${url}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async function clientContext(viewport = DESKTOP, lang: 'ru' | 'en' = 'en'): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport,
      acceptDownloads: true,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    await context.addCookies([
      { name: 'session', value: clientToken, url: server.url, httpOnly: true, sameSite: 'Strict' },
    ]);
    await context.addInitScript((l) => localStorage.setItem('lang', l), lang);
    return context;
  }

  async function shot(page: Page, name: string, fullPage = true) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage });
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'price-proof-e2e-'));
    server = await startServer({
      PRICE_SOURCE: `replay:${writeReplay(dir)}`,
      TRADE_DURATIONS: `${DURATION},300`,
      SETTLEMENT_INTERVAL_MS: '250',
    });
    browser = await launchBrowser();
    const demo = await api<{ accounts: { email: string; password: string; role: string }[] }>(
      null,
      '/api/auth/demo-accounts',
    );
    const admin = demo.body.accounts.find((a) => a.role === 'superadmin')!;
    staffToken = (
      await api<{ access_token: string }>(null, '/api/auth/login', {
        method: 'POST',
        body: { email: admin.email, password: admin.password },
      })
    ).body.access_token;
    const email = `proof.${Date.now()}@e2e.local`;
    const registered = await api<{ access_token: string }>(null, '/api/auth/register-client', {
      method: 'POST',
      body: { name: 'Proof Trader', email, password: 'secret-123' },
    });
    expect(registered.status).toBe(201);
    clientToken = registered.body.access_token;
    const list = await api<{ accounts: { id: number; client_email: string }[] }>(
      staffToken,
      `/api/trading/admin/accounts?search=${encodeURIComponent(email)}`,
    );
    const account = list.body.accounts.find((a) => a.client_email === email)!;
    accountId = account.id;
    const credit = await api(staffToken, `/api/trading/admin/accounts/${account.id}/balance`, {
      method: 'POST',
      body: { action: 'add', amount: 100, reason: 'e2e deposit' },
    });
    expect(credit.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a visitor sees the key and the latest head on /verify and saves the head as a file', async () => {
    // The log's first head comes with the first prices.
    await expect
      .poll(async () => (await api<Head>(null, '/api/price-log/heads/latest')).status, { timeout: 20_000 })
      .toBe(200);
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/verify`);
    await page.getByTestId('verify-empty').waitFor();
    const key = await api<{ public_key: string }>(null, '/api/price-log/key');
    await expect.poll(() => page.getByTestId('price-log-key').textContent()).toBe(key.body.public_key);
    await page.getByTestId('price-log-head').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('price-log-save-head').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^price-log-head-\d+\.json$/);
    savedHeadFile = path.join(dir, download.suggestedFilename());
    await download.saveAs(savedHeadFile);
    const head = JSON.parse(fs.readFileSync(savedHeadFile, 'utf8')) as Head;
    // The head as published: the server's own list has it.
    const published = await api<{ heads: Head[] }>(
      null,
      `/api/price-log/heads?from=${head.tree_size}&to=${head.tree_size}`,
    );
    expect(published.body.heads).toEqual([expect.objectContaining({ ...head })]);
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  it('a client’s call settles, and its contract audit offers the proof as a download', async () => {
    const placed = await api<{ trade: TradeView }>(clientToken, '/api/trading/place-trade', {
      method: 'POST',
      body: { asset: 'EURUSD', direction: 'call', amount: 10, duration: DURATION },
    });
    expect(placed.status).toBe(201);
    await expect
      .poll(
        async () => {
          const res = await api<{ items: TradeView[] }>(clientToken, '/api/trading/trades?status=closed');
          trade = res.body.items.find((x) => x.id === placed.body.trade.id)!;
          return trade?.status;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe('won');

    const context = await clientContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/trading`);
    await page.getByTestId('tab-closed').click();
    await page.locator(`[data-testid="closed-trade"][data-trade-id="${trade.id}"]`).click();
    const panel = page.getByTestId('trade-audit-panel');
    const button = panel.getByTestId('audit-proof-download');
    await button.waitFor();
    expect(await button.textContent()).toBe('Download proof');
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toBe(`trade-${trade.id}-proof.json`);
    proofFile = path.join(dir, download.suggestedFilename());
    await download.saveAs(proofFile);
    const proof = JSON.parse(fs.readFileSync(proofFile, 'utf8')) as ProofDoc;
    expect(proof.trade.id).toBe(trade.id);
    expect(proof.ticks.close?.price).toBe(proof.trade.close_price);
    // The file is the server's proof as the API serves it.
    expect((await api<ProofDoc>(clientToken, `/api/trading/trades/${trade.id}/proof`)).body).toEqual(proof);
    expect(problems).toEqual([]);
    await context.close();

    // The same trade with one price changed: the broker "moving the exit price" after the fact.
    const tampered = structuredClone(proof);
    const close = tampered.ticks.close!;
    close.price = close.price.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    tamperedFile = path.join(dir, `trade-${trade.id}-proof-edited.json`);
    fs.writeFileSync(tamperedFile, JSON.stringify(tampered, null, 2));
  });

  it('/verify passes the real proof with the saved head: every step green, as the CLI says', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addInitScript(() => localStorage.setItem('lang', 'en'));
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/verify`);
    // The saved head by the keyboard's way (the file picker), the proof dropped on the page.
    await page.getByTestId('verify-head-drop').locator('input[type="file"]').setInputFiles(savedHeadFile);
    await page.getByTestId('verify-head-name').waitFor();
    await dropFile(page, 'verify-drop', path.basename(proofFile), fs.readFileSync(proofFile, 'utf8'));
    const verdict = page.getByTestId('verify-verdict');
    await verdict.waitFor({ timeout: 20_000 });
    expect(await verdict.getAttribute('data-verdict')).toBe('passed');
    expect(await verdict.textContent()).toContain('The proof holds');
    const states = await page
      .getByTestId('verify-step')
      .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-step')}:${el.getAttribute('data-state')}`));
    expect(states).toEqual(
      ['format', 'signature', 'inclusion', 'ticks', 'strike', 'close', 'result', 'head_time', 'consistency'].map(
        (s) => `${s}:passed`,
      ),
    );
    expect(await page.getByTestId('verify-trade').getAttribute('data-trade-id')).toBe(String(trade.id));

    const fromCli = await cli([proofFile, '--head', savedHeadFile, '--server', server.url, '--lang', 'en']);
    expect(fromCli.code).toBe(0);
    expect(fromCli.lines).toHaveLength(9);
    expect(await pageLines(page)).toEqual(fromCli.lines);
    await shot(page, 'verify-passed-desktop');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  it('/verify fails the file with one price changed: the inclusion step red, as the CLI says (phone, Russian)', async () => {
    const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
    await context.addInitScript(() => localStorage.setItem('lang', 'ru'));
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/verify`);
    await page.getByTestId('verify-drop').locator('input[type="file"]').setInputFiles(tamperedFile);
    const verdict = page.getByTestId('verify-verdict');
    await verdict.waitFor({ timeout: 20_000 });
    expect(await verdict.getAttribute('data-verdict')).toBe('failed');
    expect(await verdict.textContent()).toContain('Доказательство не подтверждено');
    const inclusion = page.locator('[data-testid="verify-step"][data-step="inclusion"]');
    expect(await inclusion.getAttribute('data-state')).toBe('failed');
    expect(await inclusion.getByTestId('verify-step-state').textContent()).toBe('не пройдено');
    // The signature of the head is untouched: only the changed price is caught.
    expect(await page.locator('[data-testid="verify-step"][data-step="signature"]').getAttribute('data-state')).toBe(
      'passed',
    );
    // Nothing to compare with, no saved head: grey.
    expect(await page.locator('[data-testid="verify-step"][data-step="consistency"]').getAttribute('data-state')).toBe(
      'skipped',
    );
    const fromCli = await cli([tamperedFile, '--lang', 'ru']);
    expect(fromCli.code).toBe(1);
    expect(fromCli.lines).toHaveLength(9);
    expect(fromCli.lines.filter((line) => line.startsWith('✗'))).not.toEqual([]);
    expect(await pageLines(page)).toEqual(fromCli.lines);
    // Nothing runs off the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'verify-failed-phone');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // What the phone shows around the red step (the full page is long).
    await inclusion.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, -240));
    await shot(page, 'verify-failed-phone-verdict', false);
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  it('/verify says so when a file is not JSON, or a saved head is not a head', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addInitScript(() => localStorage.setItem('lang', 'en'));
    const page = await context.newPage();
    await page.goto(`${server.url}/verify`);
    await page
      .getByTestId('verify-drop')
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'notes.json',
        mimeType: 'application/json',
        buffer: Buffer.from('{"format": "brokerage-trade-proof", '),
      });
    const error = page.getByTestId('verify-result').getByTestId('verify-file-error');
    await error.waitFor();
    expect(await error.getAttribute('data-error')).toBe('unreadable');
    expect(await error.textContent()).toContain('The file “notes.json” cannot be read as JSON');
    expect(await page.getByTestId('verify-verdict').count()).toBe(0);
    // A JSON file that holds no head, offered as the saved head.
    await page
      .getByTestId('verify-head-drop')
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'key.json',
        mimeType: 'application/json',
        buffer: Buffer.from('{"algorithm": "Ed25519"}'),
      });
    const headError = page.getByTestId('verify-head-drop').getByTestId('verify-file-error');
    await headError.waitFor();
    expect(await headError.getAttribute('data-error')).toBe('not_head');
    expect(await headError.textContent()).toContain('The file “key.json” holds no signed log head');
    await context.close();
  });

  it('the statement downloads the period’s proofs as one file, and /verify passes it', async () => {
    const context = await clientContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/trading`);
    await page.getByTestId('view-statement').click();
    await page.getByTestId('statement-view').waitFor();
    const button = page.getByTestId('statement-download-proofs');
    // Without a closed period the proofs cannot be asked for.
    expect(await button.isDisabled()).toBe(true);
    const today = await page.evaluate(() => new Date().toLocaleDateString('sv'));
    await page.getByTestId('statement-from').fill(today);
    await page.getByTestId('statement-to').fill(today);
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^proofs-.*\.json$/);
    const bundleFile = path.join(dir, 'bundle.json');
    await download.saveAs(bundleFile);
    const bundle = JSON.parse(fs.readFileSync(bundleFile, 'utf8')) as { format: string; proofs: ProofDoc[] };
    expect(bundle.format).toBe('brokerage-trade-proofs');
    expect(bundle.proofs.map((p) => p.trade.id)).toEqual([trade.id]);

    await page.goto(`${server.url}/verify`);
    await dropFile(page, 'verify-drop', 'bundle.json', fs.readFileSync(bundleFile, 'utf8'));
    const verdict = page.getByTestId('verify-verdict');
    await verdict.waitFor({ timeout: 20_000 });
    expect(await verdict.getAttribute('data-verdict')).toBe('passed');
    expect(await verdict.textContent()).toContain('Trades in the file: 1, passed every check: 1.');
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  it('the trade history downloads the proofs of the trades on its page', async () => {
    const context = await clientContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/trading`);
    await page.getByTestId('view-history').click();
    await page.getByTestId('history-view').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('history-download-proofs').click(),
    ]);
    const file = path.join(dir, 'history-bundle.json');
    await download.saveAs(file);
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8')) as { format: string; proofs: ProofDoc[] };
    expect(bundle.format).toBe('brokerage-trade-proofs');
    expect(bundle.proofs.map((p) => p.trade.id)).toEqual([trade.id]);
    expect(problems.filter((p) => !RESOURCE_401.test(p))).toEqual([]);
    await context.close();
  });

  it('a refused download shows the server’s detail: 409 in the audit panel, 422 in the statement', async () => {
    // The refusals are the server's to make (a trade not yet covered by a head, a period of over 1,000 trades); here
    // the browser is answered them, to see what the client is shown.
    const context = await clientContext(DESKTOP, 'ru');
    const page = await context.newPage();
    const refuse = (status: number, detail: string) => (route: Route) =>
      route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ detail, code: 'refused' }) });
    await page.route('**/api/trading/trades/*/proof', refuse(409, 'Сделка еще не покрыта опубликованной вершиной.'));
    await page.route(
      '**/api/trading/proofs?**',
      refuse(422, 'Слишком много сделок за период: выберите период короче.'),
    );
    await page.goto(`${server.url}/trading`);
    await page.getByTestId('tab-closed').click();
    await page.locator(`[data-testid="closed-trade"][data-trade-id="${trade.id}"]`).click();
    const panel = page.getByTestId('trade-audit-panel');
    await panel.getByTestId('audit-proof-download').click();
    await expect
      .poll(() => panel.getByTestId('audit-proof-error').textContent())
      .toBe('Сделка еще не покрыта опубликованной вершиной.');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });

    await page.getByTestId('view-statement').click();
    const today = await page.evaluate(() => new Date().toLocaleDateString('sv'));
    await page.getByTestId('statement-from').fill(today);
    await page.getByTestId('statement-to').fill(today);
    await page.getByTestId('statement-download-proofs').click();
    await expect
      .poll(() => page.getByTestId('statement-download-error').textContent())
      .toBe('Слишком много сделок за период: выберите период короче.');
    await context.close();
  });

  it('staff download the same proof from the account’s contract audit', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    await context.addCookies([
      { name: 'session', value: staffToken, url: server.url, httpOnly: true, sameSite: 'Strict' },
    ]);
    await context.addInitScript(() => localStorage.setItem('lang', 'ru'));
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/crm/trading-accounts/${accountId}`);
    await page.locator(`[data-testid="history-row"][data-trade-id="${trade.id}"]`).click();
    const button = page.getByTestId('trade-audit-panel').getByTestId('audit-proof-download');
    await button.waitFor();
    expect(await button.textContent()).toBe('Скачать доказательство');
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const file = path.join(dir, 'staff-proof.json');
    await download.saveAs(file);
    // The same document as the client's: the proof does not depend on who asks.
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(JSON.parse(fs.readFileSync(proofFile, 'utf8')));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the landing page explains the scheme, shows the key and leads to /verify', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/#transparency`);
    const section = page.getByTestId('transparency');
    await section.waitFor();
    const key = await api<{ public_key: string }>(null, '/api/price-log/key');
    await expect.poll(() => section.getByTestId('transparency-key').textContent()).toBe(key.body.public_key);
    expect(await section.textContent()).toContain('npx brokerage-verify proof.json');
    // The risk warning leads here.
    expect(await page.getByTestId('risk-warning').getByTestId('risk-proof-link').getAttribute('href')).toBe(
      '/#transparency',
    );
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'transparency-desktop', false);
    await section.getByTestId('transparency-verify').click();
    await page.getByTestId('verify-page').waitFor();
    await context.close();
  });
});
