import {
  bulkAssignResponseSchema,
  bulkAssignSchema,
  clientCreateSchema,
  clientSchema,
  clientUpdateSchema,
  clientsQuerySchema,
  clientsResponseSchema,
  errorSchema,
  intIdParam,
  recordIdParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { bulkAssignManager, createClient, getClient, listClients, updateClient } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

export const clientsRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'Clients the caller may see, filtered, sorted and paged by the server',
        querystring: clientsQuerySchema,
        response: { 200: clientsResponseSchema, ...errors },
      },
    },
    async (request) => listClients(deps, request.query, request.auth!.actor),
  );

  app.get(
    '/api/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'One client; 404 when missing or outside the caller’s scope',
        params: intIdParam,
        response: { 200: clientSchema, ...errors },
      },
    },
    async (request) => getClient(deps, request.params.id, request.auth!.actor),
  );
  app.post(
    '/api/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'Add a client; status new unless chosen; a manager’s new client is assigned to them',
        body: clientCreateSchema,
        response: { 201: clientSchema, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await createClient(deps, request.body, request.auth!.actor)),
  );

  app.put(
    '/api/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'Change a client’s fields; a different manager needs clients.change_manager',
        params: recordIdParam,
        body: clientUpdateSchema,
        response: { 200: clientSchema, ...errors },
      },
    },
    async (request) => updateClient(deps, request.params.id, request.body, request.auth!.actor),
  );

  app.post(
    '/api/clients/bulk-assign-manager',
    {
      schema: {
        tags: ['clients'],
        summary: 'Assign (or clear) the manager and optionally the status of the selected clients in scope',
        body: bulkAssignSchema,
        response: { 200: bulkAssignResponseSchema, ...errors },
      },
    },
    async (request) => bulkAssignManager(deps, request.body, request.auth!.actor),
  );
};
