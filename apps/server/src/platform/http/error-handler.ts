import { validationMessage } from '@brokerage/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable, isTransactionConflict } from '../db/errors.js';
import { HttpError, RETRY_AFTER_SECONDS } from './errors.js';
import { errorMessage, langOf, type ErrorCode } from './messages.js';

function send(reply: FastifyReply, request: FastifyRequest, status: number, code: ErrorCode, params = {}) {
  const lang = langOf(request.headers['accept-language']);
  return reply.status(status).send({ detail: errorMessage(code, lang, params), code });
}

/** One error handler for the whole API: every refusal is {"detail": "...", "code": "..."}; a 5xx leaks nothing. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return send(reply, request, error.statusCode, error.code, error.params);
    }

    if (hasZodFastifySchemaValidationErrors(error)) {
      const lang = langOf(request.headers['accept-language']);
      const context = error.validationContext ?? 'body';
      const parts = error.validation.map((issue) => {
        const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
        if (issue.keyword === 'unrecognized_keys') {
          const keys = ((issue.params as { keys?: string[] }).keys ?? []).join(', ');
          const where = field ? `${context}.${field}` : context;
          return lang === 'ru' ? `${where}: неизвестные поля: ${keys}` : `${where}: unknown fields: ${keys}`;
        }
        if (issue.keyword === 'invalid_type' && (issue.params as { expected?: string }).expected) {
          const expected = (issue.params as { expected: string }).expected;
          const code = issue.message === 'required' ? 'required' : null;
          const text = code
            ? validationMessage(code, lang)
            : lang === 'ru'
              ? `ожидается ${expected}`
              : `expected ${expected}`;
          return `${field || context}: ${text}`;
        }
        return `${field || context}: ${validationMessage(issue.message ?? 'invalid_value', lang)}`;
      });
      return reply.status(400).send({ detail: parts.join('. '), code: 'validation_error' });
    }

    if (isResponseSerializationError(error)) {
      request.log.error({ err: error.cause }, 'response did not match its schema');
      return send(reply, request, 500, 'internal');
    }

    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, request, 400, 'bad_json');
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, request, 413, 'body_too_large');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(reply, request, 415, 'unsupported_media_type');
    }
    if (error.statusCode === 429) return send(reply, request, 429, 'rate_limited');
    // Issue 21 §5: the route's time bound (REQUEST_TIMEOUT_MS) passed; the work may still finish behind this answer.
    if (error.code === 'FST_ERR_HANDLER_TIMEOUT') {
      // The route's pattern, never the URL: a query string carries tokens and search terms (issue 20 §10).
      request.log.warn({ method: request.method, route: request.routeOptions.url }, 'request timed out');
      const seconds = Math.round((request.routeOptions.handlerTimeout || 0) / 1000);
      return send(reply.header('retry-after', String(RETRY_AFTER_SECONDS)), request, 503, 'request_timeout', {
        seconds,
      });
    }
    // Issue 21 §1: a lost connection, a database starting or stopping, a connect or statement timeout. The call's
    // transaction is rolled back by PostgreSQL (or its commit is unknown: a retry with its Idempotency-Key is safe).
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: { message: error.message, code: error.code } }, 'database unavailable');
      return send(reply.header('retry-after', String(RETRY_AFTER_SECONDS)), request, 503, 'database_unavailable');
    }
    if (isTransactionConflict(error)) {
      request.log.warn(
        { err: { message: error.message, code: error.code }, route: request.routeOptions.url },
        'transaction conflict',
      );
      return send(reply.header('retry-after', '1'), request, 503, 'database_conflict');
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own 4xx (bad URL encoding, bad headers): say what it said, it names the problem.
      return reply.status(error.statusCode).send({ detail: error.message, code: error.code ?? 'bad_request' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, request, 500, 'internal');
  });
}

/**
 * Fastify's router answers a URL it cannot decode, or a path parameter over its length limit, before any hook or
 * the error handler runs; this keeps those answers in the API's {detail, code} shape too (Fastify's frameworkErrors).
 */
export function frameworkErrorHandler(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No hook runs for these answers, so helmet's headers are set here: the strictest, as this JSON needs nothing.
  reply.headers({
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cache-control': 'no-store',
  });
  void send(reply, request, 400, 'bad_url');
}

/**
 * Where a parsed body or query holds a string with U+0000, as a field path ('' at the top), or null. Walks with its own
 * stack, never by recursion over the caller's input (a deeply nested body must not overflow the call stack).
 */
export function nulCharacterAt(value: unknown, path = ''): string | null {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [item, at] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return at;
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, child] = entries[i]!;
        stack.push([child, at ? `${at}.${key}` : key]);
      }
    }
  }
  return null;
}

/** The deepest nesting of objects and arrays a JSON body may have; the API's own bodies need 3 or 4. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a JSON text nests objects/arrays deeper than `max`, by one pass over its characters (strings skipped), before
 * anything parses it.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth -= 1;
  }
  return false;
}

/**
 * JSON bodies: refused with 400 when nested deeper than MAX_JSON_DEPTH (issue 9 finding 5), then parsed by Fastify's
 * own parser (prototype-poisoning protection kept).
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new HttpError(400, 'json_too_deep', { max: MAX_JSON_DEPTH }), undefined);
      return;
    }
    parse(request, text, done);
  });
}

/**
 * PostgreSQL cannot store U+0000 in text, and a query carrying one fails in the database (a 500). Such input is
 * refused before validation, with the field named.
 */
export function registerInputChecks(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const inBody = nulCharacterAt(request.body);
    const at = inBody !== null ? inBody || 'body' : nulCharacterAt(request.query);
    if (at !== null) throw new HttpError(400, 'invalid_character', { field: at });
  });
}

/**
 * Unknown API paths answer a JSON 404. Other GETs get the single-page app, which shows its own not-found page,
 * when the web build is being served.
 */
export function registerNotFound(app: FastifyInstance, serveSpa: boolean): void {
  app.setNotFoundHandler((request, reply) => {
    // A missing hashed asset is a real 404: answering index.html would leave the browser with a blank page.
    const isAsset = request.url.startsWith('/assets/');
    if (serveSpa && request.method === 'GET' && !request.url.startsWith('/api/') && !isAsset) {
      return reply.sendFile('index.html');
    }
    return send(reply, request, 404, 'route_not_found', { route: `${request.method} ${request.url.split('?')[0]}` });
  });
}
