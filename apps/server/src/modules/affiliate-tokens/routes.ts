import {
  affiliateTokenSchema,
  affiliateTokensResponseSchema,
  affiliateTokenWhitelistSchema,
  createAffiliateTokenQuerySchema,
  errorSchema,
  okSchema,
  recordIdParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import {
  createAffiliateToken,
  deleteAffiliateToken,
  listAffiliateTokens,
  setAffiliateTokenWhitelist,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/** §2.11 'Affiliates' tab: the affiliate tokens of the external API (D13, D17); integration.manage. */
export const affiliateTokenRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/affiliate-tokens',
    {
      schema: {
        tags: ['affiliate-tokens'],
        summary: 'The live affiliate tokens, newest first; `token` is the masked form first8...last4',
        response: { 200: affiliateTokensResponseSchema, ...errors },
      },
    },
    async () => listAffiliateTokens(deps.db),
  );

  app.post(
    '/api/affiliate-tokens',
    {
      schema: {
        tags: ['affiliate-tokens'],
        summary:
          'Create a token and its affiliate (same name, status active). `token` is the full token, in this answer only',
        querystring: createAffiliateTokenQuerySchema,
        response: { 201: affiliateTokenSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createAffiliateToken(deps.db, request.query.name, request.auth!.actor)),
  );

  app.put(
    '/api/affiliate-tokens/:id/whitelist',
    {
      schema: {
        tags: ['affiliate-tokens'],
        summary:
          'Replace the token’s IP whitelist: IPv4/IPv6 addresses and CIDR ranges; an empty list lets any address in',
        params: recordIdParam,
        body: affiliateTokenWhitelistSchema,
        response: { 200: affiliateTokenSchema, ...errors },
      },
    },
    async (request) => setAffiliateTokenWhitelist(deps.db, request.params.id, request.body, request.auth!.actor),
  );

  app.delete(
    '/api/affiliate-tokens/:id',
    {
      schema: {
        tags: ['affiliate-tokens'],
        summary: 'Delete (revoke) a token at once; its affiliate and the affiliate’s leads stay',
        params: recordIdParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await deleteAffiliateToken(deps.db, request.params.id, request.auth!.actor);
      return { ok: true as const };
    },
  );
};
