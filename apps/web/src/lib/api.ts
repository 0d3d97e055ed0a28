import type { z } from 'zod';
import i18n, { currentLanguage } from '../i18n';
import { takeEarly } from './early-fetch';
import { nameFields, readDetail } from './error-detail';
import { withQuery, type QueryValue } from './query-string';

export { withQuery, type QueryValue };

/** A refused or failed API call. `detail` is the server's text (already in the caller's language), or ours. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly code: string | undefined;

  constructor(status: number, detail: string, code?: string) {
    // Every refusal the screens show passes here: its fields are named in words (issue 15 defect 7).
    detail = nameFields(detail, fieldLabel);
    super(detail || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.code = code;
  }
}

/** A field's name in words from the translation files (`fields.<key>`, the back office's or the platform's), or null. */
function fieldLabel(key: string): string | null {
  for (const ns of ['translation', 'platform']) {
    const full = `${ns}:fields.${key}`;
    if (i18n.exists(full)) return i18n.t(full as 'fields.text');
  }
  return null;
}

function invalidData(status: number): ApiError {
  return new ApiError(status, i18n.t('errors.invalidJson'), 'invalid_json');
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
  /** Extra request headers (e.g. Idempotency-Key on calls that move money). */
  headers?: Record<string, string>;
}

/**
 * The one way the web calls the server: same-origin cookie session (the token is never readable here, D8), JSON both
 * ways, and the interface language in Accept-Language so the server's messages come back translated.
 */
export async function apiRequest(path: string, options: RequestOptions = {}): Promise<unknown> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Accept-Language': currentLanguage(),
    ...options.headers,
  };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  const url = withQuery(path, options.query);
  const early = (options.method ?? 'GET') === 'GET' && !options.headers ? takeEarly(url) : undefined;
  const response = await (early ??
    fetch(url, {
      method: options.method ?? 'GET',
      credentials: 'same-origin',
      headers,
      body,
      signal: options.signal,
    }));

  const text = await response.text();
  let data: unknown = undefined;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      throw invalidData(response.status);
    }
  }

  if (!response.ok) {
    const record = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
    const code = typeof record.code === 'string' ? record.code : undefined;
    throw new ApiError(response.status, readDetail(record.detail), code);
  }
  return data;
}

/** A call whose answer is checked against the shared contract; an answer that does not match is invalid data. */
export async function apiCall<S extends z.ZodType>(
  schema: S,
  path: string,
  options: RequestOptions = {},
): Promise<z.infer<S>> {
  const data = await apiRequest(path, options);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    console.error(`Response of ${options.method ?? 'GET'} ${path} does not match the contract`, parsed.error.issues);
    throw invalidData(200);
  }
  return parsed.data;
}

/** The text to show for a failed call: the server's detail when it gave one, else the screen's fallback. */
export function errorText(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.detail) return error.detail;
  return fallback;
}
