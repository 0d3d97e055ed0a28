import { LEAD_IMPORT_REJECTED_KEPT } from '@brokerage/shared';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { csvParseHook, csvParseHookPresent, detectCsvEncoding } from '../src/modules/imports/parse/csv.js';
import { Upload, type UploadFileStream } from '../src/modules/imports/parse/upload.js';
import { Turns, xlsRecords } from '../src/modules/imports/parse/xls.js';
import { workbook } from './xlsx-files.js';
import { HttpError } from '../src/platform/http/errors.js';
import { errorMessage } from '../src/platform/http/messages.js';
import { detectDelimiter, matchHeader } from '../src/modules/imports/parse/headers.js';
import { cellText, LeadCollector, MAX_IMPORT_ROWS, type SheetRow } from '../src/modules/imports/parse/rows.js';
import { kindByName, sniff } from '../src/modules/imports/parse/index.js';
import { MAX_ROW_CELLS, SharedStrings, xlsxRecords } from '../src/modules/imports/parse/xlsx.js';
import { attribute, XmlScanner, type XmlHandler } from '../src/modules/imports/parse/xml.js';
import { rejectedCsv } from '../src/modules/imports/rejected-csv.js';

/** The pure rules of the lead import: which column is which, the CSV separator, cell texts, row checks. */
describe('lead file headers', () => {
  it('match in Russian and English, in any letter case and spacing', () => {
    expect(matchHeader(['ФИО', 'ПОЧТА', ' телефон ', 'Страна', 'Кампания', 'Источник']).columns).toEqual({
      name: 0,
      email: 1,
      phone: 2,
      country: 3,
      campaign: 4,
      source: 5,
    });
    expect(matchHeader(['Full Name', 'E-Mail', 'phone', 'COUNTRY']).missing).toEqual([]);
    expect(matchHeader(['\ufeffname', 'email', 'Phone\u00a0', 'country']).missing).toEqual([]);
    expect(matchHeader(['Имя', 'e-mail', 'Телефон', 'страна']).missing).toEqual([]);
  });

  it('name the required columns that are missing, and take the first of a repeated name', () => {
    expect(matchHeader(['Name', 'Comment']).missing).toEqual(['email', 'phone', 'country']);
    expect(matchHeader(['Email', 'Name', 'Email']).columns.email).toBe(0);
    // "Phone number" is not a header the template or the spec names.
    expect(matchHeader(['Name', 'Email', 'Phone number', 'Country']).missing).toEqual(['phone']);
  });
});

describe('CSV separator', () => {
  it('is found on the header line, outside quotes', () => {
    expect(detectDelimiter('full name,Email,Phone,Country')).toBe(',');
    expect(detectDelimiter('ФИО;Почта;Телефон;Страна')).toBe(';');
    expect(detectDelimiter('"Name, full";Email;Phone;Country')).toBe(';');
    expect(detectDelimiter('name\temail\tphone\tcountry')).toBe('\t');
    expect(detectDelimiter('single')).toBe(',');
  });
});

describe('file kinds', () => {
  it('come from the name, and the first bytes say what a file really is', () => {
    expect(kindByName('Leads.XLSX', '')).toBe('xlsx');
    expect(kindByName('old.xls', '')).toBe('xls');
    expect(kindByName('leads.csv', '')).toBe('csv');
    expect(kindByName('export', 'text/csv')).toBe('csv');
    expect(kindByName('photo.png', 'image/png')).toBeNull();
    expect(sniff(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]))).toBe('PNG');
    expect(sniff(Buffer.from('PK\u0003\u0004', 'latin1'))).toBe('XLSX');
    expect(sniff(Buffer.from('full name,Email'))).toBeNull();
  });
});

