import type { FastifyServerOptions } from 'fastify';

/** Query parameters whose values never reach a log line (affiliate tokens travel in the query string). */
const SECRET_QUERY = /([?&](?:token|access_token|password|key|api_key)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/**
 * pino settings: request lines carry method, path (secrets masked), IP and status, never headers or bodies,
 * and any field named like a secret is censored wherever it appears.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
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
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), ip: request.ip };
      },
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode };
      },
    },
  };
}
