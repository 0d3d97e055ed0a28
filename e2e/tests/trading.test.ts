import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request } from 'playwright-core';
import { ARTIFACTS, browserAvailable, DESKTOP, launchBrowser, PHONE, shot, watchConsole } from '../support/browser.js';
import { startServer, type RunningServer } from '../support/server.js';

/**
 * The client trading screen (client-platform.md §2.4–§2.7, §2.10; D1, D2, D10, D11, D16) in Chromium against the real
 * server on a replayed price file in which EURUSD only rises, with 15-second trades. One journey: a visitor switches
 * the landing page to en and kk and back, registers in the modal, lands on /trading, places a call, watches the
 * countdown, and sees the server's result (won, as the replayed prices say) as a toast and in the balance; a trade
 * above the account limit is refused; a withdrawal holds its amount; a message from the back office arrives live.
 * Then: staff see the screen with their bell, a kk visitor keeps kk, /demo trades without an account and saves
 * nothing. Screenshots of each screen in desktop and phone sizes go to e2e/artifacts.
 */

const DURATION = 15;
/** EURUSD rises by 0.00001 every 250 ms for 12 minutes; every price of the file, to check the trade's prices against. */
function writeReplay(): { file: string; prices: Set<string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trading-replay-'));
  const file = path.join(dir, 'ticks.csv');
  const lines = ['t_ms,symbol,price'];
  const prices = new Set<string>();
  for (let i = 0; i <= (12 * 60 * 1000) / 250; i++) {
    const price = (1.085 + i * 0.00001).toFixed(5);
    prices.add(price);
    lines.push(`${i * 250},EURUSD,${price}`);
    // A second asset moves too, so the selector shows more than one live price.
    if (i % 4 === 0) lines.push(`${i * 250},BTCUSD,${(67500 + (i % 40) * 3.5).toFixed(2)}`);
  }
  fs.writeFileSync(file, lines.join('\n'));
  return { file, prices };
}

interface AccountRow {
  id: number;
  client_id: number;
  client_email: string;
}

