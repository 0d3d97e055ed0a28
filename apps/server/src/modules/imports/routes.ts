import multipart from '@fastify/multipart';
import { errorSchema, leadImportIdParam, uploadClientsBodySchema, uploadClientsResultSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/errors.js';
import { langOf } from '../../platform/http/messages.js';
import { CSV_PARSE_HOOK, csvParseHookPresent } from './parse/csv.js';
import { importLeads, rejectedRowsCsv } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/**
 * Lead import (back-office.md §2.11 'File upload', §7 POST /upload-clients; issue 10). The multipart parser is
 * registered here only: no other route takes files. The file is not buffered by the framework; the service reads
 * the stream as it arrives (a workbook is gathered, then read) and busboy stops it at UPLOAD_MAX_MB (413).
 */
export const importRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const maxBytes = Math.floor(deps.config.UPLOAD_MAX_MB * 1024 * 1024);
  // Said at start-up, not only at the first CSV upload: a csv-parse upgrade that moved the hook the CSV reader needs
  // (parse/csv.ts) leaves CSV uploads refused until it is fixed.
  if (!csvParseHookPresent())
    app.log.error(
      { csvParse: CSV_PARSE_HOOK },
      'csv-parse lacks the hook the CSV import relies on: CSV uploads refused',
    );
  await app.register(multipart, {
    limits: { fileSize: maxBytes, files: 1, fields: 20, parts: 40, fieldSize: 64 * 1024, headerPairs: 200 },
  });

  app.post(
    '/api/upload-clients',
    {
      // A whole file is read and stored: the bulk bound, not REQUEST_TIMEOUT_MS (platform/http/timeouts.ts).
      handlerTimeout: deps.config.BULK_REQUEST_TIMEOUT_MS,
      schema: {
        tags: ['integration'],
        operationId: 'uploadClients',
        summary: 'Import leads from a CSV, XLSX or XLS file (multipart field `file`)',
        description:
          'Columns matched by header in any letter case, Russian or English: full name / name / ФИО / Имя, ' +
          'Email / E-mail / Почта, Phone / Телефон, Country / Страна (required); Campaign / Кампания, ' +
          'Source / Источник (optional). CSV in UTF-8 (with or without BOM), comma or semicolon separated. ' +
          'A lead whose e-mail (any case) or E.164 phone is already in the base or on an earlier row is a duplicate. ' +
          'Files over UPLOAD_MAX_MB (10 MB by default) are refused with 413; an XLSX that unpacks to more than ' +
          'IMPORT_MAX_UNPACKED_MB (200 MB), or any file of more than 500,000 rows after the header (blank ones ' +
          'count), or a sheet row with a cell not to the right of the one before it or more than 16,384 cells, with ' +
          '400. A legacy .xls is read one at a time within 512 MB and 60 s (past them 422); when more than four wait, ' +
          '503 with Retry-After. The CSV of rejected rows holds the first 10,000 of them.',
        consumes: ['multipart/form-data'],
        body: uploadClientsBodySchema,
        response: { 200: uploadClientsResultSchema, ...errors, 413: errorSchema, 422: errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      if (!request.isMultipart()) throw new HttpError(400, 'upload_no_file');
      let part: Awaited<ReturnType<typeof request.file>>;
      try {
        part = await request.file({ throwFileSizeLimit: false });
      } catch (err) {
        // busboy's refusals of a broken multipart body (no boundary, a truncated part): the caller's fault.
        const status = (err as { statusCode?: number }).statusCode;
        if (status === 413) throw new HttpError(413, 'upload_too_large', { max: deps.config.UPLOAD_MAX_MB });
        throw new HttpError(400, 'upload_malformed', { reason: err instanceof Error ? err.message : 'bad multipart' });
      }
      if (!part || part.fieldname !== 'file') {
        part?.file.resume();
        throw new HttpError(400, 'upload_no_file');
      }
      return importLeads(
        deps,
        { stream: part.file, name: part.filename ?? '', mimeType: part.mimetype ?? '' },
        request.auth!.actor,
        langOf(request.headers['accept-language']),
        request.log,
      );
    },
  );

  app.get(
    '/api/upload-clients/:id/rejected.csv',
    {
      // A download: no HEAD (it would build the whole file, and write its audit row, for an answer without it).
      exposeHeadRoute: false,
      schema: {
        tags: ['integration'],
        operationId: 'downloadRejectedClientRows',
        summary: 'The rejected rows of an import (row, reason and the lead columns) as CSV, for 24 hours',
        params: leadImportIdParam,
        produces: ['text/csv'],
        response: { 200: z.string().meta({ description: 'CSV, UTF-8 with BOM, comma-separated' }), ...errors },
      },
    },
    async (request, reply) => {
      const { csv, fileName } = await rejectedRowsCsv(deps, request.params.id);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${fileName}"`)
        .header('Cache-Control', 'no-store')
        .send(`\ufeff${csv}`);
    },
  );
};
