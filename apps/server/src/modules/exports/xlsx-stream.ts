import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';

/**
 * A one-sheet XLSX written row by row into a stream (exceljs' streaming WorkbookWriter): each row is committed and
 * zipped as it comes, so memory stays flat whatever the number of rows. The caller pipes `stream` to the reply
 * and awaits `room()` between batches, which waits while the receiver is slower than the database.
 */
export interface XlsxSheetStream {
  stream: PassThrough;
  addRow(values: CellValue[]): void;
  /** Resolves when the buffers between this writer and the network are below their limit. */
  room(): Promise<void>;
  finish(): Promise<void>;
  /** Stops writing (the receiver went away or the database failed). */
  abort(error?: Error): void;
}

export type CellValue = string | number | null;

/** Above this many bytes waiting in the zip writer or the outgoing stream, the producer waits. */
const HIGH_WATER = 1 << 20;

/**
 * decisions.md D9: a cell starting with = + - @, a tab or a carriage return could be read as a formula by a
 * spreadsheet. Every text value here is written as a string cell (an inline string, never a {formula} cell), which a
 * spreadsheet shows as the text itself and never evaluates (exports.test.ts opens one in LibreOffice to prove it).
 * Styles are off on purpose: exceljs writes three times faster without them (docs/decisions.md).
 */
export function createXlsxSheetStream(sheetName: string, header: string[], widths: number[]): XlsxSheetStream {
  const stream = new PassThrough({ highWaterMark: 256 * 1024 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = header.map((title, i) => ({ header: title, width: widths[i] ?? 16 }));
  sheet.getRow(1).commit();
  // Where committed rows can wait inside exceljs 4: the sheet's own StreamBuf (its `buffers`, until the zip writer
  // starts reading the entry) and what that StreamBuf has written into the zip's entry stream (`pipes`) — it writes
  // there without waiting for 'drain', so without counting it the uncompressed sheet XML piles up in memory (measured:
  // +325 MB for 600,000 rows). Then the zip writer's own input buffer and our PassThrough.
  const zip = (workbook as unknown as { zip?: { writableLength?: number } }).zip;
  const sheetStream = (
    sheet as unknown as {
      stream: {
        buffers?: { length: number }[];
        pipes?: { writableLength?: number; _writableState?: { length: number } }[];
      };
    }
  ).stream;
  const sum = <T>(items: T[] | undefined, size: (item: T) => number) =>
    (items ?? []).reduce((n, item) => n + size(item), 0);
  const pending = () =>
    stream.writableLength +
    stream.readableLength +
    (zip?.writableLength ?? 0) +
    sum(sheetStream.buffers, (b) => b.length) +
    // archiver's entry stream is a readable-stream 2 PassThrough: no writableLength, only _writableState.length.
    sum(sheetStream.pipes, (p) => p.writableLength ?? p._writableState?.length ?? 0);
  let aborted = false;

  return {
    stream,
    addRow(values) {
      // A string stays a string cell whatever it starts with; only {formula: ...} values would become formulas.
      sheet.addRow(values).commit();
    },
    async room() {
      // Always one turn of the event loop (setImmediate: after the pending I/O callbacks), so the zip writer gets its
      // next chunk to deflate; then short waits while more than HIGH_WATER bytes are queued behind this writer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (!aborted && pending() > HIGH_WATER) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            stream.off('drain', done);
            stream.off('close', done);
            resolve();
          };
          const timer = setTimeout(done, 2);
          stream.once('drain', done);
          stream.once('close', done);
        });
        if (stream.destroyed) aborted = true;
      }
    },
    async finish() {
      sheet.commit();
      // A receiver that leaves during the last flush must not leave this waiting for a stream nobody reads.
      const closed = new Promise<void>((resolve) => {
        if (stream.destroyed) resolve();
        else stream.once('close', () => resolve());
      });
      await Promise.race([workbook.commit(), closed]);
    },
    abort(error) {
      aborted = true;
      stream.destroy(error);
    },
  };
}
