/**
 * Validation messages are stable codes in the shared schemas. The server turns them into a sentence in the
 * caller's language (Accept-Language, ru by default); the web turns them into its translation keys
 * `validation.<code>`. A code may carry parameters after a colon, e.g. 'min_length:6'.
 */
export const VALIDATION_MESSAGES = {
  required: { ru: 'Обязательное поле', en: 'Required field' },
  invalid_email: { ru: 'Некорректный адрес электронной почты', en: 'Please enter a valid email address' },
  min_length: { ru: 'Минимум {n} символов', en: 'Minimum {n} characters' },
  max_length: { ru: 'Не более {n} символов', en: 'At most {n} characters' },
  invalid_ip: { ru: 'Некорректный формат IP-адреса', en: 'Invalid IP address format' },
  invalid_phone: { ru: 'Введите корректный номер телефона', en: 'Please enter a valid phone number' },
  invalid_role: { ru: 'Недопустимая роль', en: 'Invalid role' },
  invalid_value: { ru: 'Недопустимое значение', en: 'Invalid value' },
  invalid_type: { ru: 'Неверный тип значения', en: 'Wrong type of value' },
  dates_both_or_neither: { ru: 'Укажите обе даты или ни одной', en: 'Give both dates or neither' },
  date_from_after_date_to: { ru: 'Дата начала позже даты окончания', en: 'The start date is after the end date' },
  invalid_time_zone: { ru: 'Неизвестный часовой пояс', en: 'Unknown time zone' },
  max_value: { ru: 'Не более {n}', en: 'At most {n}' },
  range_inverted: { ru: 'Значение «до» меньше значения «от»', en: 'The upper bound is below the lower one' },
} as const;

export type ValidationCode = keyof typeof VALIDATION_MESSAGES;
export type Lang = 'ru' | 'en';

export function validationMessage(message: string, lang: Lang): string {
  const [code, param] = message.split(':');
  const entry = VALIDATION_MESSAGES[code as ValidationCode];
  if (!entry) return message;
  // A large number reads with its digits grouped ('1 000 000 000 000'), as amounts are shown.
  const n =
    param && /^\d{5,}$/.test(param)
      ? new Intl.NumberFormat(lang === 'ru' ? 'ru-RU' : 'en-US').format(Number(param))
      : param;
  return entry[lang].replace('{n}', n ?? '');
}
