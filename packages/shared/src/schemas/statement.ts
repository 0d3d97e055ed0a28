import { z } from 'zod';
import { LEDGER_KINDS } from '../trading/schemas.js';

/**
 * The client's account statement (issue 14, item 3). The period is two ISO 8601 instants with an offset
 * ('2026-11-01T00:00:00+05:00'): `from` inclusive, `to` exclusive; the screen sends the client's local midnights.
 * `kind` is one or more ledger kinds, repeated (?kind=deposit&kind=adjustment) or comma-separated.
 */
const instant = z.iso.datetime({ offset: true, error: 'invalid_value' });

const kinds = z
  .preprocess(
    (v) =>
      v === undefined || v === ''
        ? undefined
        : (Array.isArray(v) ? v : [v]).flatMap((s) => (typeof s === 'string' ? s.split(',') : [s])),
    z.array(z.enum(LEDGER_KINDS, { error: 'invalid_value' })).max(LEDGER_KINDS.length * 2),
  )
  .optional();

export const statementQuerySchema = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  kind: kinds,
  page: z.coerce.number().int().min(1).max(100000).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(50),
});
export type StatementQuery = z.infer<typeof statementQuerySchema>;

export const STATEMENT_FORMATS = ['csv', 'xlsx'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** An IANA time zone the runtime knows ('Asia/Almaty'). */
export const timeZoneField = z
  .string()
  .trim()
  .max(64, { error: 'max_length:64' })
  .refine(
    (tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'invalid_time_zone' },
  );

export const statementExportQuerySchema = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  kind: kinds,
  format: z.enum(STATEMENT_FORMATS, { error: 'invalid_value' }).default('csv'),
  /**
   * Issue 27 item 17: the zone the file's times are written in (the client's; the screen sends its own). The XLSX
   * holds them as date cells, the CSV as text; the time column's title names the zone. UTC when absent.
   */
  tz: timeZoneField.optional(),
});
export type StatementExportQuery = z.infer<typeof statementExportQuerySchema>;

/** At most this many entries go into one statement file; a longer period is refused with 400. */
export const STATEMENT_EXPORT_MAX_ROWS = 100_000;

export const statementEntrySchema = z.object({
  id: z.number().int(),
  /** When the entry was posted (ISO instant). */
  at: z.string(),
  kind: z.enum(LEDGER_KINDS),
  /** Signed dollars: positive credits the account. */
  amount: z.number(),
  /** The account balance right after this entry (dollars). */
  balance_after: z.number(),
  /** The reason staff gave (adjustments, voids); null otherwise. */
  reason: z.string().nullable(),
  /** The trade a stake, payout or refund belongs to. */
  trade_id: z.number().int().nullable(),
  /** The withdrawal request a hold or release belongs to. */
  withdraw_request_id: z.number().int().nullable(),
});
export type StatementEntry = z.infer<typeof statementEntrySchema>;

/**
 * Entries in ledger order (by id, oldest first). Without `kind`: opening_balance is the account balance just before
 * the page's first entry and closing_balance the balance after its last one. With `kind`: the entries of the other
 * kinds are left out, so the two figures are the running total of the selected kinds inside the period (0 at its
 * start) before and after the page. Either way opening_balance + the sum of the page's amounts = closing_balance.
 * `total` counts the entries of the whole filtered period. An empty page has opening = closing = the figure at its
 * position (the period's closing figure past the last page).
 */
export const statementResponseSchema = z.object({
  opening_balance: z.number(),
  closing_balance: z.number(),
  total: z.number().int(),
  entries: z.array(statementEntrySchema),
});
export type StatementResponse = z.infer<typeof statementResponseSchema>;
