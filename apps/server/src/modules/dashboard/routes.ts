import { dashboardQuerySchema, dashboardResponseSchema, errorSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { dashboard } from './service.js';

export const dashboardRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/dashboard',
    {
      schema: {
        tags: ['dashboard'],
        summary:
          'Dashboard statistics over the clients the caller may see: overview, departments, deleted managers, affiliates, six months, statuses',
        querystring: dashboardQuerySchema,
        response: { 200: dashboardResponseSchema, 400: errorSchema, 401: errorSchema, 403: errorSchema },
      },
    },
    async (request) => dashboard(deps, request.query, request.auth!.actor),
  );
};
