import { HttpError } from '../../../platform/http/errors.js';
import { CELL_RAW_MAX, cellText, type SheetRow } from './rows.js';
import type { Upload } from './upload.js';
import { attribute, XmlError, XmlScanner, type XmlHandler } from './xml.js';
import { entryBytes, readZipDirectory, UnpackBudget, ZipError, type ZipDirectory, type ZipEntry } from './zip.js';

/**
 * Excel's last column (XFD), and so the most cells a sheet row may have: cells come in column order (the cell
 * references go strictly rightwards, as every spreadsheet program writes them), so one row holds at most this many —
 * a few megabytes at the 300-character cell cap — whatever the file repeats. A cell that does not go right of the one
 * before it, or a row past XFD, is a 400 naming the row (issue 20: 10 million `<c r="A1">` in one row were all kept).
 */
export const MAX_ROW_CELLS = 16_384;

/**
 * The rows of the first worksheet of an XLSX upload (issue 20 finding 5: no spooling, every byte counted). The zip is
 * gathered in memory as it arrives (at most UPLOAD_MAX_MB; past it the 413 comes before anything is unpacked), its
 * central directory is read, and a workbook whose entries declare more than IMPORT_MAX_UNPACKED_MB in all is refused
 * at once. Then only the parts needed are inflated, in the order needed — the workbook and its relationships (which
 * sheet is first), the shared strings, the sheet — whatever order the archive stores them in, so nothing is ever
 * written to disk; the bytes really inflated are counted against the same cap (declared sizes can lie). Every cell
 * text is read as `cellText` reads it (at most 300 characters), so a shared string repeated on every row costs no
 * more than a short one. Rows with their cells (sparse: only the cells that hold something) come out a chunk at a
 * time; `row` is the sheet's row number. Anything malformed is a 400 naming the file.
 */
export async function* xlsxRecords(upload: Upload, maxUnpackedMb: number): AsyncGenerator<SheetRow> {
  const file = await upload.buffer();
  const budget = new UnpackBudget(
    maxUnpackedMb * 1024 * 1024,
    () => new HttpError(400, 'upload_unpacked_too_large', { name: upload.name, max: maxUnpackedMb }),
  );
  try {
    const zip = readZipDirectory(file);
    if (zip.declaredSize > budget.max) throw budget.over();
    const parts = await findParts(file, zip, budget);
    const strings = new SharedStrings();
    if (parts.sharedStrings) await scanPart(file, parts.sharedStrings, budget, new SharedStringsReader(strings));
    const sheet = new SheetReader(strings);
    for await (const rows of scanChunks(file, parts.sheet, budget, sheet)) yield* rows;
  } catch (err) {
    // A 400 of the cap or the row checks stands; a ZipError, XmlError or zlib's error is a broken workbook.
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'upload_not_xlsx', { name: upload.name });
  }
}

/** Runs a part through a scanner, a chunk at a time; after each chunk, what `drain` takes from the handler. */
async function* scanChunks<T>(
  file: Buffer,
  entry: ZipEntry,
  budget: UnpackBudget,
  handler: XmlHandler & { drain(): T },
): AsyncGenerator<T> {
  const scanner = new XmlScanner(handler);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of entryBytes(file, entry, budget)) {
    scanner.write(decoder.decode(chunk, { stream: true }));
    yield handler.drain();
  }
  scanner.write(decoder.decode());
  scanner.end();
  yield handler.drain();
}

/** A whole part through a handler; stops reading (the inflater is destroyed) once the handler says `done`. */
async function scanPart(file: Buffer, entry: ZipEntry, budget: UnpackBudget, handler: PartHandler): Promise<void> {
  for await (const done of scanChunks(file, entry, budget, handler)) if (done) return;
}

abstract class PartHandler implements XmlHandler {
  wantsText = false;
  done = false;
  abstract open(name: string, attributes: string): void;
  close(_name: string): void {}
  text(_piece: string): void {}
  drain(): boolean {
    return this.done;
  }
}

/**
 * The first sheet in the workbook's order, through its relationship, and the shared strings' part; an archive
 * without a workbook part falls back to its first worksheet entry and `xl/sharedStrings.xml`.
 */
