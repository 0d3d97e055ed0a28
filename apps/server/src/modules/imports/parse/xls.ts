import { HttpError } from '../../../platform/http/errors.js';
import { MAX_IMPORT_ROWS, type SheetRow } from './rows.js';
import type { Upload } from './upload.js';

type SheetJs = typeof import('@e965/xlsx');
let sheetJs: Promise<SheetJs> | undefined;

/** SheetJS (@e965/xlsx, the 0.20.3 release; never the npm `xlsx` 0.18.5 with its known CVEs), loaded on first use. */
function loadSheetJs(): Promise<SheetJs> {
  sheetJs ??= (async () => {
    const XLSX = await import('@e965/xlsx');
    // Code pages for BIFF5 and older files whose strings are not Unicode (e.g. windows-1251).
    const cptable = await import('@e965/xlsx/dist/cpexcel.full.mjs');
    XLSX.set_cptable(cptable);
    return XLSX;
  })();
  return sheetJs;
}

/**
 * The rows of the first sheet of a legacy Excel 97–2003 (.xls, a compound file) upload. The format cannot be read as
 * a stream, so the file is gathered in memory first — counted against the size limit as it arrives — and read by
 * SheetJS with a row cap; anything SheetJS cannot read is a 400 naming the file.
 */
export async function* xlsRecords(upload: Upload): AsyncGenerator<SheetRow> {
  const data = await upload.buffer();
  const XLSX = await loadSheetJs();
  let rows: unknown[][];
  let firstRow = 0;
  try {
    const book = XLSX.read(data, {
      type: 'buffer',
      dense: true,
      sheets: 0,
      cellDates: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      sheetRows: MAX_IMPORT_ROWS + 2,
    });
    const sheet = book.SheetNames[0] === undefined ? undefined : book.Sheets[book.SheetNames[0]];
    if (!sheet) throw new Error('no worksheet');
    if (sheet['!ref']) firstRow = XLSX.utils.decode_range(sheet['!ref']).s.r;
    rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: null, blankrows: true });
  } catch {
    throw new HttpError(400, 'upload_not_xls', { name: upload.name });
  }
  for (let i = 0; i < rows.length; i++) yield { row: firstRow + i + 1, cells: rows[i] ?? [] };
}
