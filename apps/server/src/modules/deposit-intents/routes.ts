import {
  depositIntentRequestSchema,
  depositIntentSchema,
  depositIntentsResponseSchema,
  errorSchema,
  intIdParam,
  pageQuery,
} from '@brokerage/shared';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { createDepositIntent, listClientDepositIntents } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema };

/** Deposit intents (decision D21): the client records one when confirming a top-up; staff read a client's. */
export const depositIntentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; now?: () => Date }> = async (app, opts) => {
  const deps = { db: opts.deps.db, now: opts.now ?? (() => new Date()) };

  app.post(
    '/api/deposit-intents',
    {
      schema: {
        tags: ['deposits'],
        summary:
          "Record the caller's confirmed top-up (amount, method) and notify their manager; not money. 10 an hour (429 with Retry-After beyond)",
        body: depositIntentRequestSchema,
        response: { 201: depositIntentSchema, ...errors },
      },
    },
    async (request, reply) => {
      const intent = await createDepositIntent(deps, request.auth!.user.id, request.body);
      return reply.status(201).send(intent);
    },
  );

  app.get(
    '/api/clients/:id/deposit-intents',
    {
      schema: {
        tags: ['deposits'],
        summary: "A client's deposit intents, newest first, paged; 404 when missing or outside the caller's scope",
        params: intIdParam,
        querystring: z.strictObject({ ...pageQuery }),
        response: { 200: depositIntentsResponseSchema, ...errors },
      },
    },
    async (request) =>
      listClientDepositIntents(deps, request.auth!.actor, request.params.id, {
        page: request.query.page,
        per_page: request.query.per_page,
      }),
  );
};
