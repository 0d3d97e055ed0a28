/**
 * GET calls started before the application has loaded (issue 12, item 6): main.tsx starts the trading screen's first
 * calls (the session check and the first candles) while the application's chunks are still downloading, and
 * apiRequest takes such an answer instead of asking again. Each answer is used once and only while fresh, so nothing
 * stale is ever shown. This file stays tiny and imports nothing: it runs before anything else.
 */
const FRESH_MS = 15_000;

const started = new Map<string, { at: number; response: Promise<Response> }>();

/** Starts a same-origin GET of `path` now, unless a fresh one of the same path is already under way. */
export function fetchEarly(path: string, language: string | null): void {
  const current = started.get(path);
  if (current && Date.now() - current.at < FRESH_MS) return;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (language) headers['Accept-Language'] = language;
  const response = fetch(path, { credentials: 'same-origin', headers });
  // A failed early call is not an error of its own: the caller that takes it sees the failure, or asks again.
  response.catch(() => undefined);
  started.set(path, { at: Date.now(), response });
}

/** The early answer of `path` if one is fresh, handed out once; undefined otherwise. */
export function takeEarly(path: string): Promise<Response> | undefined {
  const current = started.get(path);
  if (!current) return undefined;
  started.delete(path);
  return Date.now() - current.at < FRESH_MS ? current.response : undefined;
}
