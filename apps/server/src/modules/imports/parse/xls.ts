import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../../platform/http/errors.js';
import { CELL_RAW_MAX, MAX_IMPORT_ROWS, type SheetRow } from './rows.js';
import type { Upload } from './upload.js';

const require = createRequire(import.meta.url);

/** What the reader sends back: the first sheet's rows, sparse, every distinct value once. */
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
 * Runs in a child process: SheetJS (@e965/xlsx, the 0.20.3 release; never the npm `xlsx` 0.18.5 with its known CVEs)
 * reads the workbook in one synchronous call, which for a 10 MB file takes a second or more — off the event loop
 * here, so other requests keep their latency. Only the cells that hold something come back, each string once (a
 * shared string on every row is one string, not thousands of copies) and at most CELL_RAW_MAX characters long.
 */
const READER = `
process.once('message', ({ bytes, xlsx, cptable, maxRows, rawMax }) => {
const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const XLSX = require(xlsx);
// Code pages for BIFF5 and older files whose strings are not Unicode (e.g. windows-1251).
XLSX.set_cptable(require(cptable));
const book = XLSX.read(file, {
  type: 'buffer', dense: true, sheets: 0, cellDates: true, cellFormula: false, cellHTML: false, cellStyles: false,
  sheetRows: maxRows,
});
const sheet = book.SheetNames[0] === undefined ? undefined : book.Sheets[book.SheetNames[0]];
if (!sheet) throw new Error('no worksheet');
const range = sheet['!ref'] ? XLSX.utils.decode_range(sheet['!ref']) : { s: { r: 0 }, e: { r: -1 } };
// The dense sheet's own rows, not a copy made by sheet_to_json: the cells as SheetJS read them are already most of
// the heap, and a second array per row would double it.
const data = sheet['!data'] || [];
const count = Math.max(0, range.e.r - range.s.r + 1);
const rowNumbers = new Int32Array(count);
const starts = new Int32Array(count + 1);
const columns = [];
const values = [];
const table = [];
const strings = new Map();
for (let i = 0; i < count; i++) {
  const r = range.s.r + i;
  rowNumbers[i] = r + 1;
  starts[i] = columns.length;
  const row = data[r];
  data[r] = undefined; // read once; let it go
  if (!row) continue;
  for (let column = 0; column < row.length; column++) {
    const cell = row[column];
    if (!cell || cell.t === 'e' || cell.t === 'z') continue;
    const value = cell.v;
    if (value === null || value === undefined || value === '') continue;
    let at;
    if (typeof value === 'string') {
      const text = value.length > rawMax ? value.slice(0, rawMax) : value;
      at = strings.get(text);
      if (at === undefined) strings.set(text, (at = table.push(text) - 1));
    } else at = table.push(value) - 1;
    columns.push(column);
    values.push(at);
  }
}
starts[count] = columns.length;
const result = { rowNumbers, starts, columns: Int32Array.from(columns), values: Int32Array.from(values), table };
process.send(result, () => process.exit(0));
});
`;

/**
 * The bounds of one XLS read (the reader's heap, and its wall-clock time from its start). Measured with files at the
 * 10 MB upload limit written by SheetJS: 48,000 lead rows (six text columns) need between 192 and 256 MB of heap,
 * 28,000 rows of 20 numbers between 256 and 384 MB, and each took 7–20 s on this project's 2-core CI box under a load
 * of 9 (2–4 s on an idle core). 512 MB (it was 1024) and 60 s leave room for the costlier record kinds. Tests lower
 * them to reach them with small files.
 */
export const XLS_BOUNDS = { heapMb: 512, timeoutMs: 60_000 };

/**
 * Workbooks read at the same time, and how many more may wait for their turn (each waiting file is held in memory,
 * at most UPLOAD_MAX_MB). Past that the upload is answered 503 with Retry-After: our own overload, not the file's fault.
 */
const XLS_READERS = 1;
const XLS_WAITING_MAX = 4;
const XLS_BUSY_RETRY_SECONDS = 30;

