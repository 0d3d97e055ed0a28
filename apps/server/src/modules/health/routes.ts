import { healthResponseSchema, livenessResponseSchema } from '@brokerage/shared';
import { migrationsCurrent } from '../../platform/db/index.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';

/**
 * How long readiness waits for the database's answer: a load balancer's probe gets its 503 within 2 s even when
 * PostgreSQL is paused or unreachable (issue 21 §5), far below DB_CONNECT_TIMEOUT_MS.
 */
export const READINESS_DB_TIMEOUT_MS = 1500;

/**
 * Whether the database answers within `ms`, and whether it has every migration this build knows (null when it does
 * not answer); a late answer or failure is dropped (never an unhandled rejection).
 */
async function databaseAnswers(deps: AppDeps, ms: number): Promise<boolean | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  const probe = migrationsCurrent(deps.db).then(
    (current) => current,
    () => null,
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
        summary: `Readiness: 200 when the database answers within ${READINESS_DB_TIMEOUT_MS} ms and has every migration this build knows, 503 otherwise (take this process out of the balancer)`,
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (_request, reply) => {
      const current = await databaseAnswers(deps, READINESS_DB_TIMEOUT_MS);
      if (current === true) {
        return { status: 'ok' as const, db: 'ok' as const, migrations: 'current' as const, version: deps.version };
      }
      // Not ready: the database does not answer, or it lacks a migration this build needs.
      return reply.status(503).send({
        status: 'degraded' as const,
        db: current === null ? ('down' as const) : ('ok' as const),
        migrations: current === false ? ('behind' as const) : ('unknown' as const),
        version: deps.version,
      });
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
