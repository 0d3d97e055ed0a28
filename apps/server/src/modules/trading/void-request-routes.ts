import {
  errorSchema,
  fundsIdParam,
  rejectVoidRequestSchema,
  tradeVoidRequestSchema,
  voidRequestsQuerySchema,
  voidRequestsResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TradingEngine } from './engine.js';
import {
  confirmVoidRequest,
  listVoidRequests,
  rejectVoidRequest,
  withdrawVoidRequest,
  type VoidRequestDeps,
} from './void-requests.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/**
 * Voids waiting for a second staff member (issue 20 finding 11, decisions.md D20 'Voids'): list (finance.view),
 * confirm and reject (finance.approve), withdraw (trading.manage, the requester only), scoped by D5. They are asked for by POST …/accounts/:accountId/void-trade.
 */
export const voidRequestRoutes: FastifyPluginAsyncZod<{ engine: TradingEngine }> = async (app, { engine }) => {
  const deps: VoidRequestDeps = { db: engine.tradingDeps().db, now: () => engine.now(), bus: engine.bus };

  app.get(
    '/api/void-requests',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Voids of trades of the clients in scope, by status (default pending, oldest first)',
        description:
          'Read only: a request whose trade reached its expiry or settled while it waited is answered as lapsed ' +
          '(status=lapsed lists it, status=pending no longer does), with its decided_at the moment it lapsed.',
        querystring: voidRequestsQuerySchema,
        response: { 200: voidRequestsResponseSchema, ...errors },
      },
    },
    async (request) => listVoidRequests(deps, request.auth!.actor, request.query),
  );

  app.post(
    '/api/void-requests/:id/confirm',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Confirm a void (never its requester): the trade is voided and its stake returned through the ledger',
        description:
          'A void confirmed before answers 200 with its state and nothing moves again; its requester, a rejected or ' +
          'withdrawn request, or a trade that reached its expiry before the confirmation (the request lapses) ' +
          'answers 409.',
        params: fundsIdParam,
        response: { 200: tradeVoidRequestSchema, ...errors },
      },
    },
    async (request) => confirmVoidRequest(deps, request.auth!.actor, request.params.id),
  );

  app.post(
    '/api/void-requests/:id/reject',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Reject a void with a reason: nothing moves and the trade settles at its expiry',
        params: fundsIdParam,
        body: rejectVoidRequestSchema,
        response: { 200: tradeVoidRequestSchema, ...errors },
      },
    },
    async (request) => rejectVoidRequest(deps, request.auth!.actor, request.params.id, request.body),
  );

  app.post(
    '/api/void-requests/:id/withdraw',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Withdraw your own void request while it waits: nothing moves and the trade settles at its expiry',
        description:
          'Only its requester (403 for anyone else). A confirmed, rejected or withdrawn request, or one whose trade ' +
          'reached its expiry (the request lapses), answers 409.',
        params: fundsIdParam,
        response: { 200: tradeVoidRequestSchema, ...errors },
      },
    },
    async (request) => withdrawVoidRequest(deps, request.auth!.actor, request.params.id),
  );
};
