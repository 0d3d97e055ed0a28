import { healthResponseSchema, livenessResponseSchema } from '@brokerage/shared';
import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';

/**
 * How long readiness waits for the database's answer: a load balancer's probe gets its 503 within 2 s even when
 * PostgreSQL is paused or unreachable (issue 21 §5), far below DB_CONNECT_TIMEOUT_MS.
 */
export const READINESS_DB_TIMEOUT_MS = 1500;

/** Whether `select 1` answers within `ms`; a late answer or failure is dropped (never an unhandled rejection). */
async function databaseAnswers(deps: AppDeps, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const probe = sql`select 1`.execute(deps.db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/health',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['health'],
        summary: `Readiness: 200 when the database answers within ${READINESS_DB_TIMEOUT_MS} ms, 503 otherwise (take this process out of the balancer)`,
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (_request, reply) => {
      if (await databaseAnswers(deps, READINESS_DB_TIMEOUT_MS)) {
        return { status: 'ok' as const, db: 'ok' as const, version: deps.version };
      }
      return reply.status(503).send({ status: 'degraded' as const, db: 'down' as const, version: deps.version });
    },
  );

  app.get(
    '/api/health/live',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['health'],
        summary:
          'Liveness: 200 while the process answers; the database is not asked (restart the process only on this)',
        response: { 200: livenessResponseSchema },
      },
    },
    async () => ({ status: 'ok' as const, version: deps.version }),
  );
};
