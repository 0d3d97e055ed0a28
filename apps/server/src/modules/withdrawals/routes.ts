import {
  createWithdrawResponseSchema,
  errorSchema,
  fundsIdParam,
  myWithdrawRequestsQuerySchema,
  myWithdrawRequestsResponseSchema,
  rejectWithdrawRequestSchema,
  revealCardResponseSchema,
  staffWithdrawRequestSchema,
  withdrawRequestSchema,
  withdrawRequestsQuerySchema,
  withdrawRequestsResponseSchema,
} from '@brokerage/shared';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { parseOptionalBody } from '../../platform/http/optional-body.js';
import { IDEMPOTENCY_HEADER, runIdempotent } from '../../platform/http/idempotency.js';
import { idempotencyHeaders } from '../../platform/http/idempotency.js';
import {
  approveWithdrawRequest,
  createWithdrawRequest,
  listMyWithdrawRequests,
  listWithdrawRequests,
  rejectWithdrawRequest,
  revealCard,
  type WithdrawalDeps,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/**
 * Withdrawal requests: the client files one (its amount is held at once), staff with finance.view process the
 * requests of the clients in their scope (back-office.md §2.9, §7; D3, D5, D7).
 */
export const withdrawalRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; now?: () => Date }> = async (app, opts) => {
  const deps: WithdrawalDeps = {
    db: opts.deps.db,
    vault: opts.deps.vault,
    timeZone: opts.deps.config.BUSINESS_TIMEZONE,
    now: opts.now ?? (() => new Date()),
    bus: opts.deps.bus,
    secondApprovalCents: Math.round(opts.deps.config.WITHDRAWAL_SECOND_APPROVAL * 100),
    mail: opts.deps.mail,
  };

  app.post(
    '/api/withdraw-requests',
    {
      schema: {
        tags: ['withdrawals'],
        summary: 'File a card withdrawal request; the amount is held from the balance at once (no CVV is taken)',
        headers: idempotencyHeaders,
        body: withdrawRequestSchema,
        response: { 201: createWithdrawResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const userId = request.auth!.user.id;
      const result = await runIdempotent(
        deps.db,
        {
          userId,
          route: 'POST /api/withdraw-requests',
          key: request.headers[IDEMPOTENCY_HEADER],
          request: request.body,
        },
        async (trx) => ({ status: 201, body: await createWithdrawRequest(deps, trx, userId, request.body) }),
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else
        opts.deps.bus.publish({ type: 'balance.changed', user_id: userId, payload: { balance: result.body.balance } });
      return reply.status(201).send(result.body);
    },
  );

  app.get(
    '/api/my-withdraw-requests',
    {
      schema: {
        tags: ['withdrawals'],
        summary: "The caller's own withdrawal requests, newest first, paged; cards masked",
        querystring: myWithdrawRequestsQuerySchema,
        response: { 200: myWithdrawRequestsResponseSchema, ...errors },
      },
    },
    async (request) => listMyWithdrawRequests(deps, request.auth!.user.id, request.query),
  );

  app.get(
    '/api/withdraw-requests',
    {
      schema: {
        tags: ['withdrawals'],
        summary:
          'Withdrawal requests of the clients in scope: filtered and paged, with the summary cards; cards masked',
        querystring: withdrawRequestsQuerySchema,
        response: { 200: withdrawRequestsResponseSchema, ...errors },
      },
    },
    async (request) => listWithdrawRequests(deps, request.auth!.actor, request.query),
  );

  app.put(
    '/api/withdraw-requests/:id/approve',
    {
      schema: {
        tags: ['withdrawals'],
        summary: 'Approve a pending request: the held amount leaves for good (no balance change)',
        description:
          'Above WITHDRAWAL_SECOND_APPROVAL (decisions.md D20) the first approval answers the request with status ' +
          '"awaiting_second_approval" (the hold stays); a different staff member with finance.approve approves it then. ' +
          'The same person approving twice answers 409.',
        params: fundsIdParam,
        response: { 200: staffWithdrawRequestSchema, ...errors },
      },
    },
    async (request) => approveWithdrawRequest(deps, request.auth!.actor, request.params.id),
  );

  app.put(
    '/api/withdraw-requests/:id/reject',
    {
      schema: {
        tags: ['withdrawals'],
        summary: 'Reject a pending (or awaiting second approval) request: the held amount returns to the balance',
        description:
          'No body is needed. An optional JSON body {"reason": "..."} (at most 500 characters) records why; ' +
          'unknown fields are refused.',
        params: fundsIdParam,
        response: { 200: staffWithdrawRequestSchema.extend({ balance: z.number() }), ...errors },
      },
    },
    async (request) => {
      const body = parseOptionalBody(rejectWithdrawRequestSchema, request.body);
      return rejectWithdrawRequest(deps, request.auth!.actor, request.params.id, body);
    },
  );

  app.post(
    '/api/withdraw-requests/:id/reveal-card',
    {
      schema: {
        tags: ['withdrawals'],
        summary: 'The full card number of a request; each reveal is written to the audit log',
        params: fundsIdParam,
        response: { 200: revealCardResponseSchema, ...errors },
      },
    },
    async (request) => revealCard(deps, request.auth!.actor, request.params.id),
  );
};