describe('rows', () => {
  it('read cells of every reader as trimmed text', () => {
    expect(cellText(87011234567)).toBe('87011234567');
    expect(cellText({ richText: [{ text: 'Ал' }, { text: 'ия ' }] })).toBe('Алия');
    expect(cellText({ formula: 'A1', result: '+7 701' })).toBe('+7 701');
    expect(cellText({ text: 'mail@example.com', hyperlink: 'mailto:mail@example.com' })).toBe('mail@example.com');
    expect(cellText(new Date('2026-11-25T00:00:00Z'))).toBe('2026-11-25');
    expect(cellText(null)).toBe('');
    expect(cellText('a\u0000b')).toBe('ab');
    // Longer than any field: read as its first 299 characters and '…', whatever its length (issue 20).
    expect(cellText(` ${'x'.repeat(100_000)}`)).toBe(`${'x'.repeat(299)}…`);
    expect(cellText(cellText('y'.repeat(5000)))).toBe(cellText('y'.repeat(5000)));
  });

  it('count toward the row limit, blank ones too, and keep the cells of the first rejected rows only', () => {
    const c = new LeadCollector('KZ');
    c.accept(1, ['full name', 'Email', 'Phone', 'Country']);
    for (let row = 2; row <= MAX_IMPORT_ROWS + 1; row++) c.accept(row, []);
    expect(() => c.accept(MAX_IMPORT_ROWS + 2, [])).toThrow('upload_too_many_rows');
    expect(c.total).toBe(0);

    const d = new LeadCollector('KZ');
    d.accept(1, ['full name', 'Email', 'Phone', 'Country']);
    for (let row = 2; row < LEAD_IMPORT_REJECTED_KEPT + 12; row++) d.accept(row, ['z'.repeat(400), 'bad', '', '']);
    expect(d.invalidCount).toBe(LEAD_IMPORT_REJECTED_KEPT + 10);
    expect(d.invalid).toHaveLength(LEAD_IMPORT_REJECTED_KEPT);
    // An overlong cell is kept short (enough to find it); the others whole.
    expect(d.invalid[0]!.cells).toMatchObject({ name: `${'z'.repeat(20)}…`, email: 'bad' });
  });

  it('come sparse from a workbook: a cell of column XFD is one cell, and the header may be anywhere', () => {
    const c = new LeadCollector('KZ');
    c.accept(1, ['Country', 'full name', 'Email', 'Phone'], [16_383, 2, 5, 9]);
    c.accept(2, ['KZ', 'Anna', 'anna@example.com', '8 701 123 45 67'], [16_383, 2, 5, 9]);
    c.accept(3, ['only a note'], [7]);
    c.finish();
    expect(c.valid).toMatchObject({ name: ['Anna'], country: ['KZ'], phoneE164: ['+77011234567'] });
    expect(c.invalid.map((r) => r.row)).toEqual([3]);
  });

  it('are checked: required fields, the e-mail, the phone (E.164 with the default region), lengths', () => {
    const c = new LeadCollector('KZ');
    c.accept(1, ['full name', 'Email', 'Phone', 'Country']);
    c.accept(2, ['Anna', 'anna@example.com', '8 701 123 45 67', 'KZ']);
    c.accept(3, ['', '', '', '']); // blank: not a row
    c.accept(4, ['Bob', 'bob@', '+77011234568', 'KZ']);
    c.accept(5, ['x'.repeat(201), 'x@example.com', '+77011234569', 'KZ']);
    c.accept(6, ['Carl', 'carl@example.com', '', '']);
    c.finish();
    expect(c.total).toBe(4);
    expect(c.valid.phoneE164).toEqual(['+77011234567']);
    expect(c.invalid.map((r) => [r.row, r.reason])).toEqual([
      [4, { code: 'invalid_email' }],
      [5, { code: 'too_long', field: 'name', max: 200 }],
      [6, { code: 'missing', fields: ['phone', 'country'] }],
    ]);
  });

  it('a file without any header row is refused', () => {
    const c = new LeadCollector('KZ');
    c.accept(1, ['', '']);
    expect(() => c.finish()).toThrow('upload_no_header');
  });
});

/** Scans `chunks` and lists what the handler saw: tags (with `r`), and the text of <t> elements after a '#'. */
function scan(chunks: string[]): string[] {
  const seen: string[] = [];
  const handler: XmlHandler & { wantsText: boolean } = {
    wantsText: false,
    open(name, attributes) {
      seen.push(`<${name}${attribute(attributes, 'r') === undefined ? '' : ` r=${attribute(attributes, 'r')}`}>`);
      if (name === 't') handler.wantsText = true;
    },
    close(name) {
      seen.push(`</${name}>`);
      if (name === 't') handler.wantsText = false;
    },
    text(piece) {
      seen.push(`#${piece}`);
    },
  };
  const scanner = new XmlScanner(handler);
  for (const chunk of chunks) scanner.write(chunk);
  scanner.end();
  return seen;
}
const textOf = (seen: string[]) =>
  seen
    .filter((s) => s.startsWith('#'))
    .map((s) => s.slice(1))
    .join('');
