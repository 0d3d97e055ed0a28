import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../../platform/http/errors.js';
import { csvRecords } from './csv.js';
import type { LeadCollector } from './rows.js';
import type { Upload } from './upload.js';
import { xlsRecords } from './xls.js';
import { xlsxRecords } from './xlsx.js';

export { LeadCollector, type SheetRow } from './rows.js';
export { Upload } from './upload.js';

export type FileKind = 'csv' | 'xlsx' | 'xls';

/** What the name says the file is: .csv (or a text/csv type), .xlsx, .xls; anything else is refused. */
export function kindByName(name: string, mimeType: string): FileKind | null {
  const lower = name.trim().toLowerCase();
  if (lower.endsWith('.xlsx')) return 'xlsx';
  if (lower.endsWith('.xls')) return 'xls';
  if (lower.endsWith('.csv') || mimeType.toLowerCase() === 'text/csv') return 'csv';
  return null;
}

/** Formats recognised by their first bytes, named in refusals (the names are the same in every language). */
const SIGNATURES: [string, number[]][] = [
  ['XLSX', [0x50, 0x4b, 0x03, 0x04]],
  // The compound file (OLE2) container of Excel 97–2003 workbooks.
  ['XLS', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ['PNG', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG', [0xff, 0xd8, 0xff]],
  ['GIF', [0x47, 0x49, 0x46, 0x38]],
  ['PDF', [0x25, 0x50, 0x44, 0x46]],
  ['ZIP', [0x50, 0x4b, 0x05, 0x06]],
  ['GZIP', [0x1f, 0x8b]],
];

export function sniff(head: Buffer): string | null {
  for (const [name, bytes] of SIGNATURES) if (head.subarray(0, bytes.length).equals(Buffer.from(bytes))) return name;
  return null;
}

/** The longest the reading runs before the event loop gets a turn, so other requests keep their latency. */
const TURN_MS = 10;

/**
 * Reads an upload into the collector (a CSV as it arrives, a workbook once it is all in). The name decides the
 * reader and the first bytes must agree: an .xlsx must be a zip, an .xls a compound file (or a zip: workbooks saved
 * as .xlsx under an old name are read as XLSX), a .csv text. A file that is not what its name says is a 400 naming it
 * and what it is. Every TURN_MS of reading the event loop gets a turn.
 */
export async function readLeads(
  upload: Upload,
  collector: LeadCollector,
  limits: { maxUnpackedMb: number },
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
): Promise<FileKind> {
  const named = kindByName(upload.name, upload.mimeType);
  if (!named) throw new HttpError(400, 'upload_unsupported_type', { name: upload.name || '—' });
  const head = await upload.peek(8);
  if (head.length === 0) throw new HttpError(400, 'upload_empty_file', { name: upload.name });
  const found = sniff(head);
  let kind: FileKind = named;
  if (named === 'xls' && found === 'XLSX') kind = 'xlsx';
  else if (named === 'csv' ? found !== null : found !== named.toUpperCase()) {
    if (found) {
      throw new HttpError(400, 'upload_wrong_content', { name: upload.name, found, expected: named.toUpperCase() });
    }
    throw new HttpError(400, named === 'xlsx' ? 'upload_not_xlsx' : 'upload_not_xls', { name: upload.name });
  }
  const records =
    kind === 'csv'
      ? csvRecords(upload, log)
      : kind === 'xlsx'
        ? xlsxRecords(upload, limits.maxUnpackedMb)
        : xlsRecords(upload, log);
  let turn = performance.now();
  for await (const { row, cells, columns } of records) {
    collector.accept(row, cells, columns);
    if (performance.now() - turn > TURN_MS) {
      await nextTurn();
      turn = performance.now();
    }
  }
  collector.finish();
  return kind;
}
