import type { Role } from '@brokerage/shared';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, PHONE, watchConsole } from './browser.js';
import { loginThroughUi } from './flows.js';
import type { RunningServer } from './server.js';

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
