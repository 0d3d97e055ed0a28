import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The security headers' settings: a CSP without inline scripts, no framing, nosniff, a strict referrer policy. */
const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      // Mantine writes style attributes and <style> tags at run time; scripts stay strictly 'self'.
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      'font-src': ["'self'", 'data:'],
      'connect-src': ["'self'", 'ws:', 'wss:'],
      'object-src': ["'none'"],
      'base-uri': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  crossOriginEmbedderPolicy: false,
  hsts: false, // TLS is terminated in front of us; the proxy sets HSTS (docs/operations.md)
};

/**
 * The headers helmet sets with these options, computed once. None of them depends on the request (no CSP nonces, no
 * directive functions), so every answer carries the same set; @fastify/helmet rebuilt helmet's middleware on every
 * request, parsing the CSP again each time (~0.024 ms of a ~0.28 ms place-trade call's CPU, issue 12).
 */
export function securityHeaders(options: HelmetOptions = HELMET_OPTIONS): [string, string][] {
  const headers = new Map<string, string>();
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  // helmet's middleware is synchronous; a version that were not could not be precomputed this way.
  if (!finished) throw new Error('helmet did not finish synchronously: the security headers cannot be precomputed');
  return [...headers];
}

/**
 * Security headers on every answer (pages, API, 404s, errors), set on the raw response as helmet sets them, so they
 * survive an error answer; API answers are never cached, unless the route marks its answer public (cacheable by
 * anyone: the price log's heads and proofs between them, D27).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  const headers = securityHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // A route whose answer is public data that never changes (the price log's heads, D27) says so itself.
    if (request.url.startsWith('/api/') && !/^public\b/.test(String(reply.getHeader('cache-control') ?? '')))
      reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
