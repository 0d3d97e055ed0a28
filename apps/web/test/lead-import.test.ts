import { describe, expect, it } from 'vitest';
import { CLIENTS_TEMPLATE_CSV, leadFileProblem, sizeInMb } from '../src/modules/lead-import/api/file-rules';

/** The upload tab's own checks (§5 'File import') and its template (§2.11). */
describe('lead file checks in the browser', () => {
  const MB = 1024 * 1024;
  it('accept CSV and Excel files by name or the text/csv type, up to 10 MB', () => {
    expect(leadFileProblem({ name: 'leads.CSV', type: '', size: 100 })).toBeNull();
    expect(leadFileProblem({ name: 'leads.xlsx', type: '', size: 100 })).toBeNull();
    expect(leadFileProblem({ name: 'old.xls', type: 'application/vnd.ms-excel', size: 100 })).toBeNull();
    expect(leadFileProblem({ name: 'export', type: 'text/csv', size: 100 })).toBeNull();
    expect(leadFileProblem({ name: 'photo.png', type: 'image/png', size: 100 })).toBe('type');
    expect(leadFileProblem({ name: 'big.csv', type: 'text/csv', size: 10 * MB })).toBeNull();
    expect(leadFileProblem({ name: 'big.csv', type: 'text/csv', size: 10 * MB + 1 })).toBe('size');
    expect(sizeInMb(2.5 * MB)).toBe('2.50');
  });

  it('the template has the four required columns and sample rows in Russian and English', () => {
    const lines = CLIENTS_TEMPLATE_CSV.replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('full name,Email,Phone,Country');
    expect(lines.slice(1).some((l) => /[А-Яа-я]/.test(l))).toBe(true);
    expect(lines.slice(1).some((l) => /^[A-Za-z ]+,/.test(l))).toBe(true);
    expect(lines.slice(1).every((l) => l.split(',').length === 4)).toBe(true);
  });
});