/** Turns at the XLS reader: `take` waits for a free one (or refuses when too many wait); the function it gives ends it. */
export class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly size: number,
    private readonly maxWaiting: number,
  ) {}

  async take(): Promise<() => void> {
    if (this.running < this.size) this.running += 1;
    else {
      if (this.waiting.length >= this.maxWaiting)
        throw new HttpError(503, 'upload_xls_busy', { seconds: XLS_BUSY_RETRY_SECONDS }, XLS_BUSY_RETRY_SECONDS);
      // The turn passes straight from the one that ends to this one (`running` is not lowered in between).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}

const turns = new Turns(XLS_READERS, XLS_WAITING_MAX);

/** What a reader that did not give rows ended with, for the log (never the file's content or the error's text). */
type Outcome = 'timeout' | 'out_of_memory' | 'unreadable';

class XlsReaderError extends Error {
  constructor(
    readonly outcome: Outcome,
    readonly errorName?: string,
    readonly errorCode?: string,
  ) {
    super(outcome);
  }
}

/**
 * The rows of the first sheet of a legacy Excel 97–2003 (.xls, a compound file) upload. The format cannot be read as
 * a stream, so the file is gathered in memory first — counted against the size limit as it arrives — and read by
 * SheetJS in a child process, one workbook at a time (XLS_READERS; others wait their turn), with a row cap, a heap
 * cap and a wall-clock bound (XLS_BOUNDS): past a bound the reader is killed and the upload answered 422 naming
 * the file; anything SheetJS cannot read is a 400 naming it. A reader that did not give rows is logged (how it
 * ended, the file's size; never its name or content).
 */
export async function* xlsRecords(
  upload: Upload,
  log: Pick<FastifyBaseLogger, 'warn'>,
  bounds = XLS_BOUNDS,
): AsyncGenerator<SheetRow> {
  const data = await upload.buffer();
  const bytes = data.length;
  const endTurn = await turns.take();
  const started = performance.now();
  let rows: XlsRows;
  try {
    rows = await readInChild(data, bounds);
  } catch (err) {
    const failure = err instanceof XlsReaderError ? err : new XlsReaderError('unreadable', (err as Error)?.name);
    log.warn(
      {
        xls: {
          outcome: failure.outcome,
          error: failure.errorName,
          code: failure.errorCode,
          bytes,
          ms: Math.round(performance.now() - started),
        },
      },
      'XLS reader gave no rows',
    );
    if (failure.outcome === 'timeout')
      throw new HttpError(422, 'upload_xls_too_slow', {
        name: upload.name,
        seconds: Math.round(bounds.timeoutMs / 100) / 10,
      });
    if (failure.outcome === 'out_of_memory')
      throw new HttpError(422, 'upload_xls_too_big', { name: upload.name, mb: bounds.heapMb });
    throw new HttpError(400, 'upload_not_xls', { name: upload.name });
  } finally {
    endTurn();
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

/**
 * The rows from a child process of its own, not a worker thread: a worker that reaches its heap limit inside one of
 * SheetJS's large allocations takes the whole server down with it ("Reached heap limit", seen while measuring the
 * bounds), while a child's end is only the child's. It gets no environment (no secrets), the file over its IPC
 * channel, and is killed past its time; its stderr is read only to tell an out-of-memory end from the others.
 */
function readInChild(data: Buffer, bounds: typeof XLS_BOUNDS): Promise<XlsRows> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const child = spawn(process.execPath, [`--max-old-space-size=${bounds.heapMb}`, '-e', READER], {
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      if (stderr.length < 4096) stderr += text;
    });
    const timer = setTimeout(() => {
      settle(() => reject(new XlsReaderError('timeout')));
      child.kill('SIGKILL');
    }, bounds.timeoutMs);
    child.once('message', (rows: XlsRows) => settle(() => resolve(rows)));
    child.once('error', (err: Error & { code?: string }) =>
      settle(() => reject(new XlsReaderError('unreadable', err.name, err.code))),
    );
    // 'close', not 'exit': by then stderr has been read to its end.
    child.once('close', (code, signal) =>
      settle(() =>
        reject(
          /heap out of memory|Reached heap limit/.test(stderr)
            ? new XlsReaderError('out_of_memory', 'exit', signal ?? String(code))
            : new XlsReaderError('unreadable', 'exit', signal ?? String(code)),
        ),
      ),
    );
    child.send(
      {
        bytes: data,
        xlsx: require.resolve('@e965/xlsx'),
        cptable: require.resolve('@e965/xlsx/dist/cpexcel.js'),
        maxRows: MAX_IMPORT_ROWS + 2,
        rawMax: CELL_RAW_MAX,
      },
      (err) => {
        if (err) settle(() => reject(new XlsReaderError('unreadable', err.name)));
      },
    );
  });
}
