import {
  affiliateStatsSchema,
  affiliateUpdateResponseSchema,
  affiliateUpdateSchema,
  affiliatesResponseSchema,
  errorSchema,
  okSchema,
  recordIdParam,
  rotateSecretResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import {
  affiliateStats,
  deleteAffiliate,
  listAffiliates,
  rotateSigningSecret,
  updateAffiliate,
  type AffiliatesDeps,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** The affiliates page (back-office.md §2.13, §7; D17): superadmin and admin (affiliates.manage). */
export const affiliateRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, opts) => {
  const deps: AffiliatesDeps = {
    db: opts.deps.db,
    vault: opts.deps.vault,
    rules: { allowPrivate: opts.deps.config.ALLOW_PRIVATE_WEBHOOKS },
  };

  app.get(
    '/api/affiliates',
    {
      schema: {
        tags: ['affiliates'],
        summary: 'Affiliates (not deleted) with their leads’ count, campaigns and masked API token',
        response: { 200: affiliatesResponseSchema, ...errors },
      },
    },
    async (request) => listAffiliates(deps.db, request.auth!.actor),
  );

  app.get(
    '/api/affiliates/:id/stats',
    {
      schema: {
        tags: ['affiliates'],
        summary: 'An affiliate’s figures (clients, FTD, conversion, deposits, campaigns) and its last 20 postbacks',
        params: recordIdParam,
        response: { 200: affiliateStatsSchema, ...errors },
      },
    },
    async (request) => affiliateStats(deps.db, request.auth!.actor, request.params.id),
  );

  app.put(
    '/api/affiliates/:id',
    {
      schema: {
        tags: ['affiliates'],
        summary:
          'Edit an affiliate; the webhook URL must be https and public. The first webhook URL saved creates the postback signing secret, answered here once as signing_secret',
        params: recordIdParam,
        body: affiliateUpdateSchema,
        response: { 200: affiliateUpdateResponseSchema, ...errors },
      },
    },
    async (request) => updateAffiliate(deps, request.auth!.actor, request.params.id, request.body),
  );

  app.post(
    '/api/affiliates/:id/rotate-secret',
    {
      schema: {
        tags: ['affiliates'],
        summary: 'Replace the postback signing secret; the new one is answered this once and signs from now on',
        params: recordIdParam,
        response: { 200: rotateSecretResponseSchema, ...errors },
      },
    },
    async (request) => rotateSigningSecret(deps, request.auth!.actor, request.params.id),
  );

  app.delete(
    '/api/affiliates/:id',
    {
      schema: {
        tags: ['affiliates'],
        summary: 'Delete an affiliate (soft): its tokens are revoked, its leads keep its name',
        params: recordIdParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await deleteAffiliate(deps.db, request.auth!.actor, request.params.id);
      return { ok: true as const };
    },
  );
};
