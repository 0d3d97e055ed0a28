import {
  cancelManualCreditSchema,
  confirmManualCreditSchema,
  errorSchema,
  fundsIdParam,
  manualCreditSchema,
  manualCreditsQuerySchema,
  manualCreditsResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { cancelManualCredit, confirmManualCredit, listManualCredits, type ManualCreditDeps } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** Manual credits waiting for a second staff member (decisions.md D20): list, confirm, cancel; scoped by D5. */
export const manualCreditRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, opts) => {
  const deps: ManualCreditDeps = { db: opts.deps.db, bus: opts.deps.bus, mail: opts.deps.mail };

  app.get(
    '/api/manual-credits',
    {
      schema: {
        tags: ['manual-credits'],
        summary: 'Manual credits of the clients in scope, by status (default pending, oldest first)',
        querystring: manualCreditsQuerySchema,
        response: { 200: manualCreditsResponseSchema, ...errors },
      },
    },
    async (request) => listManualCredits(deps, request.auth!.actor, request.query),
  );

  app.post(
    '/api/manual-credits/:id/confirm',
    {
      schema: {
        tags: ['manual-credits'],
        summary: 'Confirm a pending credit: the money is posted through the ledger (never by its author)',
        description:
          'The body names the amount the confirmer saw ({"amount": 1500}); when the credit asks for another amount ' +
          '(or was replaced because its deposit was edited) the answer is 409 with code credit_amount_changed and ' +
          'nothing moves. A credit confirmed before answers 200 with its state and nothing moves again; a cancelled ' +
          "one, or the credit's own author, answers 409.",
        params: fundsIdParam,
        body: confirmManualCreditSchema,
        response: { 200: manualCreditSchema, ...errors },
      },
    },
    async (request) => confirmManualCredit(deps, request.auth!.actor, request.params.id, request.body),
  );

  app.post(
    '/api/manual-credits/:id/cancel',
    {
      schema: {
        tags: ['manual-credits'],
        summary: 'Cancel a pending credit with a reason: nothing moves (a deposit stays recorded and uncredited)',
        params: fundsIdParam,
        body: cancelManualCreditSchema,
        response: { 200: manualCreditSchema, ...errors },
      },
    },
    async (request) => cancelManualCredit(deps, request.auth!.actor, request.params.id, request.body),
  );
};
