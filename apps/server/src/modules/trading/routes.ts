import {
  balanceResponseSchema,
  clientSettingsResponseSchema,
  errorSchema,
  openTradesResponseSchema,
  placeTradeRequestSchema,
  placeTradeResponseSchema,
  tradesQuerySchema,
  tradeAuditSchema,
  tradeIdParam,
  tradeProofSchema,
  tradeProofsBundleSchema,
  tradeProofsQuerySchema,
  tradesResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IDEMPOTENCY_HEADER, idempotencyHeaders, runIdempotentStatement } from '../../platform/http/idempotency.js';
import { langOf } from '../../platform/http/messages.js';
import { periodProofs, periodProofsFileName, tradeProof } from '../price-log/proof.js';
import { clientTradeAudit } from './audit.js';
import type { TradingEngine } from './engine.js';
import {
  balance,
  clientSettings,
  demoSettings,
  listTrades,
  openTrades,
  placeTrade,
  publishTradeOpened,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** The client's trading calls (client-platform.md §7). No call here writes a balance or chooses an outcome. */
export const tradingRoutes: FastifyPluginAsyncZod<{ engine: TradingEngine }> = async (app, { engine }) => {
  const deps = engine.tradingDeps();

  app.post(
    '/api/trading/place-trade',
    {
      schema: {
        tags: ['trading'],
        summary: "Open a trade at the server's current price; the stake leaves the balance at once",
        headers: idempotencyHeaders,
        body: placeTradeRequestSchema,
        response: { 201: placeTradeResponseSchema, ...errors, 503: errorSchema },
      },
    },
    async (request, reply) => {
      const userId = request.auth!.user.id;
      // One statement (trading/service placeTrade): no explicit transaction unless an Idempotency-Key asks for one.
      const result = await runIdempotentStatement(
        deps.db,
        {
          userId,
          route: 'POST /api/trading/place-trade',
          key: request.headers[IDEMPOTENCY_HEADER],
          request: request.body,
        },
        async (db) => ({ status: 201, body: await placeTrade(deps, db, userId, request.body) }),
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else publishTradeOpened(deps.bus, userId);
      return reply.status(201).send(result.body);
    },
  );

  app.get(
    '/api/trading/trades',
    {
      schema: {
        tags: ['trading'],
        summary: "The client's trades, newest first, paged; every trade shows its strike and close prices and times",
        querystring: tradesQuerySchema,
        response: { 200: tradesResponseSchema, ...errors },
      },
    },
    async (request) => listTrades(deps, request.auth!.user.id, request.query),
  );

  app.get(
    '/api/trading/open-trades',
    {
      schema: {
        tags: ['trading'],
        summary: "The client's active trades",
        response: { 200: openTradesResponseSchema, ...errors },
      },
    },
    async (request) => openTrades(deps, request.auth!.user.id),
  );

  app.get(
    '/api/trading/balance',
    {
      schema: {
        tags: ['trading'],
        summary: 'The trading balance and the total result of settled trades (dollars)',
        response: { 200: balanceResponseSchema, ...errors },
      },
    },
    async (request) => balance(deps, request.auth!.user.id),
  );

  app.get(
    '/api/trading/client-settings',
    {
      schema: {
        tags: ['trading'],
        summary: "The account's payout, trade limits and whether trading is allowed, and the offered durations",
        response: { 200: clientSettingsResponseSchema, ...errors },
      },
    },
    async (request) => clientSettings(deps, request.auth!.user.id),
  );

  app.get(
    '/api/trading/demo-settings',
    {
      schema: {
        tags: ['trading'],
        summary:
          "Demo mode (D16): the offered durations with a new account's default payout and limits; public, no account data",
        response: { 200: clientSettingsResponseSchema },
      },
    },
    async () => demoSettings(deps),
  );

  app.get(
    '/api/trading/trades/:id/audit',
    {
      schema: {
        tags: ['trading'],
        summary:
          "The contract audit of one of the client's trades: the trade, the settlement rule and the stored ticks",
        description:
          'The trade as stored; the rule of decisions.md D1 as a sentence (Accept-Language ru or en) and as data; the ' +
          'stored ticks from 30 s before the strike to 30 s after the expiry (an open trade: up to now); for a trade ' +
          'longer than 10 minutes the ticks around the strike and the expiry and the 1-minute candles in between.',
        params: tradeIdParam,
        response: { 200: tradeAuditSchema, ...errors },
      },
    },
    async (request) =>
      clientTradeAudit(
        deps.db,
        request.auth!.user.id,
        request.params.id,
        deps.now(),
        langOf(request.headers['accept-language']),
      ),
  );

  app.get(
    '/api/trading/trades/:id/proof',
    {
      // A download: no HEAD (it would build the whole proof for an answer without it).
      exposeHeadRoute: false,
      schema: {
        tags: ['trading'],
        summary:
          "The proof of one of the client's settled trades: its ticks with their inclusion proofs against a signed tree head",
        description:
          'The proof document of decisions.md D27 (version 1), as a file (Content-Disposition: attachment): the trade, ' +
          'the settlement rule (ru and en), the strike and close ticks and the next tick after each, each with its ' +
          'audit path in the tree of one signed head published at or before the settlement, and the public key. ' +
          'Anyone checks it with packages/verifier (`npx brokerage-verify`) or the /verify page. 409 while the trade ' +
          'is active, for a trade opened before the price log existed, and when no head published by its settlement ' +
          "covers its ticks. Another client's trade answers 404.",
        params: tradeIdParam,
        response: { 200: tradeProofSchema, ...errors },
      },
    },
    async (request, reply) => {
      const doc = await tradeProof(deps.db, request.params.id, { userId: request.auth!.user.id });
      return reply
        .header('Content-Disposition', `attachment; filename="trade-${doc.trade.id}-proof.json"`)
        .header('Cache-Control', 'no-store')
        .send(doc);
    },
  );

  app.get(
    '/api/trading/proofs',
    {
      exposeHeadRoute: false,
      schema: {
        tags: ['trading'],
        summary: "The proofs of the client's trades settled in a period, as one file",
        description:
          'The file of decisions.md D27 ({format: "brokerage-trade-proofs", version 1, from, to, proofs}): the proof ' +
          'document of every trade settled or voided in [from, to), oldest settlement first, as an attachment ' +
          '`proofs-<from>-<to>.json`. At most 1,000 trades: a longer period answers 422. A trade opened before the ' +
          'price log existed has no proof and is left out. `from` must be before `to` (else 400).',
        querystring: tradeProofsQuerySchema,
        response: { 200: tradeProofsBundleSchema, ...errors, 422: errorSchema },
      },
    },
    async (request, reply) => {
      const bundle = await periodProofs(deps.db, request.auth!.user.id, request.query);
      return reply
        .header('Content-Disposition', `attachment; filename="${periodProofsFileName(request.query)}"`)
        .header('Cache-Control', 'no-store')
        .send(bundle);
    },
  );
};
