import {
  bulkAssignResponseSchema,
  bulkAssignSchema,
  CLIENT_FILTER_OPTIONS_LIMIT,
  clientCreateSchema,
  clientDetailSchema,
  clientFilterOptionsSchema,
  clientSchema,
  clientUpdateSchema,
  clientsQuerySchema,
  clientsResponseSchema,
  errorSchema,
  intIdParam,
  recordIdParam,
  type ClientFilterOptions,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import {
  bulkAssignManager,
  clientFilterOptions,
  createClient,
  getClient,
  listClients,
  scopeKey,
  updateClient,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/**
 * How long this process reuses a scope's filter options: the superadmin's answer is one scan of every client, so a
 * burst of list visits costs one scan. A write through this process (add, edit, bulk assign) clears the cache.
 */
const FILTER_OPTIONS_TTL_MS = 30_000;

export const clientsRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const optionsCache = new Map<string, { at: number; value: Promise<ClientFilterOptions> }>();
  app.addHook('onResponse', async (request, reply) => {
    if (request.method !== 'GET' && reply.statusCode < 300 && request.url.startsWith('/api/clients'))
      optionsCache.clear();
  });

  app.get(
    '/api/clients/filter-options',
    {
      schema: {
        tags: ['clients'],
        summary:
          'Distinct countries, campaigns and (for the affiliates filter’s roles) affiliates of the clients in scope, most frequent first, sorted by name',
        response: { 200: clientFilterOptionsSchema, ...errors },
      },
    },
    async (request) => {
      const actor = request.auth!.actor;
      const key = scopeKey(actor);
      const now = Date.now();
      const hit = optionsCache.get(key);
      if (hit && now - hit.at < FILTER_OPTIONS_TTL_MS) return hit.value;
      const value = clientFilterOptions(deps, actor, CLIENT_FILTER_OPTIONS_LIMIT);
      optionsCache.set(key, { at: now, value });
      // A failed query is not kept.
      value.catch(() => optionsCache.delete(key));
      return value;
    },
  );

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
        response: { 200: clientDetailSchema, ...errors },
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
    async (request) => {
      const client = await updateClient(deps, request.params.id, request.body, request.auth!.actor);
      // A new manager changes who may watch the client's account live (issue 9 finding 4).
      if (request.body.assigned_manager !== undefined) deps.bus.publish({ type: 'access.changed' });
      return client;
    },
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
    async (request) => {
      const result = await bulkAssignManager(deps, request.body, request.auth!.actor);
      deps.bus.publish({ type: 'access.changed' });
      return result;
    },
  );
};
