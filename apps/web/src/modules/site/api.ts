import type { LatestPrice, Role, SiteContent, SiteFacts, LocalizedText } from '@brokerage/shared';
import i18n from 'i18next';

/**
 * The public page's calls. Plain fetch and no schema library, so the landing chunk stays small; the server's answers
 * follow the shared contracts (siteContentResponseSchema, siteFactsResponseSchema, pricesResponseSchema).
 */
export class SiteApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string | undefined,
  ) {
    super(detail || `HTTP ${status}`);
  }
}

export async function siteFetch<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': i18n.language || 'ru' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    throw new SiteApiError(res.status, i18n.t('site:common.error'), 'invalid_json');
  }
  if (!res.ok) {
    const rec = (data && typeof data === 'object' ? data : {}) as { detail?: unknown; code?: unknown };
    throw new SiteApiError(
      res.status,
      typeof rec.detail === 'string' ? rec.detail : '',
      typeof rec.code === 'string' ? rec.code : undefined,
    );
  }
  return data as T;
}

export interface SiteUser {
  id: string;
  name: string;
  email: string;
  role: Role;
}

export const siteApi = {
  content: () => siteFetch<SiteContent>('/api/site-content'),
  facts: () => siteFetch<SiteFacts>('/api/site/facts'),
  prices: () => siteFetch<LatestPrice[]>('/api/prices'),
  /** The signed-in user, or null (a 401 is the normal answer for a visitor). */
  me: () => siteFetch<SiteUser>('/api/auth/me').catch(() => null),
  login: (body: { email: string; password: string }) =>
    siteFetch<{ user: SiteUser }>('/api/auth/login', { method: 'POST', body }),
  /** Issue 22: `language` is the site's, so the mail (the verification link first) comes in it. */
  register: (body: { name: string; email: string; phone: string; password: string; language: 'ru' | 'en' | 'kk' }) =>
    siteFetch<{ user: SiteUser }>('/api/auth/register-client', { method: 'POST', body }),
  logout: () => siteFetch<unknown>('/api/auth/logout', { method: 'POST' }).catch(() => undefined),
};

/** A text of the site content file in the visitor's language, else Russian (D15); '' when neither is set. */
export function localized(text: LocalizedText | undefined, lang: string): string {
  if (!text) return '';
  const own = (text as Record<string, string | undefined>)[lang]?.trim();
  return own || text.ru?.trim() || '';
}

/** The public site's languages (D15); the same list as i18n/resources.ts LANGUAGES, without importing the translations. */
export const SITE_LANGUAGES = ['ru', 'en', 'kk'] as const;

/**
 * Number formats per interface language. kk writes numbers as ru does ('3 000,5'); Chromium's ICU reports kk-KZ as
 * supported yet formats it as en ('3,000.5'), so kk numbers use the ru-RU rules (issue 15 defect 2).
 */
export const NUMBER_LOCALES: Record<string, string> = { ru: 'ru-RU', en: 'en-US', kk: 'ru-RU' };
export function formatNumber(n: number, lang: string, digits?: number): string {
  return n.toLocaleString(NUMBER_LOCALES[lang] ?? 'ru-RU', {
    ...(digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits }),
  });
}
