import { FIELD_LABEL, type LeadField } from './parse/headers.js';
import type { LeadCells } from './parse/rows.js';

const COLUMNS: LeadField[] = ['name', 'email', 'phone', 'country', 'campaign', 'source'];

/**
 * A cell of the rejected rows' CSV: quoted when it holds a separator, a quote or a line break. A value a spreadsheet
 * would run as a formula (=…, @…, or +/- followed by something other than a phone's digits) gets a leading
 * apostrophe; phones such as '+7 (701) 123-45-67' stay as typed, so the fixed file can be uploaded again.
 */
function cell(value: string): string {
  let v = value;
  if (/^[=@\t\r]/.test(v) || (/^[+-]/.test(v) && /[^\d\s()+\-.]/.test(v))) v = `'${v}`;
  return /[",\r\n]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * Every rejected row with its reason: the columns row and reason, then the lead's columns under the template's
 * headers — fixed rows can be uploaded again as they are (the extra columns are ignored). Comma-separated, CRLF.
 */
export function rejectedCsv(rows: { row: number; reason: string; cells: LeadCells }[]): string {
  const lines = [['row', 'reason', ...COLUMNS.map((c) => FIELD_LABEL[c])].join(',')];
  for (const r of rows) lines.push([String(r.row), cell(r.reason), ...COLUMNS.map((c) => cell(r.cells[c]))].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
