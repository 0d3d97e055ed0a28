import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { homePathFor } from '@brokerage/shared';
import type { Language } from '../../../i18n/resources';
import { SITE_LANGUAGES, type SiteUser } from '../api';

export const SECTION_IDS = ['home', 'about', 'features', 'assets', 'education'] as const;
export type SectionId = (typeof SECTION_IDS)[number];

export function scrollToSection(id: string): void {
  document.getElementById(id)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

interface HeaderProps {
  brand: string;
  /** The sections the page has, in order (Education only when the operator offers something, issue 27 item 14). */
  sections: readonly SectionId[];
  active: string;
  user: SiteUser | null | undefined;
  onLanguage: (lang: Language) => void;
  onLogin: () => void;
  onRegister: () => void;
  onLogout: () => void;
}

function LanguageSelect({ onLanguage, id }: { onLanguage: (lang: Language) => void; id: string }) {
  const { t, i18n } = useTranslation('site');
  return (
    <label className="site-lang" htmlFor={id}>
      <span className="site-sr-only">{t('lang.label')}</span>
      <select
        id={id}
        data-testid={id}
        value={i18n.language}
        onChange={(e) => onLanguage(e.target.value as Language)}
        aria-label={t('lang.label')}
      >
        {SITE_LANGUAGES.map((lang) => (
          <option key={lang} value={lang}>
            {t(`lang.${lang}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

function AccountLinks({ user, onLogout }: { user: SiteUser; onLogout: () => void }) {
  const { t } = useTranslation('site');
  const client = user.role === 'client';
  return (
    <>
      <a className="site-btn site-btn-primary" href={client ? '/trading' : homePathFor(user.role)}>
        {client ? t('header.platform') : t('header.backOffice')}
      </a>
      <button type="button" className="site-btn site-btn-ghost" onClick={onLogout}>
        {t('header.logout')}
      </button>
    </>
  );
}

/** §2.2 header: section navigation with the active section marked, language menu, account buttons, mobile menu. */
export function Header({ brand, sections, active, user, onLanguage, onLogin, onRegister, onLogout }: HeaderProps) {
  const { t } = useTranslation('site');
  const [open, setOpen] = useState(false);
  const go = (id: string) => {
    setOpen(false);
    scrollToSection(id);
  };
  const nav = (where: string) => (
    <ul className={`site-nav site-nav-${where}`}>
      {sections.map((id) => (
        <li key={id}>
          <a
            href={`#${id}`}
            className={active === id ? 'active' : undefined}
            aria-current={active === id ? 'true' : undefined}
            onClick={(e) => {
              e.preventDefault();
              go(id);
            }}
          >
            {t(`nav.${id}`)}
          </a>
        </li>
      ))}
    </ul>
  );
  const account =
    user === undefined ? null : user ? (
      <AccountLinks user={user} onLogout={onLogout} />
    ) : (
      <>
        <a className="site-btn site-btn-ghost" href="/demo" data-testid="header-demo">
          {t('header.demo')}
        </a>
        <button type="button" className="site-btn site-btn-ghost" onClick={() => (setOpen(false), onLogin())}>
          {t('header.login')}
        </button>
        <button type="button" className="site-btn site-btn-primary" onClick={() => (setOpen(false), onRegister())}>
          {t('header.register')}
        </button>
      </>
    );

  return (
    <header className="site-header">
      <div className="site-container site-header-row">
        <a
          className="site-logo"
          href="#home"
          // Until the site's content (the brand) has loaded the logo link still has a name.
          aria-label={brand ? undefined : t('nav.home')}
          onClick={(e) => (e.preventDefault(), go('home'))}
        >
          {brand}
        </a>
        <nav aria-label={t('nav.sections')} className="site-desktop">
          {nav('desktop')}
        </nav>
        <div className="site-header-actions site-desktop">
          <LanguageSelect onLanguage={onLanguage} id="site-language" />
          {user ? (
            <span className="site-user" data-testid="site-user">
              {user.name || user.email}
            </span>
          ) : null}
          {account}
        </div>
        <button
          type="button"
          className="site-burger site-mobile"
          aria-expanded={open}
          aria-controls="site-mobile-menu"
          aria-label={open ? t('nav.close') : t('nav.menu')}
          onClick={() => setOpen((v) => !v)}
        >
          <span aria-hidden="true">{open ? '✕' : '☰'}</span>
        </button>
      </div>
      {open ? (
        <div id="site-mobile-menu" className="site-mobile-menu site-mobile">
          <nav aria-label={t('nav.sections')}>{nav('mobile')}</nav>
          <LanguageSelect onLanguage={onLanguage} id="site-language-mobile" />
          {user ? <span className="site-user">{user.name || user.email}</span> : null}
          <div className="site-mobile-actions">{account}</div>
        </div>
      ) : null}
    </header>
  );
}
