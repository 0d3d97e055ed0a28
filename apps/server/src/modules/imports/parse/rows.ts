import { CLIENT_FIELD_MAX, LEAD_IMPORT_REJECTED_KEPT, normalisePhone } from '@brokerage/shared';
import { z } from 'zod';
import { HttpError } from '../../../platform/http/errors.js';
import { FIELD_LABEL, matchHeader, REQUIRED_FIELDS, type LeadField } from './headers.js';

/**
 * A file with more rows than this after its header is refused (a 10 MB CSV of four short columns holds about
 * 150,000). Every row counts, blank or not: reading a blank row costs as much as any other (issue 20).
 */
export const MAX_IMPORT_ROWS = 500_000;

/**
 * The longest cell text read: a longer one is read as its first 299 characters and '…' (longer than any field may
 * be, so rejected as too long anyway). Only the first CELL_RAW_MAX characters of a value are looked at, so a long
 * text repeated on every row (one shared string, or one SST entry) costs no more than a short one.
 */
export const CELL_TEXT_MAX = 300;
export const CELL_RAW_MAX = 4 * CELL_TEXT_MAX;

/**
 * A row as a reader gives it: `row` is its number in the file (1 = the first line or sheet row); `cells` by column
 * (0 = the first), or, when `columns` is given, the cells that hold something and `columns[i]` the column of
 * `cells[i]` (a sheet row with one cell in column XFD is one cell, not 16,384).
 */
export interface SheetRow {
  row: number;
  cells: readonly unknown[];
  columns?: readonly number[];
}

/** The longest value of each field: the add-client form's (shared CLIENT_FIELD_MAX). */
export const FIELD_MAX: Readonly<Record<LeadField, number>> = CLIENT_FIELD_MAX;

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

/** How much of a cell longer than its field allows the rejected rows' CSV keeps (then '…'): enough to find it. */
const OVERLONG_KEPT = 20;

/**
 * A rejected row's cells as the CSV keeps them: those within their field's limit whole (the fixed row can be
 * uploaded again as it is), a longer one as its first OVERLONG_KEPT characters and '…' (it must be shortened
 * anyway), so 10,000 kept rows stay a few megabytes whatever the file held.
 */
function kept(cells: LeadCells): LeadCells {
  const out = { ...cells };
  for (const field of Object.keys(FIELD_MAX) as LeadField[]) {
    if (out[field].length > FIELD_MAX[field]) out[field] = `${out[field].slice(0, OVERLONG_KEPT)}…`;
  }
  return out;
}

export interface InvalidRow {
  row: number;
  reason: RowReason;
  cells: LeadCells;
}

/** A cell of any reader as text: trimmed, without U+0000 (PostgreSQL text cannot hold it), cut at CELL_TEXT_MAX. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    const text = (value.length > CELL_RAW_MAX ? value.slice(0, CELL_RAW_MAX) : value).replaceAll('\u0000', '').trim();
    return text.length > CELL_TEXT_MAX ? `${text.slice(0, CELL_TEXT_MAX - 1)}…` : text;
  }
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
 * Receives the rows of a file in order, whatever its format: every row counts toward the row cap; the first
 * non-blank row is the header (400 naming the required columns it lacks), every later non-blank row is a lead,
 * checked here (skipped_incomplete with its reason) and kept column-wise for staging (arrays of strings: a few bytes
 * per value, not an object per row). Of the rows refused, the first LEAD_IMPORT_REJECTED_KEPT are kept with their
 * cells (see `kept`) for the rejected rows' CSV; the rest are only counted.
 */
export class LeadCollector {
  private header: Partial<Record<LeadField, number>> | null = null;
  /** The header's field of each column it names. */
  private fieldOf = new Map<number, LeadField>();
  hasCampaignColumn = false;
  /** Rows read, blank ones and the header included. */
  rowsRead = 0;
  total = 0;
  /** The first LEAD_IMPORT_REJECTED_KEPT rows refused, in file order. */
  readonly invalid: InvalidRow[] = [];
  /** Every row refused by the checks. */
  invalidCount = 0;
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

  /** One row of the file, as a SheetRow gives it. */
  accept(row: number, cells: readonly unknown[], columns?: readonly number[]): void {
    // The header and MAX_IMPORT_ROWS more, blank rows (before the header too) included.
    this.rowsRead += 1;
    if (this.rowsRead > MAX_IMPORT_ROWS + 1) throw new HttpError(400, 'upload_too_many_rows', { max: MAX_IMPORT_ROWS });
    // Plain loops: this runs for every row of the file.
    const texts: string[] = new Array<string>(cells.length);
    let blank = true;
    for (let i = 0; i < cells.length; i++) {
      const text = cellText(cells[i]);
      texts[i] = text;
      if (text !== '') blank = false;
    }
    if (blank) return;
    if (!this.header) {
      const line: string[] = [];
      for (let i = 0; i < texts.length; i++) line[columns ? columns[i]! : i] = texts[i]!;
      const { columns: found, missing } = matchHeader(line);
      if (missing.length > 0)
        throw new HttpError(400, 'upload_missing_columns', { columns: missing.map((f) => FIELD_LABEL[f]).join(', ') });
      this.header = found;
      for (const [field, column] of Object.entries(found) as [LeadField, number][]) this.fieldOf.set(column, field);
      this.hasCampaignColumn = found.campaign !== undefined;
      return;
    }
    this.total += 1;
    const cells_: LeadCells = { name: '', email: '', phone: '', country: '', campaign: '', source: '' };
    for (let i = 0; i < texts.length; i++) {
      const field = this.fieldOf.get(columns ? columns[i]! : i);
      if (field) cells_[field] = texts[i]!;
    }
    const checked = this.check(cells_);
    if (typeof checked !== 'string') {
      this.invalidCount += 1;
      if (this.invalid.length < LEAD_IMPORT_REJECTED_KEPT)
        this.invalid.push({ row, reason: checked, cells: kept(cells_) });
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
