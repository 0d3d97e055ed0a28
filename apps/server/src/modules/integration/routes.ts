import { errorSchema, testConnectionResponseSchema, testConnectionSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { langOf } from '../../platform/http/messages.js';
import { testConnection } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema };

/** The integration tab's server-side calls (back-office.md §2.11): integration.manage. */
export const integrationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const rules = { allowPrivate: deps.config.ALLOW_PRIVATE_WEBHOOKS };

  app.post(
    '/api/integration/test-connection',
    {
      schema: {
        tags: ['integration'],
        summary:
          'Test a partner API: GET api_url with Authorization Bearer api_key (https, public address, 5 s); nothing is stored',
        body: testConnectionSchema,
        response: { 200: testConnectionResponseSchema, ...errors },
      },
    },
    async (request) =>
      testConnection(
        { db: deps.db, rules },
        request.auth!.actor,
        request.body,
        langOf(request.headers['accept-language']),
      ),
  );
};
