import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { HttpError } from '../../../platform/http/errors.js';
import type { Upload } from './upload.js';

/**
 * The rows of the first worksheet of an XLSX upload, read with exceljs's streaming reader while the file arrives.
 * The caller has checked the zip signature; a broken archive or sheet is a 400 naming the file. exceljs spools a
 * worksheet stored before the shared strings (Excel's own order) to a temporary file and reads it after the archive
 * ends; later worksheets are skipped. `row` is the sheet's row number.
 */
export async function* xlsxRecords(upload: Upload): AsyncGenerator<{ row: number; cells: unknown[] }> {
  // exceljs pipes this stream into its unzipper without listening for errors, so a failure of the upload (413, a
  // broken request) must not be an error event: the stream just ends, and the failure is thrown once exceljs stops.
  let failure: unknown = null;
  async function* bytes() {
    try {
      yield* upload.chunks();
    } catch (err) {
      failure = err;
    }
  }
  const input = Readable.from(bytes(), { objectMode: false });
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  let first = true;
  try {
    for await (const worksheet of reader) {
      if (!first) continue; // later sheets are drained unread by exceljs
      first = false;
      for await (const row of worksheet) {
        const values = row.values as unknown[];
        yield { row: row.number, cells: Array.from(values.slice(1)) };
      }
    }
  } catch (err) {
    if (failure) throw failure;
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'upload_not_xlsx', { name: upload.name });
  } finally {
    input.destroy();
  }
  if (failure) throw failure;
}
