import type { Role } from '@brokerage/shared';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { DESKTOP, launchBrowser, PHONE, watchConsole } from './browser.js';
import { loginThroughUi } from './flows.js';
import { startServer, type RunningServer } from './server.js';

/** One demo login as GET /api/auth/demo-accounts lists it (DEMO_DATA=1). */
export interface DemoAccount {
  email: string;
  password: string;
  role: Role;
}

/** The demo logins the server offers. */
export async function demoAccounts(server: RunningServer): Promise<DemoAccount[]> {
  const res = await fetch(`${server.url}/api/auth/demo-accounts`);
  return ((await res.json()) as { accounts: DemoAccount[] }).accounts;
}

/** The first demo login of a role. */
export function accountFor(accounts: DemoAccount[], role: Role): DemoAccount {
  return accounts.find((a) => a.role === role)!;
}

/** Signs in over the API and answers the HTTP status and the bearer token of the new session. */
export async function apiLogin(
  server: RunningServer,
  email: string,
  password: string,
): Promise<{ status: number; token: string }> {
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, token: ((await res.json()) as { access_token: string }).access_token };
}

/** A fresh browser context signed in through the /login screen, with its console problems watched. */
export async function signedInPage(
  browser: Browser,
  server: RunningServer,
  account: Pick<DemoAccount, 'email' | 'password'>,
  options: { viewport?: { width: number; height: number }; acceptDownloads?: boolean } = {},
): Promise<{ page: Page; problems: string[] }> {
  const viewport = options.viewport ?? DESKTOP;
  const context = await browser.newContext({
    viewport,
    ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
    ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
  });
  const page = await context.newPage();
  const problems = watchConsole(page);
  await loginThroughUi(page, server.url, account.email, account.password);
  return { page, problems };
}

/** What a browser test of the demo server works with. */
export interface DemoServer {
  server: RunningServer;
  browser: Browser;
  accounts: DemoAccount[];
}

/**
 * A demo server (DEMO_DATA=1, its own embedded database), a Chromium and the demo logins for the enclosing describe
 * block: started before its tests (then handed to `ready`), stopped after them, also when starting failed half-way.
 */
export function useDemoServer(ready: (demo: DemoServer) => void): void {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startServer({ DEMO_DATA: '1' });
    browser = await launchBrowser();
    ready({ server, browser, accounts: await demoAccounts(server) });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
}
