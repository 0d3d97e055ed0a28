import type { FastifyInstance } from 'fastify';

/**
 * Issue 21 §5: every API route gets a time bound (Fastify's handlerTimeout, from onRequest to the answer): past it the
 * caller is answered 503 with Retry-After (platform/http/error-handler.ts) instead of waiting for a database that does
 * not answer. A streamed answer already under way is cut. The work itself is not stopped: its statements end by
 * DB_STATEMENT_TIMEOUT_MS, and a retry with the same Idempotency-Key is safe. The live socket and the static files
 * (web app, API docs) have no bound. A route that takes or sends a whole file (imports, exports, statements) states
 * its own bound where it is registered, `handlerTimeout: deps.config.BULK_REQUEST_TIMEOUT_MS` (its statements have
 * their own too: DB_BULK_STATEMENT_TIMEOUT_MS); every other route gets REQUEST_TIMEOUT_MS here.
 */
export function registerRequestTimeouts(app: FastifyInstance, bounds: { requestMs: number }): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const options = route as { websocket?: boolean; wsHandler?: unknown };
    if (options.websocket || options.wsHandler) return;
    if (route.handlerTimeout) return; // the route set its own
    route.handlerTimeout = bounds.requestMs;
  });
}
