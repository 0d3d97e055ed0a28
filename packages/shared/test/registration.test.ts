import { describe, expect, it } from 'vitest';
import {
  REGISTRATION_MESSAGES,
  registrationError,
  registerClientRequestSchema,
  type RegistrationForm,
} from '../src/index.js';

const ok: RegistrationForm = {
  name: 'Aidos Trader',
  phone: '+7 701 123 45 67',
  email: 'aidos@example.com',
  password: 'secret1',
  confirmPassword: 'secret1',
};

describe('registration checks (client-platform.md §5)', () => {
  it('accepts a complete form, which the server schema accepts too', () => {
    expect(registrationError(ok)).toBeNull();
    const { confirmPassword: _, ...body } = ok;
    expect(registerClientRequestSchema.safeParse(body).success).toBe(true);
  });

  it('asks for every field first', () => {
    for (const field of ['name', 'phone', 'email', 'password', 'confirmPassword'] as const)
      expect(registrationError({ ...ok, [field]: '  ' }), field).toBe('required');
  });

  it('checks in the order: passwords match, e-mail, phone, password length', () => {
    // Everything wrong at once: the mismatch is reported first.
    const bad = { ...ok, email: 'not an email', phone: '12345', password: 'abc', confirmPassword: 'abd' };
    expect(registrationError(bad)).toBe('password_mismatch');
    expect(registrationError({ ...bad, confirmPassword: 'abc' })).toBe('invalid_email');
    expect(registrationError({ ...bad, confirmPassword: 'abc', email: 'a@b.co' })).toBe('invalid_phone');
    expect(registrationError({ ...bad, confirmPassword: 'abc', email: 'a@b.co', phone: '0123456789' })).toBe(
      'password_too_short',
    );
  });

  it('rejects an e-mail with whitespace or without a domain dot', () => {
    expect(registrationError({ ...ok, email: 'a b@example.com' })).toBe('invalid_email');
    expect(registrationError({ ...ok, email: 'ab@example' })).toBe('invalid_email');
  });

  it('counts the digits of a phone, as the server does', () => {
    expect(registrationError({ ...ok, phone: '+7 (701) 12' })).toBe('invalid_phone');
    const nine = { ...ok, phone: '123-456-789' };
    expect(registrationError(nine)).toBe('invalid_phone');
    const { confirmPassword: _, ...body } = nine;
    expect(registerClientRequestSchema.safeParse(body).success).toBe(false);
  });

  it('has the messages of the spec in ru and en, and a kk text for each', () => {
    expect(REGISTRATION_MESSAGES.password_mismatch).toMatchObject({
      ru: 'Пароли не совпадают',
      en: 'Passwords do not match',
    });
    expect(REGISTRATION_MESSAGES.invalid_email.en).toBe('Please enter a valid email address');
    expect(REGISTRATION_MESSAGES.invalid_phone.en).toBe('Please enter a valid phone number');
    expect(REGISTRATION_MESSAGES.password_too_short.en).toBe('Password must be at least 6 characters long');
    for (const m of Object.values(REGISTRATION_MESSAGES))
      for (const lang of ['ru', 'en', 'kk'] as const) expect(m[lang]).toBeTruthy();
  });
});
