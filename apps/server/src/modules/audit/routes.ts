import { auditQuerySchema, auditResponseSchema, auditVerifyResponseSchema, errorSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listAudit, verifyAudit } from './service.js';

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

  app.get(
    '/api/audit/verify',
    {
      schema: {
        tags: ['audit'],
        summary: 'Walks the tamper-evident audit chain from its first row and names the first row that does not match',
        response: { 200: auditVerifyResponseSchema, 401: errorSchema, 403: errorSchema },
      },
    },
    async () => verifyAudit(deps),
  );
};