const tagsOf = (seen: string[]) => seen.filter((s) => !s.startsWith('#'));

describe('the XML scanner of workbook parts', () => {
  it('reads tags, entities, CDATA and comments cut anywhere by chunk ends', () => {
    const xml = '<?xml version="1.0"?><x:row r="2"><!-- a <comment> --><t>A &amp; B</t><t><![CDATA[<C>]]></t></x:row>';
    const whole = scan([xml]);
    expect(textOf(whole)).toBe('A & B<C>');
    expect(whole).toContain('<row r=2>');
    for (let cut = 1; cut < xml.length; cut++) {
      const seen = scan([xml.slice(0, cut), xml.slice(cut)]);
      expect(textOf(seen), `cut at ${cut}`).toBe('A & B<C>');
      expect(tagsOf(seen), `cut at ${cut}`).toEqual(tagsOf(whole));
    }
    expect(attribute(' a="x>y" r:id=\'rId7\'', 'id')).toBe('rId7');
  });

  it('refuses a DOCTYPE, a tag longer than 64 kB and a part cut short', () => {
    expect(() => scan(['<!DOCTYPE x [<!ENTITY e "e">]><x/>'])).toThrow('DOCTYPE');
    expect(() => scan([`<c r="${'A'.repeat(70_000)}`])).toThrow('64 kB');
    expect(() => scan(['<sheetData><row>'])).toThrow('ends too early');
  });
});

describe('shared strings', () => {
  it('are packed into blocks and read back by index', () => {
    const strings = new SharedStrings();
    const texts = Array.from({ length: 20_000 }, (_, i) => `${i}:${'ж'.repeat(i % 300)}`);
    for (const text of texts) strings.add(text);
    for (const i of [0, 1, 3_499, 3_500, 12_345, 19_999]) expect(strings.get(i)).toBe(texts[i]);
    expect(strings.get(20_000)).toBe('');
    expect(strings.get(-1)).toBe('');
  });
});

describe('rejected rows CSV', () => {
  it('quotes what needs it and defuses formulas, but keeps phones as typed', () => {
    const cells = {
      name: '=HYPERLINK("x")',
      email: 'a@b.co',
      phone: '+7 (701) 123-45-67',
      country: 'Kazakhstan, KZ',
      campaign: '-cmd',
      source: '',
    };
    expect(rejectedCsv([{ row: 2, reason: 'r', cells }]).split('\r\n')[1]).toBe(
      `2,r,"'=HYPERLINK(""x"")",a@b.co,+7 (701) 123-45-67,"Kazakhstan, KZ",'-cmd,`,
    );
  });
});

/** An upload of `content` as the routes make one (the whole file in one chunk). */
const uploadOf = (name: string, content: Buffer | string) =>
  new Upload(Readable.from([Buffer.from(content)]) as UploadFileStream, name, '', 10);

/** The first refusal of reading `file` as XLSX, answered as the error handler answers it. */
async function xlsxRefusal(sheetRows: string): Promise<{ status: number; code: string; en: string }> {
  const file = workbook({
    sheets: [{ name: 'Leads', rows: () => [sheetRows] }],
    sharedStrings: ['<t>full name</t>', '<t>Email</t>', '<t>Phone</t>', '<t>Country</t>'],
  });
  try {
    for await (const _ of xlsxRecords(uploadOf('wide.xlsx', file), 200));
  } catch (err) {
    if (err instanceof HttpError)
      return { status: err.statusCode, code: err.code, en: errorMessage(err.code, 'en', err.params) };
    throw err;
  }
  throw new Error('read without a refusal');
}

