import type { FastifyInstance } from 'fastify';

/**
 * The API routes that take or send a file for longer than a request should take: they get BULK_REQUEST_TIMEOUT_MS
 * (their statements have their own bound too: DB_BULK_STATEMENT_TIMEOUT_MS).
 */
const BULK_ROUTES = new Set([
  'GET /api/clients/export/excel',
  'GET /api/deposits/export/excel',
  'GET /api/trading/statement/export',
  'POST /api/upload-clients',
]);

/**
 * Issue 21 §5: every API route gets a time bound (Fastify's handlerTimeout, from onRequest to the answer): past it the
 * caller is answered 503 with Retry-After (platform/http/error-handler.ts) instead of waiting for a database that does
 * not answer. A streamed answer already under way is cut. The work itself is not stopped: its statements end by
 * DB_STATEMENT_TIMEOUT_MS, and a retry with the same Idempotency-Key is safe. The live socket and the static files
 * (web app, API docs) have no bound.
 */
export function registerRequestTimeouts(app: FastifyInstance, bounds: { requestMs: number; bulkMs: number }): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const options = route as { websocket?: boolean; wsHandler?: unknown };
    if (options.websocket || options.wsHandler) return;
    if (route.handlerTimeout) return; // the route set its own
    const bulk = [route.method].flat().some((method) => BULK_ROUTES.has(`${method} ${route.url}`));
    route.handlerTimeout = bulk ? bounds.bulkMs : bounds.requestMs;
  });
}
