import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../../../platform/http/errors.js';
import { CELL_RAW_MAX, MAX_IMPORT_ROWS, type SheetRow } from './rows.js';
import type { Upload } from './upload.js';

const require = createRequire(import.meta.url);

/** What the worker sends back: the first sheet's rows, sparse, every distinct value once. */
interface XlsRows {
  rowNumbers: Int32Array;
  /** Row i's cells are starts[i] … starts[i + 1] - 1 of `columns` and `values`. */
  starts: Int32Array;
  columns: Int32Array;
  /** Indices into `table`. */
  values: Int32Array;
  table: unknown[];
}

/**
 * Runs in a worker thread: SheetJS (@e965/xlsx, the 0.20.3 release; never the npm `xlsx` 0.18.5 with its known CVEs)
 * reads the workbook in one synchronous call, which for a 10 MB file takes a second or more — off the event loop
 * here, so other requests keep their latency. Only the cells that hold something come back, each string once (a
 * shared string on every row is one string, not thousands of copies) and at most CELL_RAW_MAX characters long.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { data, xlsx, cptable, maxRows, rawMax } = workerData;
const XLSX = require(xlsx);
// Code pages for BIFF5 and older files whose strings are not Unicode (e.g. windows-1251).
XLSX.set_cptable(require(cptable));
const book = XLSX.read(data, {
  type: 'buffer', dense: true, sheets: 0, cellDates: true, cellFormula: false, cellHTML: false, cellStyles: false,
  sheetRows: maxRows,
});
const sheet = book.SheetNames[0] === undefined ? undefined : book.Sheets[book.SheetNames[0]];
if (!sheet) throw new Error('no worksheet');
const first = sheet['!ref'] ? XLSX.utils.decode_range(sheet['!ref']).s.r : 0;
const rows = XLSX.utils.sheet_to_json(sheet, { header: 1, raw: true, blankrows: true });
const rowNumbers = new Int32Array(rows.length);
const starts = new Int32Array(rows.length + 1);
const columns = [];
const values = [];
const table = [];
const strings = new Map();
rows.forEach((row, i) => {
  rowNumbers[i] = first + i + 1;
  starts[i] = columns.length;
  (row || []).forEach((value, column) => {
    if (value === null || value === undefined || value === '') return;
    let at;
    if (typeof value === 'string') {
      const text = value.length > rawMax ? value.slice(0, rawMax) : value;
      at = strings.get(text);
      if (at === undefined) strings.set(text, (at = table.push(text) - 1));
    } else at = table.push(value) - 1;
    columns.push(column);
    values.push(at);
  });
});
starts[rows.length] = columns.length;
const result = { rowNumbers, starts, columns: Int32Array.from(columns), values: Int32Array.from(values), table };
parentPort.postMessage(result, [rowNumbers.buffer, starts.buffer, result.columns.buffer, result.values.buffer]);
`;

/** Past this much memory the worker is stopped (a file of at most UPLOAD_MAX_MB needs far less). */
const WORKER_HEAP_MB = 1024;

/**
 * The rows of the first sheet of a legacy Excel 97–2003 (.xls, a compound file) upload. The format cannot be read as
 * a stream, so the file is gathered in memory first — counted against the size limit as it arrives — and read by
 * SheetJS in a worker thread with a row cap and a memory cap; anything it cannot read is a 400 naming the file.
 */
export async function* xlsRecords(upload: Upload): AsyncGenerator<SheetRow> {
  const data = await upload.buffer();
  let rows: XlsRows;
  try {
    rows = await readInWorker(data);
  } catch {
    throw new HttpError(400, 'upload_not_xls', { name: upload.name });
  }
  const { rowNumbers, starts, columns, values, table } = rows;
  for (let i = 0; i < rowNumbers.length; i++) {
    const from = starts[i]!;
    const to = starts[i + 1]!;
    yield {
      row: rowNumbers[i]!,
      columns: Array.from(columns.subarray(from, to)),
      cells: Array.from(values.subarray(from, to), (at) => table[at]),
    };
  }
}

function readInWorker(data: Buffer): Promise<XlsRows> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        data,
        xlsx: require.resolve('@e965/xlsx'),
        cptable: require.resolve('@e965/xlsx/dist/cpexcel.js'),
        maxRows: MAX_IMPORT_ROWS + 2,
        rawMax: CELL_RAW_MAX,
      },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.once('message', (rows: XlsRows) => resolve(rows));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the XLS worker exited with ${code}`)));
  });
}