describe('sheet rows (issue 20: one row of millions of cells)', () => {
  const header = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>';
  it('refuse a cell that is not to the right of the one before it, naming the row', async () => {
    expect(await xlsxRefusal(`${header}<row r="2"><c r="A2"><v>1</v></c><c r="A2"><v>1</v></c></row>`)).toEqual({
      status: 400,
      code: 'upload_cell_out_of_order',
      en: expect.stringMatching(/^Sheet row 2: the cell in column A is not to the right of the one before it \(A\)/),
    });
    const back = await xlsxRefusal(`${header}<row r="7"><c r="C7"><v>1</v></c><c r="B7"><v>1</v></c></row>`);
    expect(back).toMatchObject({ code: 'upload_cell_out_of_order' });
    expect(back.en).toMatch(/^Sheet row 7: the cell in column B is not to the right of the one before it \(C\)/);
  });

  it(`refuse a row of more than ${MAX_ROW_CELLS} cells (Excel's columns), references or none`, async () => {
    expect(MAX_ROW_CELLS).toBe(16_384);
    const noRefs = `${header}<row>${'<c><v>1</v></c>'.repeat(MAX_ROW_CELLS + 1)}</row>`;
    expect(await xlsxRefusal(noRefs)).toEqual({
      status: 400,
      code: 'upload_row_too_wide',
      en: 'Sheet row 2: more than 16384 cells (the columns of an Excel sheet)',
    });
    const pastXfd = `${header}<row r="3"><c r="XFE3"><v>1</v></c></row>`;
    expect(await xlsxRefusal(pastXfd)).toMatchObject({
      code: 'upload_row_too_wide',
      en: expect.stringMatching(/^Sheet row 3:/),
    });
    // A full row, every column once in order, is read.
    const full = Array.from({ length: MAX_ROW_CELLS }, () => '<c><v>1</v></c>').join('');
    const file = workbook({ sheets: [{ name: 'L', rows: () => [`${header}<row>${full}</row>`] }], sharedStrings: [] });
    const rows: SheetRow[] = [];
    for await (const row of xlsxRecords(uploadOf('full.xlsx', file), 200)) rows.push(row);
    expect(rows[1]!.cells).toHaveLength(MAX_ROW_CELLS);
    expect(rows[1]!.columns!.at(-1)).toBe(MAX_ROW_CELLS - 1);
  });
});

describe('the CSV reader and the csv-parse internal it relies on', () => {
  it('finds the hook in the pinned csv-parse, and says when a parser lacks it', async () => {
    expect(csvParseHookPresent()).toBe(true);
    expect(csvParseHook({ api: { state: { record: [], expectedRecordLength: 0 } } })).toBeNull();
    expect(csvParseHook({ api: { __onRecord: () => undefined, state: {} } })).toBeNull();
    expect(csvParseHook({})).toBeNull();
  });

  it('refuses a CSV upload with a 503 and an error in the log when csv-parse has lost the hook', async () => {
    vi.resetModules();
    vi.doMock('csv-parse', async (importOriginal) => {
      const real = await importOriginal<typeof import('csv-parse')>();
      return {
        ...real,
        parse: (...args: Parameters<typeof real.parse>) => {
          const parser = real.parse(...args);
          delete (parser as unknown as { api: { __onRecord?: unknown } }).api.__onRecord; // as after an upgrade
          return parser;
        },
      };
    });
    try {
      const csv = await import('../src/modules/imports/parse/csv.js');
      const { HttpError: FreshHttpError } = await import('../src/platform/http/errors.js');
      const { Upload: FreshUpload } = await import('../src/modules/imports/parse/upload.js');
      expect(csv.csvParseHookPresent()).toBe(false);
      const logged: unknown[] = [];
      const upload = new FreshUpload(
        Readable.from([
          Buffer.from('full name,Email,Phone,Country\nA,a@example.com,+77010000001,KZ\n'),
        ]) as UploadFileStream,
        'leads.csv',
        'text/csv',
        10,
      );
      const refusal = await (async () => {
        for await (const _ of csv.csvRecords(upload, { error: (...args: unknown[]) => void logged.push(args) }));
      })().catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(FreshHttpError);
      expect(refusal).toMatchObject({ statusCode: 503, code: 'upload_csv_unavailable' });
      expect(logged).toEqual([[{ csvParse: csv.CSV_PARSE_HOOK }, expect.stringContaining('csv-parse lacks the hook')]]);
    } finally {
      vi.doUnmock('csv-parse');
      vi.resetModules();
    }
  });
});

