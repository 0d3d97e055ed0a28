import {
  demoAccountsResponseSchema,
  homePathFor,
  loginResponseSchema,
  meResponseSchema,
  type LoginRequest,
  type Role,
  type User,
} from '@brokerage/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiCall, apiRequest } from '../../../lib/api';
import { DEFAULT_BUSINESS_TIME_ZONE } from '../../../lib/format';
import { queryClient, setUnauthorizedHandler } from '../../../lib/query-client';
import { STORAGE_KEYS, sessionStore } from '../../../lib/storage-keys';

export type CurrentUser = z.infer<typeof meResponseSchema>;

export const authKeys = {
  me: ['auth', 'me'] as const,
  demoAccounts: ['auth', 'demo-accounts'] as const,
};

/** The current user, or null when nobody is signed in. Any failure of the check signs out silently (§2.1). */
async function fetchMe(): Promise<CurrentUser | null> {
  try {
    return await apiCall(meResponseSchema, '/api/auth/me');
  } catch {
    return null;
  }
}

export function useSession() {
  return useQuery({
    queryKey: authKeys.me,
    queryFn: fetchMe,
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
  });
}

setUnauthorizedHandler(() => {
  if (queryClient.getQueryData(authKeys.me)) queryClient.setQueryData(authKeys.me, null);
});

/**
 * After a successful login: the user is known at once; the full /me answer (the demo flag, the business time zone,
 * the mail settings) follows.
 */
export function signedIn(user: User): void {
  // Until /me answers, the mail fields read as settled (no banner flashes for a verified client).
  const me: CurrentUser = {
    ...user,
    demo: false,
    business_timezone: DEFAULT_BUSINESS_TIME_ZONE,
    email_verified: true,
    pending_email: null,
    language: 'ru',
    mail_opt_out: false,
    digest_opt_in: false,
  };
  queryClient.setQueryData(authKeys.me, me);
  void queryClient.invalidateQueries({ queryKey: authKeys.me });
}

export function useLogin() {
  return useMutation({
    // A session, or for staff with two-factor sign-in a challenge for the code or the enrollment step.
    mutationFn: (body: LoginRequest) => apiCall(loginResponseSchema, '/api/auth/login', { method: 'POST', body }),
  });
}

export function useDemoAccounts() {
  return useQuery({
    queryKey: authKeys.demoAccounts,
    queryFn: () => apiCall(demoAccountsResponseSchema, '/api/auth/demo-accounts'),
    staleTime: Infinity,
    retry: false,
  });
}

/**
 * Ends the session on the server, then reloads on `to` so nothing of this user stays in memory: staff on the staff
 * sign-in page, a client on the public site ('/', CP §2.4 — issue 27 item 11: a trader landed on /login, the staff
 * page listing the demo staff logins).
 */
export async function logout(to: '/login' | '/' = '/login'): Promise<void> {
  try {
    await apiRequest('/api/auth/logout', { method: 'POST' });
  } catch {
    // Already signed out on the server (expired session): leaving is still right.
  }
  window.location.assign(to);
}

/** Remembers where an anonymous visitor wanted to go in /crm (D10). */
export function rememberIntendedPath(path: string): void {
  sessionStore.set(STORAGE_KEYS.intendedPath, path);
}

/** Where a staff member goes after signing in: the remembered /crm path (used once), else their home (D10). */
export function takeStaffLandingPath(role: Role): string {
  const intended = sessionStore.get(STORAGE_KEYS.intendedPath);
  sessionStore.remove(STORAGE_KEYS.intendedPath);
  if (intended && (intended === '/crm' || intended.startsWith('/crm/') || intended.startsWith('/crm?')))
    return intended;
  return homePathFor(role);
}
