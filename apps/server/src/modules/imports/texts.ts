import type { Lang } from '@brokerage/shared';
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