describe.runIf(browserAvailable())('client trading screen', () => {
  let server: RunningServer;
  let browser: Browser;
  let replay: { file: string; prices: Set<string> };
  let staffToken: string;
  let clientToken: string;
  let account: AccountRow;
  const email = `trader.${Date.now()}@e2e.local`;
  /** Every script the client's browser fetched during the journey, and its money-moving calls with their headers. */
  const scripts: string[] = [];
  const moneyCalls: { path: string; key: string | undefined }[] = [];

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

  beforeAll(async () => {
    replay = writeReplay();
    server = await startServer({
      PRICE_SOURCE: `replay:${replay.file}`,
      TRADE_DURATIONS: `${DURATION},300`,
      SETTLEMENT_INTERVAL_MS: '250',
    });
    browser = await launchBrowser();
    const demo = await api<{ accounts: { email: string; password: string; role: string }[] }>(
      null,
      '/api/auth/demo-accounts',
    );
    const admin = demo.body.accounts.find((a) => a.role === 'superadmin')!;
    const login = await api<{ access_token: string }>(null, '/api/auth/login', {
      method: 'POST',
      body: { email: admin.email, password: admin.password },
    });
    staffToken = login.body.access_token;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (replay) fs.rmSync(path.dirname(replay.file), { recursive: true, force: true });
  });

  async function clientContext(viewport = DESKTOP): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    await context.addCookies([
      { name: 'session', value: clientToken, url: server.url, httpOnly: true, sameSite: 'Strict' },
    ]);
    return context;
  }

  const toast = (page: Page, text: string) =>
    page.locator('.mantine-Notification-root', { hasText: text }).first().waitFor({ timeout: 30_000 });

  async function chooseDuration(page: Page, label: string) {
    await page.getByTestId('trade-duration').click();
    await page.getByRole('option', { name: label, exact: true }).click();
  }

  async function balanceText(page: Page): Promise<string> {
    return (await page.getByTestId('balance').textContent()) ?? '';
  }

  /** The screen as it stands in desktop size, then the same screen at phone size (then back to desktop). */
  async function shotBoth(p: Page, name: string) {
    const size = p.viewportSize() ?? DESKTOP;
    await shot(p, `${name}-desktop`);
    await p.setViewportSize(PHONE);
    await nextFrames(p);
    await shot(p, `${name}-phone`);
    await p.setViewportSize(size);
    await nextFrames(p);
  }
  const nextFrames = (p: Page) =>
    p.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

  const heroTitle = (p: Page) => p.locator('#home h1').textContent();

  let page: Page;
  let problems: string[];

  it('a visitor switches the landing page to en, kk and back to ru, registers in the modal and lands on /trading', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    problems = watchConsole(page);
    page.on('response', (res) => {
      if (new URL(res.url()).pathname.endsWith('.js')) scripts.push(path.basename(new URL(res.url()).pathname));
    });
    page.on('request', (req: Request) => {
      const { pathname } = new URL(req.url());
      if (req.method() === 'POST' && ['/api/trading/place-trade', '/api/withdraw-requests'].includes(pathname))
        moneyCalls.push({ path: pathname, key: req.headers()['idempotency-key'] });
    });
    await page.goto(`${server.url}/`);
    await page.getByTestId('assets-table').waitFor();
    expect(await heroTitle(page)).toBe('Торгуйте валютами, криптовалютой, акциями и сырьем');
    await page.getByTestId('site-language').selectOption('en');
    await expect.poll(() => heroTitle(page)).toBe('Trade currencies, crypto, stocks and commodities');
    await page.getByTestId('site-language').selectOption('kk');
    await expect
      .poll(() => heroTitle(page))
      .toBe('Валюталармен, криптовалютамен, акциялармен және шикізатпен сауда жасаңыз');
    await page.getByTestId('site-language').selectOption('ru');
    await expect.poll(() => heroTitle(page)).toBe('Торгуйте валютами, криптовалютой, акциями и сырьем');

    await page.locator('#home').getByRole('button', { name: 'Начать торговлю' }).click();
    const form = page.getByTestId('auth-modal').getByTestId('register-form');
    await form.waitFor();
    await form.locator('#auth-name').fill('Анна Трейдер');
    await form.locator('#auth-phone').fill('+7 701 555 12 34');
    await form.locator('#auth-email').fill(email);
    await form.locator('#auth-password').fill('secret-123');
    await form.locator('#auth-confirmPassword').fill('secret-123');
    await shotBoth(page, 'trading-register-modal');
    await form.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.pathname === '/trading', { timeout: 20_000 });
    await page.getByTestId('trade-panel').waitFor();
    // The anonymous session check on the landing page answers 401 by design; nothing else may have failed.
    expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
    problems.length = 0;
    // A new account starts empty.
    await expect.poll(() => balanceText(page), { timeout: 15_000 }).toBe('$0.00');
    // Issue 27 item 11: the client's ID is its short account number, not a truncated UUID.
    expect(await page.getByTestId('account-id').textContent()).toMatch(/^ID: \d{8}$/);

    clientToken = (await context.cookies(server.url)).find((c) => c.name === 'session')!.value;
    const list = await api<{ accounts: AccountRow[] }>(
      staffToken,
      `/api/trading/admin/accounts?search=${encodeURIComponent(email)}`,
    );
    account = list.body.accounts.find((a) => a.client_email === email)!;
    expect(account, 'the registered client has a trading account').toBeDefined();
    // Issue 22 §2: a withdrawal needs a proven address. Without SMTP_URL the verification e-mail is kept in the outbox
    // (/crm/outbox), and its link is what the client opens.
    const outbox = await api<{ items: { id: number; to: string; template: string }[] }>(
      staffToken,
      `/api/mail/outbox?search=${encodeURIComponent(email)}`,
    );
    const verification = outbox.body.items.find((m) => m.template === 'verify_email' && m.to === email)!;
    expect(verification, 'the verification e-mail is in the outbox').toBeDefined();
    const message = await api<{ text_body: string }>(staffToken, `/api/mail/outbox/${verification.id}`);
    const link = /https?:\/\/\S+\/verify-email\?token=\S+/.exec(message.body.text_body)![0];
    const verified = await api(null, '/api/auth/verify-email', {
      method: 'POST',
      body: { token: new URL(link).searchParams.get('token') },
    });
    expect(verified.status).toBe(200);
    // $100 through the ledger, as staff would credit a deposit; the open screen shows it without a reload.
    const credit = await api(staffToken, `/api/trading/admin/accounts/${account.id}/balance`, {
      method: 'POST',
      body: { action: 'add', amount: 100, reason: 'e2e deposit' },
    });
    expect(credit.status).toBe(200);
    await expect.poll(() => balanceText(page), { timeout: 15_000 }).toBe('$100.00');
  });

  it('shows /trading with the balance, the panel and the live chart; time to first chart is measured', async () => {
    expect(await balanceText(page)).toBe('$100.00');
    await page.locator('[data-testid="price-chart"][data-state="ready"]').waitFor({ timeout: 15_000 });
    await page.getByTestId('account-name').filter({ hasText: 'Анна Трейдер' }).waitFor();
    await page.getByTestId('risk-warning').waitFor();
    // The account's payout (85 %) on the default stake of $25.
    expect(await page.getByTestId('potential-profit').textContent()).toBe('+$21.25');

    const firstChart = await page.evaluate(
      () => performance.getEntriesByName('trading:first-chart')[0]?.startTime ?? null,
    );
    expect(firstChart).not.toBeNull();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(
      path.join(ARTIFACTS, 'trading-first-chart.json'),
      JSON.stringify({ firstChartMs: Math.round(firstChart!), at: new Date().toISOString() }, null, 2),
    );
    // Recorded, not asserted: timings stay out of pass/fail tests; the budget is in docs/operations.md.
    console.log(`time to first chart: ${Math.round(firstChart!)} ms`);

    // The price the chart and the panel show is the server's (a price of the replay file).
    await expect
      .poll(async () => replay.prices.has((await page.getByTestId('current-price').first().textContent()) ?? ''))
      .toBe(true);
    await shot(page, 'trading-desktop');

    // The selector lists every asset; commodities are named in the screen's language.
    await page.getByTestId('trade-panel').getByTestId('asset-selector').click();
    const gold = page.locator('[data-testid="asset-option"][data-symbol="XAUUSD"]');
    await gold.waitFor();
    expect(await gold.textContent()).toContain('Золото');
    expect(await page.locator('[data-testid="asset-option"][data-symbol="WTIUSD"]').textContent()).toContain(
      'Нефть WTI',
    );
    await shotBoth(page, 'trading-asset-selector');
    // Picking EURUSD again closes the list.
    await page.locator('[data-testid="asset-option"][data-symbol="EURUSD"]').click();
    await gold.waitFor({ state: 'hidden' });
  });

  it("shows no payout figure until the account's settings are in (issue 27 item 3)", async () => {
    // A slow network: the account's settings answer only when the test lets them. The default 85 % (+$21.25) was
    // shown for ~2 s as if it were the account's.
    const slow = await page.context().newPage();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await slow.route('**/api/trading/client-settings', async (route) => {
      await held;
      await route.continue();
    });
    await slow.goto(`${server.url}/trading`);
    await slow.getByTestId('trade-panel').waitFor();
    expect(await slow.getByTestId('potential-profit').textContent()).toBe('—');
    expect(await slow.getByTestId('account-payout').textContent()).toBe('Выплата счета загружается…');
    release();
    await expect.poll(() => slow.getByTestId('potential-profit').textContent()).toBe('+$21.25');
    expect(await slow.getByTestId('account-payout').textContent()).toBe('Выплата счета: 85% от суммы');
    await slow.close();
  });

  it('places a call, counts down, and shows the server result as a toast and in the balance', async () => {
    await chooseDuration(page, `${DURATION} с`);
    await page.getByTestId('buy-button').click();
    await toast(page, 'Сделка КУПИТЬ открыта на EURUSD на сумму $25.00');
    const card = page.getByTestId('open-trade').first();
    await card.waitFor();
    await expect.poll(() => balanceText(page)).toBe('$75.00');
    // The countdown runs in seconds, and the chart marks the trade's strike and expiry.
    const expires = (await card.getByTestId('trade-expires').textContent())!.replace(/^[^:]*:\s*/, '');
    const first = await card.getByTestId('countdown').textContent();
    expect(first).toMatch(/^Осталось \d+с$/);
    const expiryLine = page.getByTestId('expiry-line').first();
    await expect.poll(() => expiryLine.evaluate((el) => getComputedStyle(el).display)).toBe('block');
    await shotBoth(page, 'trading-open-trade');
    await expect.poll(() => card.getByTestId('countdown').getAttribute('data-colour'), { timeout: 15_000 }).toBe('red');

    // The server settles at expiry: EURUSD only rises in the replay, so the call wins 25 × 85 % on top of the stake.
    await toast(page, 'Сделка EURUSD: Прибыль +$21.25');
    await expect.poll(() => balanceText(page), { timeout: 10_000 }).toBe('$121.25');
    await page.getByTestId('tab-closed').click();
    const row = page.getByTestId('closed-trade').first();
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('won');
    expect(await row.getByTestId('trade-result').textContent()).toBe('+$21.25');
    // Issue 27 item 5: the history ends at the same stored expiry, to the second, as the open card said.
    expect((await row.getByTestId('trade-times').textContent())!.endsWith(`→ ${expires}`)).toBe(true);

    // The result is the one the replayed prices decide: both prices come from the file and close > strike.
    const trades = await api<{ items: { status: string; strike_price: number; close_price: number }[] }>(
      clientToken,
      '/api/trading/trades?status=closed',
    );
    const trade = trades.body.items[0]!;
    expect(trade.status).toBe('won');
    expect(replay.prices.has(trade.strike_price.toFixed(5))).toBe(true);
    expect(replay.prices.has(trade.close_price.toFixed(5))).toBe(true);
    expect(trade.close_price).toBeGreaterThan(trade.strike_price);
    expect(await row.getByTestId('trade-open-price').textContent()).toContain(trade.strike_price.toFixed(5));
    expect(await row.getByTestId('trade-close-price').textContent()).toContain(trade.close_price.toFixed(5));
    await shotBoth(page, 'trading-closed');

    await page.getByTestId('view-history').click();
    await page.getByTestId('history-view').waitFor();
    expect(await page.getByTestId('total-pnl').textContent()).toBe('+$21.25');
    // Issue 27 item 9: the Russian plural forms.
    expect(await page.getByTestId('history-pages').textContent()).toBe('Страница 1 из 1 (1 сделка)');
    await shot(page, 'trading-history-desktop');
    await page.getByRole('button', { name: 'Вернуться к торговле' }).click();
  });

  it('refuses a trade above the account limit set by staff, with the spec text', async () => {
    const put = await api(staffToken, `/api/trading/admin/accounts/${account.id}/settings`, {
      method: 'PUT',
      body: { max_trade_amount: 20 },
    });
    expect(put.status).toBe(200);
    // The screen may still hold the old limit: then the server refuses; once reloaded the panel says it first.
    const buy = page.getByTestId('buy-button');
    if (await buy.isEnabled()) await buy.click();
    await page.getByText('Максимальная сумма сделки: $20').first().waitFor({ timeout: 10_000 });
    await expect.poll(() => buy.isDisabled()).toBe(true);
    expect(await page.getByTestId('trade-problem').textContent()).toBe('Максимальная сумма сделки: $20');
    expect(await balanceText(page)).toBe('$121.25');
    await shotBoth(page, 'trading-limit');
  });

  it('files a withdrawal with the checks of §5, and the balance shows the hold', async () => {
    await page.getByTestId('account-button').click();
    await page.getByTestId('menu-withdraw').click();
    const form = page.getByTestId('withdraw-form');
    await form.waitFor();
    await page.getByTestId('withdraw-submit').click();
    expect(await page.getByTestId('withdraw-problem').textContent()).toBe('Сумма должна быть больше 0');
    await page.getByTestId('withdraw-amount').fill('500');
    await page.getByTestId('withdraw-submit').click();
    expect(await page.getByTestId('withdraw-problem').textContent()).toBe(
      'Недостаточно средств на счете. Доступно: $121.25, запрошено: $500.00',
    );
    await page.getByTestId('withdraw-amount').fill('50');
    await page.getByTestId('withdraw-card').pressSequentially('4111111111111112');
    expect(await page.getByTestId('withdraw-card').inputValue()).toBe('4111 1111 1111 1112');
    await page.getByTestId('withdraw-submit').click();
    expect(await page.getByTestId('withdraw-problem').textContent()).toBe('Неверный номер карты');
    await page.getByTestId('withdraw-card').fill('');
    await page.getByTestId('withdraw-card').pressSequentially('4111111111111111');
    await page.getByTestId('withdraw-submit').click();
    expect(await page.getByTestId('withdraw-problem').textContent()).toBe('Укажите имя держателя карты');
    await page.getByTestId('withdraw-holder').pressSequentially('anna trader');
    expect(await page.getByTestId('withdraw-holder').inputValue()).toBe('ANNA TRADER');
    await page.getByTestId('withdraw-expiry').pressSequentially('1299');
    expect(await page.getByTestId('withdraw-expiry').inputValue()).toBe('12/99');
    await shot(page, 'trading-withdraw-desktop');
    await page.getByTestId('withdraw-submit').click();
    await page.getByTestId('withdraw-success').getByText('Заявка успешно создана').waitFor();
    await shotBoth(page, 'trading-withdraw-success');
    await page.getByTestId('withdraw-success').waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(() => balanceText(page)).toBe('$71.25');
    expect(await page.getByTestId('balance-held').textContent()).toBe('На удержании (вывод): $50.00');

    // Every call that moves money carried its own Idempotency-Key (D3), made once per submit.
    expect(moneyCalls.filter((c) => c.path === '/api/trading/place-trade').length).toBeGreaterThanOrEqual(1);
    expect(moneyCalls.filter((c) => c.path === '/api/withdraw-requests')).toHaveLength(1);
    for (const call of moneyCalls) expect(call.key, call.path).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(new Set(moneyCalls.map((c) => c.key)).size).toBe(moneyCalls.length);
  });

  it('shows the top-up methods from the server and their payment details with copy', async () => {
    await page.getByTestId('account-button').click();
    await page.getByTestId('menu-deposit').click();
    await page.getByTestId('deposit-form').waitFor();
    expect(await page.getByTestId('deposit-submit').isDisabled()).toBe(true);
    const methods = await api<{ title: string; enabled: boolean }[]>(null, '/api/deposit-methods');
    const enabled = methods.body.filter((m) => m.enabled);
    expect(await page.getByTestId('deposit-method').count()).toBe(enabled.length);
    await page.getByTestId('deposit-method').first().click();
    await expect.poll(() => page.getByTestId('deposit-method').first().isChecked()).toBe(true);
    await page.getByTestId('deposit-amount').fill('5');
    await page.getByTestId('deposit-amount').blur();
    expect(await page.getByTestId('deposit-problem').textContent()).toBe('Минимальная сумма пополнения: $10');
    await page.getByTestId('deposit-amount').fill('150');
    await page.getByTestId('deposit-submit').click();
    await page.getByTestId('deposit-details').waitFor();
    await shotBoth(page, 'trading-deposit');
    await page.getByRole('button', { name: 'Понятно' }).click();
    await page.getByTestId('deposit-details').waitFor({ state: 'detached' });
  });

  it('receives a message sent from the back office live and marks it read', async () => {
    await page.getByTestId('account-button').click();
    await page.getByTestId('menu-messages').click();
    await page.getByTestId('messages-empty').waitFor();
    const sent = await api(staffToken, '/api/client-messages', {
      method: 'POST',
      body: { client_id: account.client_id, content: 'Здравствуйте! Ваш счет пополнен.' },
    });
    expect(sent.status).toBe(201);
    // Polling would take 30 s; the message arrives over the socket (message.new) well before.
    const message = page.getByTestId('my-message').filter({ hasText: 'Здравствуйте! Ваш счет пополнен.' });
    await message.waitFor({ timeout: 8000 });
    expect(await message.getAttribute('data-read')).toBe('false');
    await shotBoth(page, 'trading-messages');
    await message.click();
    await expect.poll(() => message.getAttribute('data-read')).toBe('true');
    // The refused trade above the limit answers 400 by design; nothing else may fail.
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
  });

  it('opens the economic calendar and fundamental analysis views from the header', async () => {
    await page.getByRole('button', { name: 'Вернуться к торговле' }).click();
    await page.getByTestId('view-calendar').click();
    await page.getByTestId('calendar-view').getByTestId('economic-calendar').waitFor();
    await page.getByTestId('market-info-demo').first().waitFor();
    await shotBoth(page, 'trading-calendar');
    await page.getByTestId('view-fundamental').click();
    // EURUSD is selected: fundamental analysis answers that it is for stocks only (§2.9).
    await page.getByTestId('fundamental-view').getByTestId('fundamentals-stocks-only').waitFor();
    await shotBoth(page, 'trading-fundamental');
    await page.getByTestId('view-fundamental').click();
    await page.getByTestId('price-chart').waitFor();
    // The whole journey, landing page to messages, never fetched the back office's chunk.
    expect(scripts.some((n) => n.startsWith('TradingArea-'))).toBe(true);
    expect(scripts.filter((n) => n.startsWith('CrmArea-'))).toEqual([]);
  });

  it('shows staff the screen in demo mode (they have no trading account)', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addCookies([
      { name: 'session', value: staffToken, url: server.url, httpOnly: true, sameSite: 'Strict' },
    ]);
    const staff = await context.newPage();
    await staff.goto(`${server.url}/trading`);
    await staff.getByTestId('demo-badge').waitFor();
    expect(await balanceText(staff)).toBe('$1,000.00');
    // Staff keep their notifications bell here (D10): the superadmin has notifications (the demo data's, and the
    // client's withdrawal above).
    await staff.getByTestId('notifications-bell').waitFor({ timeout: 10_000 });
    // Its texts are the back office's, which the trading screen loads on its own: the bell waits for them (never a key).
    expect(await staff.getByTestId('notifications-bell').getAttribute('aria-label')).toMatch(
      /^Открыть уведомления \(\d+ непрочитанных\)$/,
    );
    await shot(staff, 'trading-staff-bell-desktop');
    await context.close();
    // The client, on the screen all along, has no bell.
    await page.getByTestId('trade-panel').waitFor();
    expect(await page.getByTestId('notifications-bell').count()).toBe(0);
    expect(await page.getByTestId('notifications-badge').count()).toBe(0);
  });

  it('works on a phone: panel, chart and history', async () => {
    const context = await clientContext(PHONE);
    const phone = await context.newPage();
    const loaded: string[] = [];
    phone.on('response', (res) => {
      const { pathname } = new URL(res.url());
      if (pathname.endsWith('.js')) loaded.push(path.basename(pathname));
    });
    await phone.goto(`${server.url}/trading`);
    await phone.locator('[data-testid="price-chart"][data-state="ready"]').waitFor({ timeout: 15_000 });
    await expect.poll(() => balanceText(phone)).toBe('$71.25');
    await shot(phone, 'trading-phone');
    await phone.getByTestId('view-history').click();
    await phone.getByTestId('history-view').waitFor();
    await shot(phone, 'trading-history-phone');
    await phone.getByTestId('account-button').click();
    await phone.getByTestId('menu-withdraw').click();
    await phone.getByTestId('withdraw-form').waitFor();
    await shot(phone, 'trading-withdraw-phone');
    // The trading screen is its own chunk: a fresh load of /trading never fetches the back office's.
    expect(loaded.some((n) => n.startsWith('TradingArea-'))).toBe(true);
    expect(loaded.filter((n) => n.startsWith('CrmArea-'))).toEqual([]);
    await context.close();
  });

  it('a client who chose kk on the landing page gets the trading screen in kk, KK selected, and can switch to ru', async () => {
    const context = await clientContext();
    const kkPage = await context.newPage();
    await kkPage.goto(`${server.url}/`);
    await kkPage.getByTestId('site-user').waitFor();
    await kkPage.getByTestId('site-language').selectOption('kk');
    await expect
      .poll(() => heroTitle(kkPage))
      .toBe('Валюталармен, криптовалютамен, акциялармен және шикізатпен сауда жасаңыз');
    await kkPage.getByTestId('hero-platform').click();
    await kkPage.waitForURL((url) => url.pathname === '/trading', { timeout: 20_000 });
    const panel = kkPage.getByTestId('trade-panel');
    await panel.getByText('Сауда панелі', { exact: true }).waitFor();
    expect(await kkPage.evaluate(() => document.documentElement.lang)).toBe('kk');
    const switcher = kkPage.getByTestId('language-switch');
    expect(await switcher.locator('input[value="kk"]').isChecked()).toBe(true);
    // The switch's label comes from the back office's translations, loaded after the screen shows (kk falls to ru).
    await expect.poll(() => switcher.getAttribute('aria-label')).toBe('Язык');
    await panel.getByTestId('asset-selector').click();
    expect(await kkPage.locator('[data-testid="asset-option"][data-symbol="XAUUSD"]').textContent()).toContain('Алтын');
    await shotBoth(kkPage, 'trading-kk');
    await kkPage.locator('[data-testid="asset-option"][data-symbol="EURUSD"]').click();
    await switcher.getByText('RU', { exact: true }).click();
    await panel.getByText('Торговая панель', { exact: true }).waitFor();
    expect(await switcher.locator('input[value="ru"]').isChecked()).toBe(true);
    await context.close();
  });

  it('sends an anonymous visitor of /trading to the landing page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const anon = await context.newPage();
    await anon.goto(`${server.url}/trading`);
    await anon.waitForURL((url) => url.pathname !== '/trading', { timeout: 10_000 });
    await context.close();
  });

  it('/demo trades without an account, settled in the browser by the shared rule on the server prices', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const context = await browser.newContext({
        viewport,
        ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
      });
      const demo = await context.newPage();
      const demoProblems = watchConsole(demo);
      // D16, nothing saved: no call that writes reaches the server while demo trades are placed and settled.
      const writes: string[] = [];
      demo.on('request', (req: Request) => {
        const { pathname } = new URL(req.url());
        if (pathname.startsWith('/api') && req.method() !== 'GET') writes.push(`${req.method()} ${pathname}`);
      });
      await demo.goto(`${server.url}/demo`);
      await demo.getByTestId('demo-badge').waitFor();
      await demo.getByText('Демо Пользователь').first().waitFor();
      expect(await balanceText(demo)).toBe('$1,000.00');
      await demo.locator('[data-testid="price-chart"][data-state="ready"]').waitFor({ timeout: 15_000 });
      await shot(demo, `demo-${viewport === PHONE ? 'phone' : 'desktop'}`);
      if (viewport === PHONE) {
        await context.close();
        continue;
      }
      await chooseDuration(demo, `${DURATION} с`);
      await expect.poll(() => demo.getByTestId('buy-button').isEnabled()).toBe(true);
      await demo.getByTestId('buy-button').click();
      await demo.getByTestId('open-trade').first().waitFor();
      expect(await balanceText(demo)).toBe('$975.00');
      await toast(demo, 'Сделка EURUSD: Прибыль +$21.25');
      expect(await balanceText(demo)).toBe('$1,021.25');
      expect(writes).toEqual([]);
      // Nothing of the demo reaches the server: no session, and messages and logout are not offered.
      await demo.getByTestId('account-button').click();
      expect(await demo.getByTestId('menu-messages').count()).toBe(0);
      expect(await demo.getByTestId('logout').count()).toBe(0);
      await demo.keyboard.press('Escape');

      // Issue 27 item 15: the demo account is kept in this browser — a reload keeps the balance and the history —
      // and starts over only when asked (with a confirmation).
      await demo.reload();
      await demo.getByTestId('demo-badge').waitFor();
      await expect.poll(() => balanceText(demo)).toBe('$1,021.25');
      await demo.getByTestId('tab-closed').click();
      expect(await demo.getByTestId('closed-trade').count()).toBe(1);
      expect(await demo.getByTestId('demo-open-real').getAttribute('href')).toBe('/?register=1');
      await demo.getByTestId('account-button').click();
      await demo.getByTestId('menu-demo-reset').click();
      await demo.getByTestId('demo-reset-confirm').click();
      await expect.poll(() => balanceText(demo)).toBe('$1,000.00');
      await demo.reload();
      await demo.getByTestId('demo-badge').waitFor();
      expect(await balanceText(demo)).toBe('$1,000.00');
      expect(writes).toEqual([]);
      // 'Открыть реальный счёт' lands on the site with its registration form open.
      await demo.getByTestId('demo-open-real').click();
      await demo.getByTestId('register-form').waitFor();
      // The session check answers 401 to an anonymous visitor by design; nothing else may fail.
      expect(demoProblems.filter((p) => !p.includes('401'))).toEqual([]);
      await context.close();
    }
  });

  it('/chart-test draws the EURUSD chart', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const context = await browser.newContext({ viewport });
      const chart = await context.newPage();
      await chart.goto(`${server.url}/chart-test`);
      await chart.locator('[data-testid="price-chart"][data-state="ready"]').waitFor({ timeout: 15_000 });
      expect(await chart.getByTestId('chart-symbol').textContent()).toBe('EURUSD');
      await shot(chart, `chart-test-${viewport === PHONE ? 'phone' : 'desktop'}`);
      await context.close();
    }
  });
});
