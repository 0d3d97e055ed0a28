import { once } from 'node:events';
import { parse, CsvError } from 'csv-parse';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../../platform/http/errors.js';
import { detectDelimiter } from './headers.js';
import type { SheetRow } from './rows.js';
import type { Upload } from './upload.js';

/** How much of the file may come before the end of its header line. */
const HEADER_LINE_MAX = 64 * 1024;

/** The part of csv-parse's inner parser that the record-length check reads. */
interface CsvParseApi {
  state: { record: unknown[]; expectedRecordLength: number };
  __onRecord: (push: unknown) => unknown;
}

/** What the CSV reader needs of csv-parse's internals, named in the log when it is missing. */
export const CSV_PARSE_HOOK = 'api.__onRecord, api.state.record, api.state.expectedRecordLength (csv-parse 7.0.3)';

/**
 * csv-parse's inner parser of `parser` when it has the hook the CSV reader wraps (its record handler, and the state
 * it reads), else null: a csv-parse release may rename or move them (the version is pinned in package.json for
 * that reason). Checked when the import routes are registered (an error in the log at start-up) and on every CSV
 * upload (a 503, not a 500 nor minutes of work).
 */
export function csvParseHook(parser: unknown): CsvParseApi | null {
  const api = (parser as { api?: Partial<CsvParseApi> } | null)?.api;
  if (!api || typeof api.__onRecord !== 'function' || !api.state) return null;
  if (!Array.isArray(api.state.record) || !('expectedRecordLength' in api.state)) return null;
  return api as CsvParseApi;
}

/** Whether the installed csv-parse has the hook (a throwaway parser is asked). */
export function csvParseHookPresent(): boolean {
  const parser = parse();
  const present = csvParseHook(parser) !== null;
  parser.destroy();
  return present;
}

/** The most bytes handed to the parser at a time (smaller writes cost more per row than they save). */
const WRITE_SLICE = 64 * 1024;

/** The encodings a CSV upload is read in: what Excel and LibreOffice save CSV as, in Russian and other locales. */
export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1251';

/** How much of a file is looked at, at most, to decide its encoding (a file of plain ASCII is UTF-8 anyway). */
const SNIFF_MAX = 1024 * 1024;

/**
 * Bytes above 0x7f that Windows-1251 text holds: the Cyrillic letters (0xC0–0xFF, Ё 0xA8, ё 0xB8), the Ukrainian and
 * Belarusian ones (Ґ ґ Є є І і Ї ї Ў ў), №, «», dashes, curly quotes, the ellipsis and the no-break space.
 */
const CP1251_TEXT = new Set([
  0xa8, 0xb8, 0xa5, 0xb4, 0xaa, 0xba, 0xb2, 0xb3, 0xaf, 0xbf, 0xa1, 0xa2, 0xb9, 0xab, 0xbb, 0x96, 0x97, 0x91, 0x92,
  0x93, 0x94, 0x84, 0x85, 0xa0,
]);

/**
 * The encoding of a CSV file from its first bytes, or null when it cannot be decided: a byte order mark (UTF-8,
 * UTF-16 LE/BE); UTF-16 without one (every other byte zero, as ASCII text in UTF-16 is); valid UTF-8; else
 * Windows-1251 when nearly all its bytes above 0x7f are Cyrillic letters or the punctuation of Russian text (the CSV
 * a Russian Excel saves). `complete` says the bytes are the whole file (else a character cut at the end is no fault).
 */
export function detectCsvEncoding(bytes: Uint8Array, complete: boolean): CsvEncoding | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const pairs = Math.floor(Math.min(bytes.length, 4096) / 2);
  if (pairs >= 2) {
    let evenZeros = 0;
    let oddZeros = 0;
    for (let i = 0; i < pairs * 2; i += 2) {
      if (bytes[i] === 0) evenZeros += 1;
      if (bytes[i + 1] === 0) oddZeros += 1;
    }
    if (oddZeros >= pairs * 0.4 && evenZeros <= pairs * 0.05) return 'utf-16le';
    if (evenZeros >= pairs * 0.4 && oddZeros <= pairs * 0.05) return 'utf-16be';
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return 'utf-8';
  } catch {
    // not UTF-8: perhaps Windows-1251
  }
  let high = 0;
  let text = 0;
  for (const byte of bytes) {
    if (byte < 0x80) continue;
    high += 1;
    if (byte >= 0xc0 || CP1251_TEXT.has(byte)) text += 1;
  }
  return high > 0 && text >= high * 0.95 ? 'windows-1251' : null;
}

/**
 * The records of a CSV upload, streamed: in UTF-8 (with or without a BOM), UTF-16 or Windows-1251, decided from the
 * first bytes (anything else, or binary data, is a 400 with what is wrong); the separator — comma, semicolon or
 * tab — detected from the header line; quoted fields with separators, quotes and line breaks (csv-parse). `row` is
 * the record's number in the file (1 = the header), as a spreadsheet numbers the rows; blank lines count as rows, so
 * the numbers match.
 */
