/**
 * The browser's checks of the registration form, in the order of client-platform.md §5, with its messages (ru and en
 * from the spec, kk for the public site). Pure and free of zod, so the public page can use it without the schema
 * library; the server checks the same fields again with registerClientRequestSchema.
 */
export const REGISTRATION_MESSAGES = {
  required: {
    ru: 'Заполните все обязательные поля',
    en: 'Please fill in all required fields',
    kk: 'Барлық міндетті өрістерді толтырыңыз',
  },
  password_mismatch: { ru: 'Пароли не совпадают', en: 'Passwords do not match', kk: 'Құпиясөздер сәйкес келмейді' },
  invalid_email: {
    ru: 'Некорректный адрес электронной почты',
    en: 'Please enter a valid email address',
    kk: 'Дұрыс электрондық пошта мекенжайын енгізіңіз',
  },
  invalid_phone: {
    ru: 'Введите корректный номер телефона',
    en: 'Please enter a valid phone number',
    kk: 'Дұрыс телефон нөмірін енгізіңіз',
  },
  password_too_short: {
    ru: 'Пароль должен содержать не менее 6 символов',
    en: 'Password must be at least 6 characters long',
    kk: 'Құпиясөз кемінде 6 таңбадан тұруы керек',
  },
} as const;
export type RegistrationError = keyof typeof REGISTRATION_MESSAGES;

export interface RegistrationForm {
  name: string;
  phone: string;
  email: string;
  password: string;
  confirmPassword: string;
}

/** §5: {email} with no whitespace. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 6;
export const MIN_PHONE_DIGITS = 10;

/**
 * The first problem of a registration form, or null. Order: every field filled (they are all required inputs, §2.3),
 * then §5: 1. passwords match, 2. e-mail, 3. phone (at least 10 digits, as the server counts), 4. password length.
 */
export function registrationError(form: RegistrationForm): RegistrationError | null {
  const filled = [form.name, form.phone, form.email, form.password, form.confirmPassword].every((v) => v.trim() !== '');
  if (!filled) return 'required';
  if (form.password !== form.confirmPassword) return 'password_mismatch';
  if (!EMAIL.test(form.email.trim())) return 'invalid_email';
  if (form.phone.trim() !== '' && form.phone.replace(/\D/g, '').length < MIN_PHONE_DIGITS) return 'invalid_phone';
  if (form.password.length < MIN_PASSWORD_LENGTH) return 'password_too_short';
  return null;
}
