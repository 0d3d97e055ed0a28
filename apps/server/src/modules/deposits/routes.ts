import {
  depositCreateSchema,
  depositUpdateSchema,
  depositWriteResponseSchema,
  depositsQuerySchema,
  depositsResponseSchema,
  errorSchema,
  recordIdParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { IDEMPOTENCY_HEADER, runIdempotent } from '../../platform/http/idempotency.js';
import { publishBalanceChanged } from '../ledger/live.js';
import { idempotencyHeaders } from '../../platform/http/idempotency.js';
import { createDeposit, deleteDeposit, listDeposits, updateDeposit, type DepositDeps } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** Deposits recorded by staff (back-office.md §2.6, §2.10, §7; decisions.md D3, D5). */
export const depositRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, opts) => {
  const deps: DepositDeps = {
    db: opts.deps.db,
    timeZone: opts.deps.config.BUSINESS_TIMEZONE,
    secondApprovalCents: Math.round(opts.deps.config.MANUAL_CREDIT_SECOND_APPROVAL * 100),
  };
  const approval = { secondApprovalCents: deps.secondApprovalCents ?? 0 };
  /** After a write has committed: tell the client's open screens their balance moved (D11). */
  const announce = async (body: { client_id: number; balance: number | null }) => {
    if (body.balance === null) return;
    const account = await deps.db
      .selectFrom('trading_accounts')
      .select('id')
      .where('client_id', '=', body.client_id)
      .executeTakeFirst();
    if (account) await publishBalanceChanged(deps.db, opts.deps.bus, [Number(account.id)]);
  };

  app.get(
    '/api/deposits',
    {
      schema: {
        tags: ['deposits'],
        summary:
          'Deposits of the clients in scope (the card with client_id, the history otherwise), with summary cards',
        querystring: depositsQuerySchema,
        response: { 200: depositsResponseSchema, ...errors },
      },
    },
    async (request) => listDeposits(deps, request.auth!.actor, request.query),
  );

  app.post(
    '/api/deposits',
    {
      schema: {
        tags: ['deposits'],
        summary:
          'Record a deposit: credits the client’s trading account through the ledger (first deposit ftd, later reload)',
        headers: idempotencyHeaders,
        body: depositCreateSchema,
        response: { 201: depositWriteResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = request.auth!.actor;
      const result = await runIdempotent(
        deps.db,
        {
          userId: request.auth!.user.id,
          route: 'POST /api/deposits',
          key: request.headers[IDEMPOTENCY_HEADER],
          request: request.body,
        },
        async (trx) => ({
          status: 201,
          body: await createDeposit(trx, actor, request.body, approval, { mail: opts.deps.mail }),
        }),
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else await announce(result.body);
      return reply.status(201).send(result.body);
    },
  );

  app.put(
    '/api/deposits/:id',
    {
      schema: {
        tags: ['deposits'],
        summary: 'Change a deposit’s amount and notes: posts a correction of the difference',
        params: recordIdParam,
        body: depositUpdateSchema,
        response: { 200: depositWriteResponseSchema, ...errors },
      },
    },
    async (request) => {
      const result = await updateDeposit(deps, request.auth!.actor, request.params.id, request.body);
      await announce(result);
      return result;
    },
  );

  app.delete(
    '/api/deposits/:id',
    {
      schema: {
        tags: ['deposits'],
        summary: 'Delete a deposit: posts a correction of −amount, refused if the balance would go below 0',
        params: recordIdParam,
        response: { 200: depositWriteResponseSchema, ...errors },
      },
    },
    async (request) => {
      const result = await deleteDeposit(deps, request.auth!.actor, request.params.id);
      await announce(result);
      return result;
    },
  );
};
