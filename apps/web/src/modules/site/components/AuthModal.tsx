import { registrationError, type RegistrationForm, type SiteFacts } from '@brokerage/shared';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SiteForgotPassword } from '../../auth/components/SiteForgotPassword';
import { SiteApiError, siteApi } from '../api';
import { landingPathAfterLogin } from '../routing';
import { Dialog } from './Dialog';
import { RiskStatement } from './RiskStatement';

export type AuthMode = 'login' | 'register';

const EMPTY: RegistrationForm = { name: '', phone: '', email: '', password: '', confirmPassword: '' };
/** The mail language of a new client: the site's language when it is one of the mail's, else Russian. */
function mailLanguage(lang: string): 'ru' | 'en' | 'kk' {
  return lang === 'en' || lang === 'kk' ? lang : 'ru';
}
const SERVER_CODES = ['email_taken', 'phone_taken_user', 'phone_taken_client'] as const;
/** §8: the server's Russian details the spec maps, for a server that answers without a code. */
const DETAIL_MAP: [string, (typeof SERVER_CODES)[number]][] = [
  ['email уже зарегистрирован', 'email_taken'],
  ['номером телефона уже зарегистрирован', 'phone_taken_user'],
  ['номером телефона уже существует', 'phone_taken_client'],
];

/**
 * §2.3: the login / registration modal. Registration is checked in the order of §5 before anything is sent; errors show
 * in a red box at the top. On success the session cookie is set by the server and §2.1's routing applies.
 */
export default function AuthModal({
  mode,
  brand,
  onMode,
  onClose,
  facts,
}: {
  mode: AuthMode;
  brand: string;
  onMode: (mode: AuthMode) => void;
  onClose: () => void;
  /** The landing page's facts: the risk figure shown above the registration button (D6). */
  facts?: SiteFacts | undefined;
}) {
  const { t, i18n } = useTranslation('site');
  const [form, setForm] = useState<RegistrationForm>(EMPTY);
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [forgot, setForgot] = useState(false);

  const field = (name: keyof RegistrationForm) => ({
    name,
    id: `auth-${name}`,
    value: form[name],
    required: true,
    onChange: (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value })),
  });

  const switchMode = (next: AuthMode) => {
    setError(null);
    setForgot(false);
    onMode(next);
  };

  const serverError = (err: unknown): string => {
    if (!(err instanceof SiteApiError)) return mode === 'login' ? t('auth.loginFailed') : t('auth.registerFailed');
    if (mode === 'register') {
      const code =
        SERVER_CODES.find((c) => c === err.code) ?? DETAIL_MAP.find(([text]) => err.detail.includes(text))?.[1];
      if (code) return t(`auth.errors.${code}`);
      return err.detail || t('auth.registerFailed');
    }
    return err.detail || t('auth.loginFailed');
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (mode === 'register') {
      const problem = registrationError(form);
      if (problem) return setError(t(`auth.errors.${problem}`));
    } else if (!form.email.trim() || !form.password) {
      return setError(t('auth.errors.required'));
    }
    setError(null);
    setBusy(true);
    try {
      const session =
        mode === 'login'
          ? await siteApi.login({ email: form.email.trim(), password: form.password })
          : await siteApi.register({
              name: form.name.trim(),
              email: form.email.trim(),
              phone: form.phone.trim(),
              password: form.password,
              language: mailLanguage(i18n.language),
            });
      onClose();
      window.location.assign(landingPathAfterLogin(session.user.role));
    } catch (err) {
      setError(serverError(err));
      setBusy(false);
    }
  };

  const register = mode === 'register';
  const passwordType = show ? 'text' : 'password';
  // Issue 22 §3: 'Забыли пароль?' asks for a reset link in the same dialog.
  if (forgot && !register) {
    return (
      <Dialog open onClose={onClose} labelledBy="auth-title" closeLabel={t('auth.close')} testId="auth-modal">
        <h2 id="auth-title">{t('auth.reset.title')}</h2>
        <SiteForgotPassword initialEmail={form.email.trim()} onBack={() => setForgot(false)} />
      </Dialog>
    );
  }
  return (
    <Dialog open onClose={onClose} labelledBy="auth-title" closeLabel={t('auth.close')} testId="auth-modal">
      <h2 id="auth-title">{register ? t('auth.registerTitle', { brand }) : t('auth.loginTitle')}</h2>
      <p className="site-muted">{register ? t('auth.registerSubtitle') : t('auth.loginSubtitle')}</p>
      <form className="site-form" onSubmit={submit} noValidate data-testid={`${mode}-form`}>
        {error ? (
          <div className="site-error-box" role="alert" data-testid="auth-error">
            {error}
          </div>
        ) : null}
        {register ? (
          <>
            <label htmlFor="auth-name">{t('auth.name')}</label>
            <input {...field('name')} autoComplete="name" maxLength={120} />
            <label htmlFor="auth-phone">{t('auth.phone')}</label>
            <input {...field('phone')} type="tel" autoComplete="tel" maxLength={32} />
          </>
        ) : null}
        <label htmlFor="auth-email">{t('auth.email')}</label>
        <input {...field('email')} type="email" autoComplete={register ? 'email' : 'username'} maxLength={254} />
        <label htmlFor="auth-password">{t('auth.password')}</label>
        <input
          {...field('password')}
          type={passwordType}
          autoComplete={register ? 'new-password' : 'current-password'}
          maxLength={128}
        />
        {register ? (
          <>
            <label htmlFor="auth-confirmPassword">{t('auth.confirmPassword')}</label>
            <input {...field('confirmPassword')} type={passwordType} autoComplete="new-password" maxLength={128} />
          </>
        ) : null}
        <label className="site-check">
          <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} />
          {t('auth.showPasswords')}
        </label>
        {!register ? (
          <div>
            <button type="button" className="site-link" onClick={() => setForgot(true)} data-testid="forgot-link">
              {t('auth.forgot')}
            </button>
          </div>
        ) : (
          <p className="site-small site-risk-note" data-testid="auth-risk">
            <RiskStatement facts={facts} proofLink={false} /> {t('risk')}
          </p>
        )}
        <button type="submit" className="site-btn site-btn-primary site-btn-block" disabled={busy}>
          {busy
            ? register
              ? t('auth.registering')
              : t('auth.loggingIn')
            : register
              ? t('auth.submitRegister')
              : t('auth.submitLogin')}
        </button>
      </form>
      <p className="site-center site-small">
        {register ? t('auth.haveAccount') : t('auth.noAccount')}{' '}
        <button type="button" className="site-link" onClick={() => switchMode(register ? 'login' : 'register')}>
          {register ? t('auth.switchToLogin') : t('auth.switchToRegister')}
        </button>
      </p>
    </Dialog>
  );
}
