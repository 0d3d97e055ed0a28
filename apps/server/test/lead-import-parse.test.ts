import { LEAD_IMPORT_REJECTED_KEPT } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import { detectDelimiter, matchHeader } from '../src/modules/imports/parse/headers.js';
import { cellText, LeadCollector, MAX_IMPORT_ROWS } from '../src/modules/imports/parse/rows.js';
import { kindByName, sniff } from '../src/modules/imports/parse/index.js';
import { SharedStrings } from '../src/modules/imports/parse/xlsx.js';
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
