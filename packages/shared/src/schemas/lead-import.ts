import { z } from 'zod';

/**
 * File import of leads (back-office.md §2.11 'File upload', §3 'Upload result', §7 POST /upload-clients; issue 10).
 * The four columns every file must have, named as the CSV template names them; the server also accepts the Russian
 * names and a few synonyms (apps/server/src/modules/imports/parse/headers.ts).
 */
export const LEAD_IMPORT_REQUIRED_COLUMNS = ['full name', 'Email', 'Phone', 'Country'] as const;

/** Optional columns: the lead's campaign and source. */
export const LEAD_IMPORT_OPTIONAL_COLUMNS = ['Campaign', 'Source'] as const;

/** The file types offered by the picker; the server decides by the name's extension and checks the content. */
export const LEAD_IMPORT_EXTENSIONS = ['.csv', '.xlsx', '.xls'] as const;

/**
 * The size limit the page checks before sending (§5: 'Файл больше 10 МБ', in the browser and by the server). The
 * server's limit is its UPLOAD_MAX_MB setting (default the same 10) and is the one that counts.
 */
export const LEAD_IMPORT_MAX_MB = 10;

/** How many rejected rows the answer lists; the downloadable CSV has more (LEAD_IMPORT_REJECTED_KEPT). */
export const LEAD_IMPORT_REJECTED_SHOWN = 100;

/**
 * How many rejected rows the downloadable CSV holds: the first ones in file order; the rest are only counted
 * (`rejected_csv_omitted`), so a file of rejected rows cannot fill the server's memory (issue 20).
 */
export const LEAD_IMPORT_REJECTED_KEPT = 10_000;

/** How long the rejected rows of an import stay downloadable. */
export const LEAD_IMPORT_REJECTED_TTL_HOURS = 24;

export const rejectedRowSchema = z.object({
  /** The row's number in the file, the header being row 1 (as a spreadsheet numbers it). */
  row: z.number().int(),
  reason: z.string(),
});
export type RejectedRow = z.infer<typeof rejectedRowSchema>;

/** The answer of POST /api/upload-clients, with the spec's names. */
export const uploadClientsResultSchema = z.object({
  message: z.string(),
  /** Data rows read (blank rows are not counted here, though they count toward the file's row limit). */
  total_processed: z.number().int(),
  clients_created: z.number().int(),
  /** Rows whose e-mail (any letter case) or E.164 phone is already in the base or on an earlier row of the file. */
  duplicates_found: z.number().int(),
  /** Rows missing a required field, with a malformed e-mail, a phone that cannot be parsed, or a field too long. */
  skipped_incomplete: z.number().int(),
  details: z.object({
    /** The campaign(s) of the created leads when the file has a campaign column, else null. */
    campaign: z.string().nullable(),
  }),
  /** The first LEAD_IMPORT_REJECTED_SHOWN rows not created (incomplete or duplicate), in file order. */
  rejected: z.array(rejectedRowSchema),
  /**
   * Link to the rejected rows with their reasons, as CSV (same permission, kept 24 h): the first
   * LEAD_IMPORT_REJECTED_KEPT of them; null when none was rejected.
   */
  rejected_csv: z.string().nullable(),
  /** Rejected rows left out of that CSV (those after the first LEAD_IMPORT_REJECTED_KEPT); 0 when it holds them all. */
  rejected_csv_omitted: z.number().int(),
});
export type UploadClientsResult = z.infer<typeof uploadClientsResultSchema>;

/**
 * The multipart body, for the OpenAPI document only: the route reads the stream itself (the file is parsed while it
 * arrives), so nothing is validated against this.
 */
export const uploadClientsBodySchema = z.unknown().meta({
  type: 'object',
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      description: 'CSV (UTF-8, comma or semicolon), XLSX or XLS with the columns full name, Email, Phone, Country',
    },
  },
  required: ['file'],
});

export const leadImportIdParam = z.strictObject({ id: z.uuid({ error: 'invalid_value' }) });
