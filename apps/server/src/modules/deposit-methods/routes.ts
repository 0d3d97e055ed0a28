import {
  depositMethodsResponseSchema,
  errorSchema,
  fundsIdParam,
  staffDepositMethodSchema,
  staffDepositMethodsResponseSchema,
  updateDepositMethodSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listAllMethods, listEnabledMethods, updateMethod } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

export const depositMethodRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/deposit-methods',
    {
      schema: {
        tags: ['deposit-methods'],
        summary: 'The enabled deposit methods with their payment details (no authorization needed)',
        response: { 200: depositMethodsResponseSchema },
      },
    },
    async () => listEnabledMethods(deps.db),
  );

  app.get(
    '/api/deposit-methods/all',
    {
      schema: {
        tags: ['deposit-methods'],
        summary: 'Every deposit method, enabled or not, with who changed it last',
        response: { 200: staffDepositMethodsResponseSchema, ...errors },
      },
    },
    async () => listAllMethods(deps.db),
  );

  app.put(
    '/api/deposit-methods/:id',
    {
      schema: {
        tags: ['deposit-methods'],
        summary: 'Toggle {enabled}, or edit {title, description, details, enabled}; audited with before and after',
        params: fundsIdParam,
        body: updateDepositMethodSchema,
        response: { 200: staffDepositMethodSchema, ...errors },
      },
    },
    async (request) => updateMethod(deps.db, request.auth!.actor, request.params.id, request.body),
  );
};
