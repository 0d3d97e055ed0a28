import {
  errorSchema,
  statementExportQuerySchema,
  statementQuerySchema,
  statementResponseSchema,
} from '@brokerage/shared';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { langOf } from '../../platform/http/messages.js';
import { exportStatement, statement } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/** The client's account statement (issue 14, item 3): their own ledger, read only. */
export const statementRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/trading/statement',
    {
      schema: {
        tags: ['trading'],
        summary:
          "The client's account statement: ledger entries of the period (oldest first, paged) with the opening and closing balance of the page",
        querystring: statementQuerySchema,
        response: { 200: statementResponseSchema, ...errors },
      },
    },
    async (request) => statement(deps.db, request.auth!.user.id, request.query),
  );

  app.get(
    '/api/trading/statement/export',
    {
      // A download: no HEAD (it would build the whole file, and write its audit row, for an answer without it).
      exposeHeadRoute: false,
      // A whole file: the bulk bound, not REQUEST_TIMEOUT_MS (platform/http/timeouts.ts).
      handlerTimeout: deps.config.BULK_REQUEST_TIMEOUT_MS,
      schema: {
        tags: ['trading'],
        summary:
          'The statement of a period as a file (CSV UTF-8 with BOM, or XLSX): opening balance, every entry with the balance after it, closing balance',
        querystring: statementExportQuerySchema,
        produces: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
        response: {
          200: z.string().meta({ description: 'The file, as an attachment (CSV or XLSX by `format`)' }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const file = await exportStatement(
        deps.db,
        request.auth!.user.id,
        request.query,
        langOf(request.headers['accept-language']),
      );
      return (
        reply
          .header('Content-Type', file.contentType)
          .header('Content-Disposition', `attachment; filename="${file.fileName}"`)
          .header('Cache-Control', 'no-store')
          // A stream or a text with its own content type is sent as it is (no JSON serialisation).
          .send(file.body as string)
      );
    },
  );
};
