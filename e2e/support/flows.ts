import type { Page } from 'playwright-core';

/** Signs in through the /login screen and waits until the app has left it. */
export async function loginThroughUi(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  const form = page.getByTestId('login-form');
  await form.locator('input[type="email"]').fill(email);
  await form.locator('input[type="password"]').fill(password);
  await form.locator('button[type="submit"]').click();
  await page.waitForURL((url) => url.pathname !== '/login', { timeout: 20_000 });
}

/** The paths of the side menu entries as the page shows them, in order. */
export async function menuPaths(page: Page): Promise<string[]> {
  const menu = page.getByTestId('side-menu');
  await menu.locator('[data-path]').first().waitFor();
  return menu.locator('[data-path]').evaluateAll((els) => els.map((el) => el.getAttribute('data-path') ?? ''));
}

export async function logoutThroughUi(page: Page): Promise<void> {
  await page.getByTestId('logout').first().click();
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 20_000 });
}
