import { normalisePhone } from '@brokerage/shared';
import { z } from 'zod';
import { HttpError } from '../../../platform/http/errors.js';
import { FIELD_LABEL, matchHeader, REQUIRED_FIELDS, type LeadField } from './headers.js';

/** A file with more data rows than this is refused (a 10 MB CSV of four short columns holds about 150,000). */
export const MAX_IMPORT_ROWS = 500_000;

/** The longest value of each field, as the add-client form allows (shared clientCreateSchema). */
export const FIELD_MAX: Record<LeadField, number> = {
  name: 200,
  email: 254,
  phone: 40,
  country: 80,
  campaign: 200,
  source: 200,
};

/** The e-mail rule of the add-client form (zod's), so a file and the form accept the same addresses. */
const EMAIL = z.regexes.email;

/** Why a row was not created. Rendered in the uploader's language by texts.ts. */
export type RowReason =
  | { code: 'missing'; fields: LeadField[] }
  | { code: 'invalid_email' }
  | { code: 'invalid_phone' }
  | { code: 'too_long'; field: LeadField; max: number }
  | { code: 'duplicate_email_base' }
  | { code: 'duplicate_phone_base' }
  | { code: 'duplicate_email_row'; row: number }
  | { code: 'duplicate_phone_row'; row: number };

/** The cells of a row as read (trimmed), for the rejected rows' CSV. */
export type LeadCells = Record<LeadField, string>;

export interface InvalidRow {
  row: number;
  reason: RowReason;
  cells: LeadCells;
}

/** A cell of any reader as text: trimmed, without U+0000 (PostgreSQL text cannot hold it). */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.replaceAll('\u0000', '').trim();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    // exceljs: rich text, hyperlink, formula (its cached result), error.
    if (Array.isArray(v.richText))
      return cellText(v.richText.map((p) => (p as { text?: unknown }).text ?? '').join(''));
    if ('result' in v) return cellText(v.result);
    if ('text' in v) return cellText(v.text);
    if ('error' in v) return '';
  }
  return '';
}

/**
 * Receives the rows of a file in order, whatever its format: the first non-blank row is the header (400 naming the
 * required columns it lacks), every later non-blank row is a lead, checked here (skipped_incomplete with its reason)
 * and kept column-wise for staging (arrays of strings: a few bytes per value, not an object per row).
 */
export class LeadCollector {
  private header: Partial<Record<LeadField, number>> | null = null;
  hasCampaignColumn = false;
  total = 0;
  readonly invalid: InvalidRow[] = [];
  readonly valid = {
    row: [] as number[],
    name: [] as string[],
    email: [] as string[],
    phone: [] as string[],
    phoneE164: [] as string[],
    country: [] as string[],
    campaign: [] as string[],
    source: [] as string[],
  };

  constructor(private readonly phoneRegion: string) {}

  /** One row of the file; `row` is its number in the file (1 = the first line or sheet row). */
  accept(row: number, cells: readonly unknown[]): void {
    const texts = cells.map(cellText);
    if (texts.every((t) => t === '')) return;
    if (!this.header) {
      const { columns, missing } = matchHeader(texts);
      if (missing.length > 0)
        throw new HttpError(400, 'upload_missing_columns', { columns: missing.map((f) => FIELD_LABEL[f]).join(', ') });
      this.header = columns;
      this.hasCampaignColumn = columns.campaign !== undefined;
      return;
    }
    this.total += 1;
    if (this.total > MAX_IMPORT_ROWS) throw new HttpError(400, 'upload_too_many_rows', { max: MAX_IMPORT_ROWS });
    const at = (field: LeadField) => {
      const index = this.header![field];
      return index === undefined ? '' : (texts[index] ?? '');
    };
    const cells_: LeadCells = {
      name: at('name'),
      email: at('email'),
      phone: at('phone'),
      country: at('country'),
      campaign: at('campaign'),
      source: at('source'),
    };
    const checked = this.check(cells_);
    if (typeof checked !== 'string') {
      this.invalid.push({ row, reason: checked, cells: cells_ });
      return;
    }
    const v = this.valid;
    v.row.push(row);
    v.name.push(cells_.name);
    v.email.push(cells_.email);
    v.phone.push(cells_.phone);
    v.phoneE164.push(checked);
    v.country.push(cells_.country);
    v.campaign.push(cells_.campaign);
    v.source.push(cells_.source);
  }

  /** After the last row: a file without a header row at all is refused. */
  finish(): void {
    if (!this.header) throw new HttpError(400, 'upload_no_header');
  }

  /** The row's E.164 phone when the row may become a lead, else why not. */
  private check(cells: LeadCells): RowReason | string {
    const missing = REQUIRED_FIELDS.filter((f) => cells[f] === '');
    if (missing.length > 0) return { code: 'missing', fields: missing };
    for (const field of Object.keys(FIELD_MAX) as LeadField[]) {
      if (cells[field].length > FIELD_MAX[field]) return { code: 'too_long', field, max: FIELD_MAX[field] };
    }
    if (!EMAIL.test(cells.email)) return { code: 'invalid_email' };
    return normalisePhone(cells.phone, this.phoneRegion) ?? { code: 'invalid_phone' };
  }
}
