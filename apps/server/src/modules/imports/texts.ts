import type { Lang } from '@brokerage/shared';
import { WordedError } from '../../platform/http/error-handler.js';
import { FIELD_LABEL } from './parse/headers.js';
import type { RowReason } from './parse/rows.js';

/** Why a row was not created, in the uploader's language (the answer's `rejected` and the rejected rows' CSV). */
export function reasonText(reason: RowReason, lang: Lang): string {
  const ru = lang === 'ru';
  switch (reason.code) {
    case 'missing': {
      const fields = reason.fields.map((f) => FIELD_LABEL[f]).join(', ');
      return ru ? `не заполнено: ${fields}` : `missing: ${fields}`;
    }
    case 'invalid_email':
      return ru ? 'некорректный e-mail' : 'malformed e-mail';
    case 'invalid_phone':
      return ru ? 'телефон не распознан' : 'the phone number cannot be parsed';
    case 'too_long':
      return ru
        ? `${FIELD_LABEL[reason.field]}: длиннее ${reason.max} символов`
        : `${FIELD_LABEL[reason.field]}: longer than ${reason.max} characters`;
    case 'duplicate_email_base':
      return ru ? 'дубликат: такой e-mail уже есть в базе' : 'duplicate: the e-mail is already in the base';
    case 'duplicate_phone_base':
      return ru ? 'дубликат: такой телефон уже есть в базе' : 'duplicate: the phone is already in the base';
    case 'duplicate_email_row':
      return ru ? `дубликат: тот же e-mail, что в строке ${reason.row}` : `duplicate: same e-mail as row ${reason.row}`;
    case 'duplicate_phone_row':
      return ru ? `дубликат: тот же телефон, что в строке ${reason.row}` : `duplicate: same phone as row ${reason.row}`;
  }
}

export function resultMessage(lang: Lang, created: number, total: number): string {
  return lang === 'ru'
    ? `Файл обработан: создано клиентов — ${created} из ${total}`
    : `File processed: ${created} of ${total} clients created`;
}

/**
 * The refusals of the file checks added after issue 20 (their codes are the import's own; messages.ts holds the
 * earlier ones). Params are filled in as in messages.ts.
 */
const FILE_ERRORS = {
  upload_cell_out_of_order: {
    ru: 'Строка {row} листа: ячейка в столбце {column} стоит не правее предыдущей ({previous}). Файл поврежден или записан не программой электронных таблиц: откройте его в Excel и сохраните заново',
    en: 'Sheet row {row}: the cell in column {column} is not to the right of the one before it ({previous}). The file is damaged or was not written by a spreadsheet program: open it in Excel and save it again',
  },
  upload_row_too_wide: {
    ru: 'Строка {row} листа: больше {max} ячеек (столько столбцов у листа Excel)',
    en: 'Sheet row {row}: more than {max} cells (the columns of an Excel sheet)',
  },
  upload_xls_too_slow: {
    ru: 'Книгу «{name}» не удалось прочитать за {seconds} с: сохраните ее как .xlsx или CSV UTF-8 и загрузите снова',
    en: 'The workbook "{name}" could not be read within {seconds} s: save it as .xlsx or CSV UTF-8 and upload it again',
  },
  upload_xls_too_big: {
    ru: 'Книге «{name}» нужно больше {mb} МБ памяти, чем отведено на чтение .xls: сохраните ее как .xlsx или CSV UTF-8 и загрузите снова',
    en: 'The workbook "{name}" needs more than the {mb} MB of memory set aside for reading .xls: save it as .xlsx or CSV UTF-8 and upload it again',
  },
  upload_xls_busy: {
    ru: 'Сейчас читаются другие книги .xls: повторите через {seconds} с (или загрузите файл как .xlsx или CSV)',
    en: 'Other .xls workbooks are being read: try again in {seconds} s (or upload the file as .xlsx or CSV)',
  },
  upload_csv_unavailable: {
    ru: 'Загрузка CSV временно недоступна: сервер запущен с несовместимой версией библиотеки чтения CSV. Загрузите файл как .xlsx или сообщите администратору',
    en: 'CSV upload is unavailable: the server runs an incompatible version of its CSV reader. Upload the file as .xlsx, or tell the administrator',
  },
} as const satisfies Record<string, Record<Lang, string>>;

export type FileErrorCode = keyof typeof FILE_ERRORS;

/** A refusal of a file check, in both languages, for the error handler to answer in the caller's. */
export function fileError(
  status: number,
  code: FileErrorCode,
  params: Record<string, string | number> = {},
  retryAfterSeconds?: number,
): WordedError {
  const fill = (text: string) => Object.entries(params).reduce((t, [k, v]) => t.replaceAll(`{${k}}`, String(v)), text);
  return new WordedError(
    status,
    code,
    { ru: fill(FILE_ERRORS[code].ru), en: fill(FILE_ERRORS[code].en) },
    retryAfterSeconds,
  );
}