async function findParts(
  file: Buffer,
  zip: ZipDirectory,
  budget: UnpackBudget,
): Promise<{ sheet: ZipEntry; sharedStrings: ZipEntry | undefined }> {
  let sheetId: string | undefined;
  const workbook = zip.get('xl/workbook.xml');
  if (workbook) {
    await scanPart(
      file,
      workbook,
      budget,
      new (class extends PartHandler {
        open(name: string, attributes: string) {
          if (name !== 'sheet' || this.done) return;
          sheetId = attribute(attributes, 'id');
          this.done = true;
        }
      })(),
    );
  }
  let sheetTarget: string | undefined;
  let stringsTarget: string | undefined;
  const rels = zip.get('xl/_rels/workbook.xml.rels');
  if (rels) {
    await scanPart(
      file,
      rels,
      budget,
      new (class extends PartHandler {
        open(name: string, attributes: string) {
          if (name !== 'Relationship') return;
          const target = attribute(attributes, 'Target');
          if (sheetId !== undefined && attribute(attributes, 'Id') === sheetId) sheetTarget ??= target;
          if (attribute(attributes, 'Type')?.endsWith('/sharedStrings')) stringsTarget ??= target;
        }
      })(),
    );
  }
  const find = (target: string | undefined) => (target === undefined ? undefined : zip.get(partPath(target)));
  const sheet =
    find(sheetTarget) ?? zip.entries.find((e) => /^xl\/worksheets\/[^/]+\.xml$/i.test(e.name) && !e.name.endsWith('/'));
  if (!sheet) throw new ZipError('no worksheet');
  return { sheet, sharedStrings: find(stringsTarget) ?? zip.get('xl/sharedStrings.xml') };
}

