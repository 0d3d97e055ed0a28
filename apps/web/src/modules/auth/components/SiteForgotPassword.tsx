import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SiteApiError, siteApi, siteFetch } from '../../site/api';
import { useRemote } from '../../site/hooks';
import { contactsLine } from '../contacts';

/** A plain address check for the site's form (the server checks it again): something@something.something. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The green counterpart of the site's .site-error-box. */
const SENT_BOX = {
  background: '#e8f5e9',
  color: '#1b5e20',
  border: '1px solid #b7dfb9',
  borderRadius: 8,
  padding: '10px 12px',
} as const;

/**
 * Issue 22 §3: the public site's 'Забыли пароль?' — the reset request inside the sign-in dialog, in the site's own
 * style (no UI kit in the landing chunk). The answer is the same whether or not the address is known.
 */
export function SiteForgotPassword({ initialEmail, onBack }: { initialEmail: string; onBack: () => void }) {
  const { t } = useTranslation('site');
  const content = useRemote(siteApi.content);
  const [email, setEmail] = useState(initialEmail);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const contacts = contactsLine(content.data);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const address = email.trim();
    if (!address) return setError(t('auth.errors.required'));
    if (!EMAIL_SHAPE.test(address)) return setError(t('auth.errors.invalid_email'));
    setError(null);
    setBusy(true);
    try {
      await siteFetch('/api/auth/password-reset', { method: 'POST', body: { email: address } });
      setSentTo(address);
    } catch (err) {
      setError(
        err instanceof SiteApiError && err.code === 'password_reset_limited'
          ? t('auth.reset.limited')
          : err instanceof SiteApiError && err.detail
            ? err.detail
            : t('auth.reset.failed'),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="forgot-password">
      {sentTo ? (
        <div style={SENT_BOX} role="status" data-testid="forgot-sent">
          {t('auth.reset.sent', { email: sentTo })}
        </div>
      ) : (
        <form className="site-form" onSubmit={submit} noValidate data-testid="forgot-form">
          <p className="site-muted">{t('auth.reset.text')}</p>
          {error ? (
            <div className="site-error-box" role="alert" data-testid="auth-error">
              {error}
            </div>
          ) : null}
          <label htmlFor="forgot-email">{t('auth.email')}</label>
          <input
            id="forgot-email"
            name="email"
            type="email"
            autoComplete="username"
            maxLength={254}
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button type="submit" className="site-btn site-btn-primary site-btn-block" disabled={busy}>
            {busy ? t('auth.reset.sending') : t('auth.reset.submit')}
          </button>
        </form>
      )}
      <p className="site-muted site-small" data-testid="reset-help">
        {t('auth.reset.support')}
        {contacts ? ` ${t('auth.reset.contacts', { contacts })}` : null}
      </p>
      <p className="site-center site-small">
        <button type="button" className="site-link" onClick={onBack} data-testid="forgot-back">
          {t('auth.reset.back')}
        </button>
      </p>
    </div>
  );
}
