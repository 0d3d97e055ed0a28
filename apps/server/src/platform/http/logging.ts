import type { FastifyServerOptions } from 'fastify';

/** Query parameters whose values never reach a log line, compared on decoded names (case-insensitive). */
const SECRET_QUERY_NAMES = new Set(['token', 'access_token', 'password', 'key', 'api_key']);
/** A request line names at most this many query parameters, each cut to this length. */
const MAX_QUERY_NAMES = 20;
const MAX_NAME_LENGTH = 64;

/**
 * A query parameter's name as the server reads it (find-my-way's fast-querystring): `+` is a space, then
 * percent-decoded; a malformed encoding stays as sent. So `%74oken` is `token`, here and in the route alike.
 */
function decodeName(raw: string): string {
  const name = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The names of a URL's query parameters, decoded, each once, in order. */
export function queryNames(url: string): string[] {
  const at = url.indexOf('?');
  if (at < 0) return [];
  const names = new Set<string>();
  for (const pair of url.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const raw = eq < 0 ? pair : pair.slice(0, eq);
    if (raw === '' && eq < 0) continue;
    names.add(decodeName(raw));
  }
  return [...names];
}

/** A URL with the values of secret query parameters masked, the names compared decoded (`?%74oken=` is masked). */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const pairs = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const raw = pair.slice(0, eq);
      return SECRET_QUERY_NAMES.has(decodeName(raw).toLowerCase()) ? `${raw}=[redacted]` : pair;
    });
  return `${url.slice(0, at)}?${pairs.join('&')}`;
}

/**
 * The request part of a log line (issue 20 §10): method, path, the NAMES of the query parameters and the address —
 * never a query value (tokens, and the e-mails and phones of searches, travel there), headers or the body.
 */
export function requestLogFields(request: { method: string; url?: string; ip?: string }) {
  const url = request.url ?? '';
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const names = queryNames(url);
  return {
    method: request.method,
    path,
    ...(names.length > 0 ? { query: names.slice(0, MAX_QUERY_NAMES).map((n) => n.slice(0, MAX_NAME_LENGTH)) } : {}),
    ip: request.ip,
  };
}

/** A URL's query inside free text (a message, a stack trace): the path is kept, the query is not. */
const QUERY_IN_TEXT = /(\/[^\s"'`?]*)\?[^\s"'`]+/g;

/** `text` with every URL query cut (`/api/clients?search=a@b.c` → `/api/clients?[query]`). */
export function withoutQueries(text: string): string {
  return text.includes('?') ? text.replace(QUERY_IN_TEXT, '$1?[query]') : text;
}

/** An error whose message and stack are told without URL queries; its type and other fields kept. */
function errorWithoutQueries(err: Error): Error {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err);
  for (const key of ['message', 'stack'] as const) {
    const text = err[key];
    if (typeof text === 'string')
      Object.defineProperty(copy, key, { value: withoutQueries(text), writable: true, configurable: true });
  }
  return copy;
}

/** Where log lines go instead of stdout (tests read them): pino's destination, one JSON line per `write`. */
export interface LogStream {
  write(line: string): void;
}

/**
 * pino settings: request lines carry method, path, query parameter names, IP and status, never query values,
 * headers or bodies, and any field named like a secret is censored wherever it appears.
 */
export function loggerOptions(level: string, stream?: LogStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: [
        'password',
        'new_password',
        'token',
        'access_token',
        'card_number',
        '*.password',
        '*.new_password',
        '*.token',
        '*.access_token',
        '*.card_number',
        'req.headers.authorization',
        'req.headers.cookie',
        // A PostgreSQL error's detail names the row's values ("Key (email)=(…) already exists"): personal data.
        'err.detail',
        'err.cause.detail',
      ],
      censor: '[redacted]',
    },
    hooks: {
      // Fastify's own warnings name the raw URL, query included (e.g. "Reply was already sent … in
      // "/api/clients?search=…"" when a handler finishes after its request timed out): every message and logged
      // error is told without URL queries, whoever writes it.
      logMethod(args, method) {
        const cleaned = args.map((arg: unknown) => {
          if (typeof arg === 'string') return withoutQueries(arg);
          if (arg instanceof Error) return errorWithoutQueries(arg);
          const err = (arg as { err?: unknown } | null)?.err;
          return err instanceof Error ? { ...(arg as object), err: errorWithoutQueries(err) } : arg;
        });
        return method.apply(this, cleaned as Parameters<typeof method>);
      },
    },
    serializers: {
      req: requestLogFields,
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode };
      },
    },
  };
}