/** A relationship's target as a path in the archive: relative to xl/, or absolute from the root. */
function partPath(target: string): string {
  const parts: string[] = [];
  const full = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  for (const p of full.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}

/** Strings joined into blocks of about this many characters. */
const BLOCK_CHARS = 1 << 20;

/**
 * The workbook's shared strings, packed: each already read as `cellText` reads a cell (at most 300 characters), the
 * texts joined into blocks of about a million characters, four bytes of offset per string, so a table of millions
 * of short strings is not millions of objects.
 */
export class SharedStrings {
  private readonly blocks: string[] = [];
  /** The index of the first string of each block. */
  private readonly firsts: number[] = [];
  private ends = new Uint32Array(1024);
  private pending: string[] = [];
  private pendingChars = 0;
  count = 0;

  add(text: string): void {
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    if (this.pending.length === 0) this.firsts.push(this.count);
    this.pending.push(text);
    this.pendingChars += text.length;
    this.ends[this.count++] = this.pendingChars;
    if (this.pendingChars >= BLOCK_CHARS) this.seal();
  }

  seal(): void {
    if (this.pending.length === 0) return;
    this.blocks.push(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  get(index: number): string {
    if (!(index >= 0 && index < this.count)) return '';
    this.seal();
    let lo = 0;
    let hi = this.firsts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.firsts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    const start = index === this.firsts[lo] ? 0 : this.ends[index - 1]!;
    return this.blocks[lo]!.slice(start, this.ends[index]);
  }
}

/** Reads `<si>` items (plain or rich text; phonetic runs left out) into the table. */
class SharedStringsReader extends PartHandler {
  private value = '';
  private inItem = false;
  private phonetic = 0;

  constructor(private readonly strings: SharedStrings) {
    super();
  }

  open(name: string): void {
    if (name === 'si') {
      this.inItem = true;
      this.value = '';
    } else if (name === 't') this.wantsText = this.inItem && this.phonetic === 0;
    else if (name === 'rPh') this.phonetic += 1;
  }

  override close(name: string): void {
    if (name === 't') this.wantsText = false;
    else if (name === 'rPh') this.phonetic -= 1;
    else if (name === 'si' && this.inItem) {
      this.strings.add(cellText(this.value));
      this.inItem = false;
    }
  }

  override text(piece: string): void {
    if (this.value.length <= CELL_RAW_MAX) this.value += piece.slice(0, CELL_RAW_MAX + 1 - this.value.length);
  }
}

/** Reads `<row>`s and their `<c>`ells into sparse rows; `drain` hands over those completed so far. */
class SheetReader implements XmlHandler {
  wantsText = false;
  private rows: SheetRow[] = [];
  private row: { row: number; columns: number[]; cells: string[] } | null = null;
  private lastRow = 0;
  private cell: { column: number; type: string } | null = null;
  private nextColumn = 1;
  /** The column of the row's cell before, 0 at the row's start. */
  private lastColumn = 0;
  private value = '';
  private inline = false;
  private phonetic = 0;

  constructor(private readonly strings: SharedStrings) {}

  open(name: string, attributes: string): void {
    switch (name) {
      case 'row': {
        // `r` may be left out (the next row); a number that does not go forward is taken as the next row too.
        const r = Number(attribute(attributes, 'r'));
        this.lastRow = Number.isSafeInteger(r) && r > this.lastRow ? r : this.lastRow + 1;
        this.row = { row: this.lastRow, columns: [], cells: [] };
        this.nextColumn = 1;
        this.lastColumn = 0;
        break;
      }
      case 'c': {
        if (!this.row) break;
        const ref = attribute(attributes, 'r');
        const column = ref === undefined ? this.nextColumn : columnOf(ref);
        if (column < 1) throw new XmlError('a cell reference without a column');
        if (column > MAX_ROW_CELLS)
          throw new HttpError(400, 'upload_row_too_wide', { row: this.row.row, max: MAX_ROW_CELLS });
        if (column <= this.lastColumn) {
          throw new HttpError(400, 'upload_cell_out_of_order', {
            row: this.row.row,
            column: columnName(column),
            previous: columnName(this.lastColumn),
          });
        }
        this.lastColumn = column;
        this.cell = { column, type: attribute(attributes, 't') ?? 'n' };
        this.value = '';
        break;
      }
      case 'v':
        this.wantsText = this.cell !== null && !this.inline;
        break;
      case 'is':
        this.inline = true;
        break;
      case 't':
        this.wantsText = this.cell !== null && this.inline && this.phonetic === 0;
        break;
      case 'rPh':
        this.phonetic += 1;
        break;
    }
  }

  close(name: string): void {
    switch (name) {
      case 'v':
      case 't':
        this.wantsText = false;
        break;
      case 'is':
        this.inline = false;
        break;
      case 'rPh':
        this.phonetic -= 1;
        break;
      case 'c':
        if (this.row && this.cell) {
          const text = this.cellValue(this.cell.type);
          if (text) {
            this.row.columns.push(this.cell.column - 1);
            this.row.cells.push(text);
          }
          this.nextColumn = this.cell.column + 1;
        }
        this.cell = null;
        break;
      case 'row':
        if (this.row) this.rows.push(this.row);
        this.row = null;
        break;
    }
  }

  text(piece: string): void {
    if (this.value.length <= CELL_RAW_MAX) this.value += piece.slice(0, CELL_RAW_MAX + 1 - this.value.length);
  }

  drain(): SheetRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  /** The cell as text, as exceljs gave it before: numbers as JavaScript prints them, booleans TRUE/FALSE. */
  private cellValue(type: string): string {
    const v = this.value;
    switch (type) {
      case 's':
        return this.strings.get(Number.parseInt(v, 10));
      case 'str':
      case 'inlineStr':
      case 'd':
        return cellText(v);
      case 'b':
        return v.trim() === '' ? '' : cellText(Number.parseInt(v, 10) !== 0);
      case 'e':
        return '';
      default:
        return cellText(Number.parseFloat(v));
    }
  }
}

/** A column's letters (2 → 'B', 16,384 → 'XFD'). */
function columnName(column: number): string {
  let name = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** The column number of a cell reference ('B7' → 2); 0 when it has no letters, past XFD when too long. */
function columnOf(ref: string): number {
  let column = 0;
  for (let i = 0; i < ref.length && i < 4; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 0x61 || c > 0x7a) break;
    column = column * 26 + (c - 0x60);
  }
  return column;
}
