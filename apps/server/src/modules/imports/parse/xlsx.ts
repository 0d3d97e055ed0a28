import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { HttpError } from '../../../platform/http/errors.js';
import type { Upload } from './upload.js';

/** After the last byte of the file, the reader must give a row (or finish) within this long. */
const STALL_MS = 30_000;

/**
 * The rows of the first worksheet of an XLSX upload, read with exceljs's streaming reader while the file arrives.
 * The caller has checked the zip signature; a broken archive or sheet is a 400 naming the file. exceljs spools a
 * worksheet stored before the shared strings (Excel's own order) to a temporary file and reads it after the archive
 * ends; later worksheets are skipped. `row` is the sheet's row number.
 *
 * exceljs does not turn every failure into an error: a corrupt deflate stream inside a worksheet fails the unzipper
 * it pipes into, while exceljs keeps waiting for that entry to end. So the unzipper's errors are caught where the
 * stream is piped into it, and every step races them (and, once the file is all read, a stall watchdog).
 */
export async function* xlsxRecords(upload: Upload): AsyncGenerator<{ row: number; cells: unknown[] }> {
  // exceljs pipes this stream into its unzipper without listening for errors, so a failure of the upload (413, a
  // broken request) must not be an error event: the stream just ends, and the failure is thrown once exceljs stops.
  let failure: unknown = null;
  let inputDone = false;
  let lastProgress = Date.now();
  async function* bytes() {
    try {
      for await (const chunk of upload.chunks()) {
        lastProgress = Date.now();
        yield chunk;
      }
    } catch (err) {
      failure = err;
    } finally {
      inputDone = true;
      lastProgress = Date.now();
    }
  }
  const input = Readable.from(bytes(), { objectMode: false });

  let broken!: (err: unknown) => void;
  const brokenArchive = new Promise<never>((_, reject) => (broken = reject));
  brokenArchive.catch(() => {});
  const pipe = input.pipe.bind(input);
  input.pipe = (<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }) => {
    destination.on('error', (err: unknown) => broken(err));
    return pipe(destination, options);
  }) as typeof input.pipe;
  const watchdog = setInterval(() => {
    if (inputDone && Date.now() - lastProgress > STALL_MS) broken(new Error('the workbook reader stopped'));
  }, 1000);
  const step = <T>(next: Promise<T>): Promise<T> => Promise.race([next, brokenArchive]);

  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  try {
    const sheets = reader[Symbol.asyncIterator]();
    let first = true;
    for (;;) {
      const sheet = await step(sheets.next());
      if (sheet.done) break;
      if (!first) continue; // later sheets are drained unread by exceljs
      first = false;
      const rows = sheet.value[Symbol.asyncIterator]();
      for (;;) {
        const row = await step(rows.next());
        if (row.done) break;
        lastProgress = Date.now();
        const values = row.value.values as unknown[];
        yield { row: row.value.number, cells: Array.from(values.slice(1)) };
      }
    }
  } catch (err) {
    if (failure) throw failure;
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'upload_not_xlsx', { name: upload.name });
  } finally {
    clearInterval(watchdog);
    input.destroy();
  }
  if (failure) throw failure;
}
