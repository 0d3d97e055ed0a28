import {
  createIpRequestSchema,
  errorSchema,
  intIdParam,
  ipWhitelistEntrySchema,
  ipWhitelistResponseSchema,
  okSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { addToWhitelist, listWhitelist, removeFromWhitelist } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

export const accessListRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/ip-whitelist',
    {
      schema: {
        tags: ['access'],
        summary: 'The staff IP whitelist and the caller’s address',
        response: { 200: ipWhitelistResponseSchema, ...errors },
      },
    },
    async (request) => ({ items: await listWhitelist(deps.db), your_ip: request.ip }),
  );

  app.post(
    '/api/ip-whitelist',
    {
      schema: {
        tags: ['access'],
        summary: 'Add an IPv4/IPv6 address or CIDR range',
        body: createIpRequestSchema,
        response: { 201: ipWhitelistEntrySchema, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await addToWhitelist(deps, request.body, request.auth!.actor)),
  );

  app.delete(
    '/api/ip-whitelist/:id',
    {
      schema: {
        tags: ['access'],
        summary: 'Remove an entry',
        params: intIdParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await removeFromWhitelist(deps, request.params.id, request.auth!.actor);
      return { ok: true as const };
    },
  );
};
