import {
  accountDetailResponseSchema,
  accountIdParam,
  accountSettingsRequestSchema,
  accountTradeIdParam,
  accountsQuerySchema,
  accountsResponseSchema,
  activeTradesResponseSchema,
  awaitingConfirmationSchema,
  balanceChangeRequestSchema,
  balanceChangeResponseSchema,
  clientIdParam,
  createAccountRequestSchema,
  errorSchema,
  tradeAuditSchema,
  tradeProofSchema,
  ledgerQuerySchema,
  ledgerResponseSchema,
  tradingAccountSchema,
  tradeVoidRequestSchema,
  voidTradeRequestSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IDEMPOTENCY_HEADER, runIdempotent } from '../../platform/http/idempotency.js';
import { publishBalanceChanged } from '../ledger/live.js';
import {
  accountDetail,
  accountLedger,
  activeTrades,
  changeBalance,
  listAccounts,
  openAccountForClient,
  setAccountStatus,
  updateSettings,
  type AdminDeps,
} from './admin.js';
import { requestVoid } from './void-requests.js';
import { langOf } from '../../platform/http/messages.js';
import { staffTradeAudit } from './audit.js';
import { tradeProof } from '../price-log/proof.js';
import type { TradingEngine } from './engine.js';
import { idempotencyHeaders } from '../../platform/http/idempotency.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/**
 * Trading administration (back-office.md §7 with decisions.md D1): permission trading.manage, and every account
 * reached through the client scope of D5. There is no call that settles a trade or picks its result.
 */
