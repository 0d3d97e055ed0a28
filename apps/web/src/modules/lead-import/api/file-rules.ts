import { LEAD_IMPORT_EXTENSIONS, LEAD_IMPORT_MAX_MB } from '@brokerage/shared';

export type LeadFileProblem = 'type' | 'size';

/**
 * §5 'File import': type text/csv or a name ending in .csv, .xlsx or .xls, else 'Please select a CSV or Excel file';
 * over 10 MB refused in the browser too. The server checks both again (and the content).
 */
export function leadFileProblem(file: { name: string; type: string; size: number }): LeadFileProblem | null {
  const name = file.name.toLowerCase();
  const typeOk = file.type === 'text/csv' || LEAD_IMPORT_EXTENSIONS.some((ext) => name.endsWith(ext));
  if (!typeOk) return 'type';
  if (file.size > LEAD_IMPORT_MAX_MB * 1024 * 1024) return 'size';
  return null;
}

/** A size in MB with two decimals, as the page shows the chosen file ('2.35'). */
export function sizeInMb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(2);
}

/**
 * clients_template.csv (§2.11): the four required columns and sample rows in Russian and English. UTF-8 with a BOM,
 * so that Excel opens the Cyrillic rows correctly; comma-separated, as the stated requirements say.
 */
export const CLIENTS_TEMPLATE_CSV =
  '\ufefffull name,Email,Phone,Country\r\n' +
  'Ерлан Нурланов,erlan.nurlanov@example.kz,+7 701 555 01 23,Казахстан\r\n' +
  'Анна Смирнова,anna.smirnova@example.ru,+7 916 555 01 02,Россия\r\n' +
  'John Smith,john.smith@example.co.uk,+44 7700 900456,United Kingdom\r\n' +
  'Maria Garcia,maria.garcia@example.es,+34 612 345 678,Spain\r\n';

export function downloadTemplate(): void {
  const url = URL.createObjectURL(new Blob([CLIENTS_TEMPLATE_CSV], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'clients_template.csv';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