export async function* csvRecords(upload: Upload, log: Pick<FastifyBaseLogger, 'error'>): AsyncGenerator<SheetRow> {
  const chunks = upload.chunks();
  // The first bytes, up to the first one above 0x7f (or a zero) or SNIFF_MAX, decide the encoding: a file whose
  // beginning is plain ASCII is read as UTF-8 until something says otherwise.
  const first: Buffer[] = [];
  let sniffed = 0;
  let ended = false;
  while (sniffed < SNIFF_MAX) {
    const step = await chunks.next();
    if (step.done) {
      ended = true;
      break;
    }
    first.push(step.value);
    sniffed += step.value.length;
    if (step.value.some((byte) => byte >= 0x80 || byte === 0)) break;
  }
  const start = Buffer.concat(first);
  const encoding = detectCsvEncoding(start.subarray(0, SNIFF_MAX), ended);
  if (encoding === null) {
    throw new HttpError(400, start.includes(0) ? 'upload_csv_binary' : 'upload_csv_encoding', { name: upload.name });
  }
  const decoder = new TextDecoder(encoding, { fatal: true });
  const decode = (chunk: Buffer, end = false): string => {
    let text: string;
    try {
      text = end ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw new HttpError(400, chunk.includes(0) ? 'upload_csv_binary' : 'upload_csv_encoding', { name: upload.name });
    }
    if (text.includes('\u0000')) throw new HttpError(400, 'upload_csv_binary', { name: upload.name });
    return text;
  };

  // Read up to the end of the header line (or 64 KB) to choose the separator.
  let head = decode(start);
  while (!ended && !head.includes('\n') && head.length < HEADER_LINE_MAX) {
    const step = await chunks.next();
    if (step.done) {
      ended = true;
      break;
    }
    head += decode(step.value);
  }
  const delimiter = detectDelimiter(head.split(/\r?\n/, 1)[0] ?? '');

  const parser = parse({
    delimiter,
    // A stray quote inside an unquoted field ('Ivan "Vanya" Petrov') is kept as text, as Excel does.
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: false,
    // One record cannot be larger than the file limit anyway; this bounds a runaway quoted field early.
    max_record_size: 1024 * 1024,
  });
  // csv-parse builds a CsvError (a stack trace and JSON copies of its state, ~0.1 ms) for every record whose length
  // differs from the first one's, even when relax_column_count lets it pass: a file of blank lines after a header cost
  // minutes (issue 20). Each record is made the expected length just before that check, so the error is never built
  // (rows may be ragged anyway). The hook is csv-parse's internal: the version is pinned, and without the hook CSV
  // uploads are refused (503) rather than read the slow way (see csvParseHook).
  const api = csvParseHook(parser);
  if (!api) {
    parser.destroy();
    log.error({ csvParse: CSV_PARSE_HOOK }, 'csv-parse lacks the hook the CSV import relies on: CSV uploads refused');
    throw new HttpError(503, 'upload_csv_unavailable');
  }
  const onRecord = api.__onRecord;
  api.__onRecord = function (this: CsvParseApi, push: unknown) {
    this.state.expectedRecordLength = this.state.record.length;
    return onRecord.call(this, push);
  };
  const stop = new AbortController();
  // In slices, each parsed once the records of the one before were taken: csv-parse pushes every record of a chunk
  // at once (64 kB of blank lines is 65,536 records), so a larger chunk would be one long step. A slice may end
  // inside a character: csv-parse decodes a field once it is whole.
  const write = async (text: string) => {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += WRITE_SLICE) {
      if (!parser.write(bytes.subarray(at, at + WRITE_SLICE))) await once(parser, 'drain', { signal: stop.signal });
    }
  };
  // The feeding side: decoded text into the parser, waiting for it to drain; a failure ends the parser with it.
  const feeding = (async () => {
    try {
      await write(head);
      while (!ended) {
        const step = await chunks.next();
        if (stop.signal.aborted) return;
        if (step.done) break;
        await write(decode(step.value));
      }
      await write(decode(Buffer.alloc(0), true));
      parser.end();
    } catch (err) {
      if (!stop.signal.aborted) parser.destroy(err as Error);
    }
  })();

  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row += 1;
      yield { row, cells: record };
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines ?? row + 1;
      throw new HttpError(400, 'upload_csv_malformed', { line, reason: err.message.replace(/^Invalid [^:]*: /, '') });
    }
    throw err;
  } finally {
    // Not awaited: the feeding side may be waiting for bytes still on their way; it stops at the next chunk, and the
    // caller lets the rest of the upload flow (Upload.release).
    stop.abort();
    parser.destroy();
    void feeding;
  }
}
