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

/** A Date is written as a date cell: its UTC fields are the wall-clock time to show (see wallClock in exports). */
export type CellValue = string | number | Date | null;

/** The date cells' format: day, month, year, hours and minutes, as the back office shows them (§2.5). */
export const DATE_TIME_FORMAT = 'dd.mm.yyyy hh:mm';
/** The first number format id a workbook may define for itself (ids below are the spreadsheet's built-in ones). */
const CUSTOM_FORMAT_ID = 164;

/**
 * Issue 27 item 17: date cells, without turning styles on (exceljs writes three times slower with them). The style-less
 * writer gives every Date cell one shared date style; that style is made to show DATE_TIME_FORMAT instead of exceljs'
 * date-only default. Works on exceljs 4's StylesXform mock (the same internals the backpressure below reads).
 */
export function useDateTimeCells(
  workbook: InstanceType<typeof ExcelJS.stream.xlsx.WorkbookWriter>,
  format: string = DATE_TIME_FORMAT,
): void {
  const styles = (
    workbook as unknown as {
      styles: {
        model: { styles: object[]; numFmts: { id: number; formatCode: string }[] };
        _dateStyleId?: number;
      };
    }
  ).styles;
  styles.model.numFmts.push({ id: CUSTOM_FORMAT_ID, formatCode: format });
  styles.model.styles.push({
    numFmtId: CUSTOM_FORMAT_ID,
    fontId: 0,
    fillId: 0,
    borderId: 0,
    xfId: 0,
    applyNumberFormat: true,
  });
  styles._dateStyleId = styles.model.styles.length - 1;
}

/** 'A1:N1': the header row's range, which the sheet's autofilter covers. */
export function headerRange(columns: number): string {
  let n = columns;
  let name = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    name = String.fromCharCode(65 + r) + name;
    n = Math.floor((n - 1) / 26);
  }
  return `A1:${name}1`;
}

/** Above this many bytes waiting in the zip writer or the outgoing stream, the producer waits. */
const HIGH_WATER = 1 << 20;

/**
 * decisions.md D9: a cell starting with = + - @, a tab or a carriage return could be read as a formula by a
 * spreadsheet. Every text value here is written as a string cell (an inline string, never a {formula} cell), which a
 * spreadsheet shows as the text itself and never evaluates (exports.test.ts opens one in LibreOffice to prove it).
 * Styles are off on purpose: exceljs writes three times faster without them (docs/decisions.md).
 */
export function createXlsxSheetStream(
  sheetName: string,
  header: string[],
  widths: number[],
  options: { dateFormat?: string } = {},
): XlsxSheetStream {
  const stream = new PassThrough({ highWaterMark: 256 * 1024 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: false, useSharedStrings: false });
  useDateTimeCells(workbook, options.dateFormat);
  // The header row stays in view and carries an autofilter (issue 27 item 17).
  // (The streaming writer reads `autoFilter` from these options; exceljs' types list it only on the sheet.)
  const sheet = workbook.addWorksheet(sheetName, {
    views: [{ state: 'frozen', ySplit: 1 }],
    autoFilter: headerRange(header.length),
  } as Partial<ExcelJS.AddWorksheetOptions>);
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
