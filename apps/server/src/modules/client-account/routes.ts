import {
  clientChangePasswordSchema,
  clientSummarySchema,
  errorSchema,
  okSchema,
  recordIdParam,
  registerClientUserResponseSchema,
  registerClientUserSchema,
  verifyIdentityResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { changeClientPassword, clientSummary, registerClientUser, verifyClientIdentity } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** The client card's platform user and statistics (back-office.md §2.6, §7, §8). */
export const clientAccountRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/api/clients/:id/register-user',
    {
      schema: {
        tags: ['clients'],
        summary:
          'Register the client as a platform user with a trading account (balance 0); an already registered e-mail gets only the trading account',
        params: recordIdParam,
        body: registerClientUserSchema,
        response: { 201: registerClientUserResponseSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await registerClientUser(deps.db, request.auth!.actor, request.params.id, request.body, deps.mail)),
  );

  app.put(
    '/api/clients/:id/change-password',
    {
      schema: {
        tags: ['clients'],
        summary: 'Set the client user’s password (its sessions end)',
        params: recordIdParam,
        body: clientChangePasswordSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) =>
      changeClientPassword(deps.db, request.auth!.actor, request.params.id, request.body.new_password, deps.mail),
  );

  app.post(
    '/api/clients/:id/verify-identity',
    {
      schema: {
        tags: ['clients'],
        summary:
          "Confirm the identity of a client whose self-registration was linked to an existing lead: credits the lead's pending deposits and opens withdrawals",
        params: recordIdParam,
        response: { 200: verifyIdentityResponseSchema, ...errors },
      },
    },
    async (request) => verifyClientIdentity(deps, request.auth!.actor, request.params.id),
  );

  app.get(
    '/api/clients/:id/summary',
    {
      schema: {
        tags: ['clients'],
        summary: 'The card’s statistics, trading account id and first three withdrawal requests',
        params: recordIdParam,
        response: { 200: clientSummarySchema, ...errors },
      },
    },
    async (request) => clientSummary(deps.db, request.auth!.actor, request.params.id),
  );
};