describe('the legacy XLS reader', () => {
  it('reads one workbook at a time: the next waits its turn, and past the waiting room the answer is 503', async () => {
    const turns = new Turns(1, 1);
    const first = await turns.take();
    let secondStarted = false;
    const second = turns.take().then((end) => ((secondStarted = true), end));
    const third = await turns.take().catch((err: unknown) => err);
    expect(third).toBeInstanceOf(HttpError);
    expect(third).toMatchObject({ statusCode: 503, code: 'upload_xls_busy', retryAfterSeconds: 30 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondStarted).toBe(false);
    first();
    first(); // a turn ends once
    (await second)();
    expect(secondStarted).toBe(true);
    // Both turns are free again.
    (await turns.take())();
    (await turns.take())();
  });

  it('logs how a read ended (time, size), never the file name or content', async () => {
    const XLSX = await import('@e965/xlsx');
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['full name', 'secret.person@example.com']]), 'L');
    const file = XLSX.write(book, { bookType: 'xls', type: 'buffer' }) as Buffer;
    const logged: unknown[][] = [];
    const refusal = await (async () => {
      const upload = uploadOf('Leads of Secret Person.xls', file);
      const log = { warn: (...args: unknown[]) => void logged.push(args) };
      for await (const _ of xlsRecords(upload, log, { heapMb: 512, timeoutMs: 1 }));
    })().catch((err: unknown) => err);
    expect(refusal).toMatchObject({ statusCode: 422, code: 'upload_xls_too_slow' });
    expect(logged).toEqual([
      [{ xls: expect.objectContaining({ outcome: 'timeout', bytes: file.length }) }, 'XLS reader gave no rows'],
    ]);
    expect(JSON.stringify(logged)).not.toMatch(/Secret|secret/);
  });
});

describe('the encoding of a CSV file', () => {
  // 'Иван;Ёж;№ 5 «да»' in Windows-1251, written out byte by byte.
  const russian1251 = Buffer.from([
    0xc8, 0xe2, 0xe0, 0xed, 0x3b, 0xa8, 0xe6, 0x3b, 0xb9, 0x20, 0x35, 0x20, 0xab, 0xe4, 0xe0, 0xbb, 0x0a,
  ]);

  it('reads byte order marks, UTF-16 without one, valid UTF-8 and Windows-1251 text', () => {
    expect(detectCsvEncoding(Buffer.from('\ufeffa;b\n', 'utf8'), true)).toBe('utf-8');
    expect(detectCsvEncoding(Buffer.from('Иван;Ёж\n', 'utf8'), true)).toBe('utf-8');
    expect(detectCsvEncoding(Buffer.from('ascii,only\n'), true)).toBe('utf-8');
    expect(detectCsvEncoding(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb\n', 'utf16le')]), true)).toBe(
      'utf-16le',
    );
    expect(detectCsvEncoding(Buffer.from('name,email\nАня,a@b.c\n', 'utf16le'), true)).toBe('utf-16le');
    expect(detectCsvEncoding(Buffer.from('name,email\n', 'utf16le').swap16(), true)).toBe('utf-16be');
    expect(detectCsvEncoding(russian1251, true)).toBe('windows-1251');
    expect(new TextDecoder('windows-1251').decode(russian1251)).toBe('Иван;Ёж;№ 5 «да»\n');
  });

  it('does not mistake a UTF-8 character cut at the end of the first bytes, and decides nothing for other bytes', () => {
    const cut = Buffer.from('Иван', 'utf8').subarray(0, 3); // 'И' and half of 'в'
    expect(detectCsvEncoding(cut, false)).toBe('utf-8');
    // As the whole file it is not UTF-8, nor Windows-1251 (0x98 is no character there): undecided.
    expect(detectCsvEncoding(cut, true)).toBeNull();
    expect(detectCsvEncoding(Buffer.from([0x41, 0x80, 0x81, 0x8a, 0x9d]), true)).toBeNull();
  });
});
