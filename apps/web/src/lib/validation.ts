import { VALIDATION_MESSAGES, type ValidationCode } from '@brokerage/shared';
import type { TFunction } from 'i18next';
import type { z } from 'zod';
import { currentLanguage } from '../i18n';
import type ru from '../i18n/ru.json';

type ValidationKey = `validation.${keyof (typeof ru)['validation']}`;

function isValidationCode(code: string): code is ValidationCode {
  return Object.hasOwn(VALIDATION_MESSAGES, code);
}

/** A shared schema's message is a code with an optional parameter ('min_length:6'); the web shows `validation.<code>`. */
export function translateValidation(message: string, t: TFunction): string {
  const [code = '', n = ''] = message.split(':');
  if (!isValidationCode(code)) return message;
  // A code added to the shared schemas before its translation (test/i18n.test.ts flags it) still reads well.
  const lang = currentLanguage();
  const defaultValue = VALIDATION_MESSAGES[code][lang === 'kk' ? 'ru' : lang].replace('{n}', n);
  return t(`validation.${code}` as ValidationKey, { n, defaultValue });
}

/**
 * A Mantine form `validate` function from a shared zod schema: the first issue of each field, translated.
 * Keeps the browser's checks exactly the server's.
 */
export function schemaValidator<Values>(schema: z.ZodType, t: TFunction) {
  return (values: Values): Record<string, string> => {
    const result = schema.safeParse(values);
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const field = issue.path.map(String).join('.');
      if (field && !(field in errors)) errors[field] = translateValidation(issue.message, t);
    }
    return errors;
  };
}