export const tradingAdminRoutes: FastifyPluginAsyncZod<{
  engine: TradingEngine;
  manualCreditMaxCents: number;
  /** MANUAL_CREDIT_SECOND_APPROVAL in cents (D20). */
  secondApprovalCents?: number;
}> = async (app, { engine, manualCreditMaxCents, secondApprovalCents }) => {
  const deps: AdminDeps = {
    db: engine.tradingDeps().db,
    now: () => engine.now(),
    bus: engine.bus,
    manualCreditMaxCents,
    secondApprovalCents: secondApprovalCents ?? 0,
  };

  app.get(
    '/api/trading/admin/accounts',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Trading accounts of the clients in scope: filtered, sorted and paged, with the summary cards',
        querystring: accountsQuerySchema,
        response: { 200: accountsResponseSchema, ...errors },
      },
    },
    async (request) => listAccounts(deps, request.auth!.actor, request.query),
  );

  app.get(
    '/api/trading/admin/accounts/:accountId',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'One trading account with its active trades and its 50 newest closed trades',
        params: accountIdParam,
        response: { 200: accountDetailResponseSchema, ...errors },
      },
    },
    async (request) => accountDetail(deps, request.auth!.actor, request.params.accountId),
  );

  app.get(
    '/api/trading/admin/accounts/:accountId/active-trades',
    {
      schema: {
        tags: ['trading-admin'],
        summary: "The account's active trades",
        params: accountIdParam,
        response: { 200: activeTradesResponseSchema, ...errors },
      },
    },
    async (request) => ({ activeTrades: await activeTrades(deps, request.auth!.actor, request.params.accountId) }),
  );

  app.get(
    '/api/trading/admin/accounts/:accountId/ledger',
    {
      schema: {
        tags: ['trading-admin'],
        summary: "The account's ledger, newest first: every balance change with its cause, author and reason",
        params: accountIdParam,
        querystring: ledgerQuerySchema,
        response: { 200: ledgerResponseSchema, ...errors },
      },
    },
    async (request) => accountLedger(deps, request.auth!.actor, request.params.accountId, request.query),
  );

  app.post(
    '/api/trading/admin/accounts/:accountId/void-trade',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Ask to void an active trade, with a reason: the void waits for a second staff member',
        description:
          'Nothing moves: answers 202 with the void request (who asked, why, when). A second staff member with ' +
          'finance.approve who did not ask confirms it (POST /api/void-requests/{id}/confirm: the trade is voided and ' +
          'its stake returned) or rejects it; its requester may withdraw it (POST /api/void-requests/{id}/withdraw); ' +
          'a trade that reaches its expiry first makes the request lapse (issue 20 finding 11). A trade already past ' +
          'its expiry, settled or not, answers 409. A retry with the same Idempotency-Key answers the first answer.',
        headers: idempotencyHeaders,
        params: accountIdParam,
        body: voidTradeRequestSchema,
        response: { 202: tradeVoidRequestSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = request.auth!.actor;
      const result = await runIdempotent(
        deps.db,
        {
          userId: actor.id!,
          route: 'POST /api/trading/admin/accounts/:accountId/void-trade',
          key: request.headers[IDEMPOTENCY_HEADER],
          request: { params: request.params, body: request.body },
        },
        async (trx) => ({
          status: 202,
          body: await requestVoid(deps, trx, actor, request.params.accountId, request.body),
        }),
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(result.status).send(result.body);
    },
  );

  app.post(
    '/api/trading/admin/accounts/:accountId/balance',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Set, add to or subtract from the balance, with a reason, as one ledger entry (never below 0)',
        description:
          'A raise above MANUAL_CREDIT_SECOND_APPROVAL (decisions.md D20) moves nothing: it answers 202 ' +
          '{status: "awaiting_confirmation", credit_id} and waits for a second staff member (POST /api/manual-credits/{id}/confirm).',
        headers: idempotencyHeaders,
        params: accountIdParam,
        body: balanceChangeRequestSchema,
        response: { 200: balanceChangeResponseSchema, 202: awaitingConfirmationSchema, ...errors },
      },
    },
    async (request, reply) => {
      const actor = request.auth!.actor;
      const result = await runIdempotent(
        deps.db,
        {
          userId: actor.id!,
          route: 'POST /api/trading/admin/accounts/:accountId/balance',
          key: request.headers[IDEMPOTENCY_HEADER],
          request: { params: request.params, body: request.body },
        },
        async (trx) => {
          const body = await changeBalance(deps, trx, actor, request.params.accountId, request.body);
          return { status: 'status' in body ? 202 : 200, body };
        },
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else if ('entry' in result.body && result.body.entry)
        await publishBalanceChanged(deps.db, engine.bus, [request.params.accountId]);
      return reply.status(result.status).send(result.body);
    },
  );

  app.put(
    '/api/trading/admin/accounts/:accountId/settings',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Trading settings: trading_enabled, max_trade_amount (dollars), payout_percentage (1–100)',
        params: accountIdParam,
        body: accountSettingsRequestSchema,
        response: { 200: tradingAccountSchema, ...errors },
      },
    },
    async (request) => updateSettings(deps, request.auth!.actor, request.params.accountId, request.body),
  );

  for (const action of ['block', 'activate'] as const) {
    app.post(
      `/api/trading/admin/accounts/:accountId/${action}`,
      {
        schema: {
          tags: ['trading-admin'],
          summary: action === 'block' ? 'Block an active account' : 'Activate a blocked or demo account',
          params: accountIdParam,
          response: { 200: tradingAccountSchema, ...errors },
        },
      },
      async (request) => setAccountStatus(deps, request.auth!.actor, request.params.accountId, action),
    );
  }

  app.put(
    '/api/trading/admin/balance/:clientId',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'Open the trading account (balance 0) of a registered client that has none',
        params: clientIdParam,
        body: createAccountRequestSchema,
        response: { 200: tradingAccountSchema, 201: tradingAccountSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { account, created } = await openAccountForClient(deps, request.auth!.actor, request.params.clientId);
      return reply.status(created ? 201 : 200).send(account);
    },
  );

  app.get(
    '/api/trading/admin/accounts/:accountId/trades/:id/audit',
    {
      schema: {
        tags: ['trading-admin'],
        summary: 'The contract audit of a trade of the account: the trade, the settlement rule and the stored ticks',
        description: 'The same answer the client gets for the trade (GET /api/trading/trades/{id}/audit).',
        params: accountTradeIdParam,
        response: { 200: tradeAuditSchema, ...errors },
      },
    },
    async (request) =>
      staffTradeAudit(
        deps.db,
        request.auth!.actor,
        request.params.accountId,
        request.params.id,
        deps.now(),
        langOf(request.headers['accept-language']),
      ),
  );

  app.get(
    '/api/trading/admin/accounts/:accountId/trades/:id/proof',
    {
      // A download: no HEAD (it would build the whole proof for an answer without it).
      exposeHeadRoute: false,
      schema: {
        tags: ['trading-admin'],
        summary: 'The proof of a settled trade of the account (the price log inclusion proofs of its ticks), as a file',
        description: 'The same document the client gets for the trade (GET /api/trading/trades/{id}/proof).',
        params: accountTradeIdParam,
        response: { 200: tradeProofSchema, ...errors },
      },
    },
    async (request, reply) => {
      const doc = await tradeProof(deps.db, request.params.id, {
        actor: request.auth!.actor,
        accountId: request.params.accountId,
      });
      return reply
        .header('Content-Disposition', `attachment; filename="trade-${doc.trade.id}-proof.json"`)
        .header('Cache-Control', 'no-store')
        .send(doc);
    },
  );
};
