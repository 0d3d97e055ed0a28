import { healthResponseSchema } from '@brokerage/shared';
import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';

export const healthRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/health',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['health'],
        summary: 'Liveness and database reachability',
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(deps.db);
        return { status: 'ok' as const, db: 'ok' as const, version: deps.version };
      } catch {
        return reply.status(503).send({ status: 'degraded' as const, db: 'down' as const, version: deps.version });
      }
    },
  );
};
