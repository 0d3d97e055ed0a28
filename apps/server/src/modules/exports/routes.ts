import { clientsQuerySchema, depositsQuerySchema, errorSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../platform/deps.js';
import { langOf } from '../../platform/http/messages.js';
import { exportClients, exportDeposits, type ExportRun } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

function sendXlsx(reply: FastifyReply, run: ExportRun) {
  // The receiver went away before the end: stop reading the database (the export's audit row says it did not complete).
  reply.raw.once('close', () => {
    if (!run.stream.readableEnded) run.cancel();
  });
  // The name is plain ASCII (a date), so the simple form of Content-Disposition is enough (§7 reads it from there).
  return reply
    .header('Content-Type', XLSX_TYPE)
    .header('Content-Disposition', `attachment; filename="${run.filename}"`)
    .header('Cache-Control', 'no-store')
    .send(run.stream);
}

/**
 * Excel exports (back-office.md §2.5 'Excel', §2.10 'Export'; decisions.md D5, D9). They take the lists' own query
 * parameters (paging and sort are accepted and ignored: an export holds every matching row, newest first).
 */
export const exportRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/clients/export/excel',
    {
      // A download: no HEAD (it would build the whole file, and write its audit row, for an answer without it).
      exposeHeadRoute: false,
      // A whole file: the bulk bound, not REQUEST_TIMEOUT_MS (platform/http/timeouts.ts).
      handlerTimeout: deps.config.BULK_REQUEST_TIMEOUT_MS,
      schema: {
        tags: ['clients'],
        summary: 'XLSX of the clients matching the list filters (GET /api/clients parameters), streamed',
        querystring: clientsQuerySchema,
        produces: [XLSX_TYPE],
        response: errors,
      },
    },
    async (request, reply) => {
      const { page: _page, per_page: _perPage, sort: _sort, order: _order, ...filters } = request.query;
      const run = await exportClients(
        deps,
        request.auth!.actor,
        filters,
        langOf(request.headers['accept-language']),
        request.log,
      );
      return sendXlsx(reply, run);
    },
  );

  app.get(
    '/api/deposits/export/excel',
    {
      // A download: no HEAD (it would build the whole file, and write its audit row, for an answer without it).
      exposeHeadRoute: false,
      // A whole file: the bulk bound, not REQUEST_TIMEOUT_MS (platform/http/timeouts.ts).
      handlerTimeout: deps.config.BULK_REQUEST_TIMEOUT_MS,
      schema: {
        tags: ['deposits'],
        summary: 'XLSX of the deposit history matching its filters (GET /api/deposits parameters), streamed',
        querystring: depositsQuerySchema,
        produces: [XLSX_TYPE],
        response: errors,
      },
    },
    async (request, reply) => {
      const { page: _page, per_page: _perPage, order: _order, ...filters } = request.query;
      const run = await exportDeposits(
        deps,
        request.auth!.actor,
        filters,
        langOf(request.headers['accept-language']),
        request.log,
      );
      return sendXlsx(reply, run);
    },
  );
};
