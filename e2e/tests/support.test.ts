import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, browserAvailable, DESKTOP, PHONE, shot } from '../support/browser.js';
import { accountFor, signedInPage, type DemoAccount, useDemoServer } from '../support/demo.js';
import type { RunningServer } from '../support/server.js';

/**
 * Issue 22 §6 in Chromium against the real server with its demo data: the demo client (assigned to the demo retention
 * manager, who is not among messages.send's roles) writes in 'Поддержка'; the manager's bell rings live and
 * 'Входящие' lists the conversation; the manager replies from the client card; the client sees the reply live and
 * that the message was read.
 */
describe.runIf(browserAvailable())('support conversation', () => {
  let server: RunningServer;
  let browser: Browser;
  let accounts: DemoAccount[];
  useDemoServer((demo) => ({ server, browser, accounts } = demo));

  const QUESTION = 'Здравствуйте! Где взять реквизиты для пополнения криптовалютой?';
  const ANSWER = 'Добрый день! Реквизиты USDT отправил вам на почту, проверьте, пожалуйста.';

  async function atPhone(page: Page, name: string) {
    await shot(page, `${name}-desktop`);
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(300);
    await shot(page, `${name}-phone`);
    await page.setViewportSize(DESKTOP);
    await page.waitForTimeout(300);
  }

  it('carries a client question to the manager’s inbox and bell, and the reply back to the client', async () => {
    const client = await signedInPage(browser, server, accountFor(accounts, 'client'));
    const manager = await signedInPage(browser, server, accountFor(accounts, 'retention_manager'));
    const c = client.page;
    const m = manager.page;

    // The manager waits on the inbox: nothing unread yet.
    await m.goto(`${server.url}/crm/inbox`);
    await m.getByTestId('inbox-empty').waitFor();

    // The client opens 'Поддержка' from the account menu.
    await c.getByTestId('trade-panel').waitFor();
    await c.getByTestId('account-button').click();
    expect(await c.getByTestId('menu-messages').textContent()).toContain('Поддержка');
    await c.getByTestId('menu-messages').click();
    await c.getByTestId('messages-view').waitFor();
    // A blank message is refused on the spot; the counter follows the text; Ctrl+Enter sends (Enter is a new line).
    await c.getByTestId('support-send').click();
    await c.getByText('Напишите сообщение').waitFor();
    const box = c.getByTestId('support-text');
    await box.fill(QUESTION);
    expect(await c.getByTestId('support-counter').textContent()).toBe(`${QUESTION.length} / 4000`);
    await box.press('Enter');
    expect(await c.getByTestId('my-message').filter({ hasText: QUESTION }).count()).toBe(0);
    await box.press('Control+Enter');
    const mine = c.locator('[data-testid="my-message"][data-direction="client"]').filter({ hasText: QUESTION });
    await mine.waitFor();
    expect(await mine.getByTestId('my-message-state').textContent()).toBe('Доставлено');
    await expect.poll(() => box.inputValue()).toBe('');

    // The manager's inbox and bell get it live (the notification outbox pushes within a second or so).
    const row = m.getByTestId('inbox-row').filter({ hasText: 'Demo Client' });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain(QUESTION);
    expect(await row.getByTestId('inbox-unread').textContent()).toBe('1');
    await m.getByTestId('notifications-bell').waitFor({ timeout: 15_000 });
    await expect.poll(() => m.getByTestId('notifications-badge').textContent(), { timeout: 15_000 }).toMatch(/[1-9]/);
    await atPhone(m, 'support-inbox');

    // A row opens the client card's conversation; the manager replies (not in messages.send's roles: the client's own
    // manager).
    await row.click();
    await m.waitForURL(/\/crm\/clients\/\d+#conversation$/);
    const card = m.getByTestId('conversation-card');
    await card.getByTestId('conversation-message').filter({ hasText: QUESTION }).waitFor();
    await card.getByTestId('conversation-text').fill(ANSWER);
    await card.getByTestId('conversation-send').click();
    const reply = card.locator('[data-testid="conversation-message"][data-direction="staff"]').filter({
      hasText: ANSWER,
    });
    await reply.waitFor();
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: `${ARTIFACTS}/support-client-card-conversation.png` });

    // The client sees the reply live, and that the question was read.
    const answer = c.locator('[data-testid="my-message"][data-direction="staff"]').filter({ hasText: ANSWER });
    await answer.waitFor({ timeout: 10_000 });
    expect(await answer.getAttribute('data-read')).toBe('false');
    await expect.poll(() => mine.getByTestId('my-message-state').textContent()).toBe('Прочитано');
    await atPhone(c, 'support-conversation');
    await answer.click();
    await expect.poll(() => answer.getAttribute('data-read')).toBe('true');

    // The inbox is empty again.
    await m.goto(`${server.url}/crm/inbox`);
    await m.getByTestId('inbox-empty').waitFor();

    expect(client.problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
    expect(manager.problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
    await c.context().close();
    await m.context().close();
  });
});
