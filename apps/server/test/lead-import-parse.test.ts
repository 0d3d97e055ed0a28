import { describe, expect, it } from 'vitest';
import { detectDelimiter, matchHeader } from '../src/modules/imports/parse/headers.js';
import { cellText, LeadCollector } from '../src/modules/imports/parse/rows.js';
import { kindByName, sniff } from '../src/modules/imports/parse/index.js';
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
