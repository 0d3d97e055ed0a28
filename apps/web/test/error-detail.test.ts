import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../src/i18n/resources';
import { nameFields } from '../src/lib/error-detail';

/**
 * Issue 15 defect 7: a refusal's detail names its fields in words from the translation files on every screen
 * (ApiError passes each detail through nameFields), never by the API key ('text: Не более 5000 символов').
 */
const labels: Record<'ru' | 'en', (key: string) => string | null> = {} as never;
beforeAll(async () => {
  for (const lng of ['ru', 'en'] as const) {
    const instance = i18next.createInstance();
    await instance.init({ resources, lng, ns: ['translation', 'platform'], interpolation: { escapeValue: false } });
    const t = instance.t as unknown as (key: string) => string;
    labels[lng] = (key) => {
      for (const ns of ['translation', 'platform']) {
        if (instance.exists(`${ns}:fields.${key}`)) return t(`${ns}:fields.${key}`);
      }
      return null;
    };
  }
});

describe('server validation details on screen', () => {
  it('name the comment text in words, in ru and en', () => {
    expect(nameFields('text: Не более 5000 символов', labels.ru)).toBe('Текст комментария: Не более 5000 символов');
    expect(nameFields('text: At most 5000 characters', labels.en)).toBe('Comment text: At most 5000 characters');
  });

  it('name every field of a detail with several parts, paths included', () => {
    expect(nameFields('title: Обязательное поле. scheduled_time: Обязательное поле', labels.ru)).toBe(
      'Название: Обязательное поле. Дата и время: Обязательное поле',
    );
    expect(nameFields('client_ids.3: Недопустимое значение', labels.ru)).toBe('Клиенты: Недопустимое значение');
    expect(nameFields('card_number: недопустимый символ', labels.ru)).toBe('Номер карты: недопустимый символ');
  });

  it('leave details without a known field as they are', () => {
    expect(nameFields('Недостаточно средств', labels.ru)).toBe('Недостаточно средств');
    expect(nameFields('Сумма: 5. Итого', labels.ru)).toBe('Сумма: 5. Итого');
    expect(nameFields('unknown_thing: bad', labels.en)).toBe('unknown_thing: bad');
  });

  it('have a label in ru and en for the fields the API validates', () => {
    for (const key of ['text', 'name', 'email', 'phone', 'password', 'new_password', 'amount', 'reason', 'title']) {
      for (const lng of ['ru', 'en'] as const) {
        const words = labels[lng](key);
        expect(words, `${lng}:${key}`).toBeTruthy();
        expect(words).not.toBe(key);
      }
    }
  });
});
