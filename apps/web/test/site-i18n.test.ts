import { REGISTRATION_MESSAGES } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import en from '../src/i18n/locales/en/site.json';
import kk from '../src/i18n/locales/kk/site.json';
import ru from '../src/i18n/locales/ru/site.json';

describe("the public site's registration messages (client-platform.md §5, §8)", () => {
  it.each(Object.keys(REGISTRATION_MESSAGES) as (keyof typeof REGISTRATION_MESSAGES)[])(
    '%s reads as the shared check says, in ru, en and kk',
    (code) => {
      expect(ru.auth.errors[code]).toBe(REGISTRATION_MESSAGES[code].ru);
      expect(en.auth.errors[code]).toBe(REGISTRATION_MESSAGES[code].en);
      expect(kk.auth.errors[code]).toBe(REGISTRATION_MESSAGES[code].kk);
    },
  );

  it('has the texts of §5 and §8 in English and Russian', () => {
    expect(en.auth.errors).toMatchObject({
      password_mismatch: 'Passwords do not match',
      invalid_email: 'Please enter a valid email address',
      invalid_phone: 'Please enter a valid phone number',
      password_too_short: 'Password must be at least 6 characters long',
      email_taken: 'User with this email is already registered',
      phone_taken_user: 'User with this phone number is already registered',
      phone_taken_client: 'Client with this phone number already exists',
    });
    expect(ru.auth.errors.password_mismatch).toBe('Пароли не совпадают');
    expect(ru.auth).toMatchObject({ loggingIn: 'Входим...', registering: 'Регистрируемся...' });
    expect(ru.marketInfo.demo).toBe('демо-данные');
    expect(ru.marketInfo.calendar.refresh).toBe('Обновить');
  });
});
