import type { ErrorCode } from './messages.js';

/** The Retry-After (seconds) of a 503 answered because the database is lost or slow, or a request timed out. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * A refusal with a status the caller should see; the error handler turns it into {detail, code}. A refusal that names
 * `retryAfterSeconds` (a 429 or 503) carries it as Retry-After.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    readonly params: Record<string, string | number> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(code);
  }
}

export const badRequest = (code: ErrorCode, params?: Record<string, string | number>) =>
  new HttpError(400, code, params);
export const notFound = (code: ErrorCode = 'not_found') => new HttpError(404, code);
export const conflict = (code: ErrorCode, params?: Record<string, string | number>) => new HttpError(409, code, params);
export const forbidden = (code: ErrorCode = 'forbidden', params?: Record<string, string | number>) =>
  new HttpError(403, code, params);
