import { auditQuerySchema, auditResponseSchema, errorSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listAudit } from './service.js';

export const auditRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/audit',
    {
      schema: {
        tags: ['audit'],
        summary: 'The audit log, newest first; dates are days in the business time zone',
        querystring: auditQuerySchema,
        response: { 200: auditResponseSchema, 400: errorSchema, 401: errorSchema, 403: errorSchema },
      },
    },
    async (request) => listAudit(deps, request.query),
  );
};
