import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '../../i18n/resources';
import { STORAGE_KEYS, localStore } from '../../lib/storage-keys';
import { siteApi, type SiteUser } from '../../modules/site/api';
import { AssetsSection, PRICE_REFRESH_SECONDS } from '../../modules/site/components/AssetsSection';
import type { AuthMode } from '../../modules/site/components/AuthModal';
import { Footer } from '../../modules/site/components/Footer';
import { Header, SECTION_IDS } from '../../modules/site/components/Header';
import { About, Education, educationOffers, Features, Hero } from '../../modules/site/components/Sections';
import { Transparency } from '../../modules/site/components/Transparency';
import { useActiveSection, useRemote } from '../../modules/site/hooks';
import './site.css';

// The modal (and the registration checks) load when a visitor first opens it.
const AuthModal = lazy(() => import('../../modules/site/components/AuthModal'));
const FACTS_REFRESH_MS = 60_000;

/**
 * The public landing page (client-platform.md §2.2). Its own chunk, without the back office's UI kit: it boots directly
 * from main.tsx on a fresh load of /, and renders inside the router when reached by navigation.
 */
export default function SiteArea() {
  const { t, i18n } = useTranslation('site');
  const content = useRemote(siteApi.content);
  const facts = useRemote(siteApi.facts, FACTS_REFRESH_MS);
  const prices = useRemote(siteApi.prices, PRICE_REFRESH_SECONDS * 1000);
  const [user, setUser] = useState<SiteUser | null | undefined>(undefined);
  // '/?register=1' (the demo's 'Открыть реальный счёт', issue 27 item 15) opens the registration form at once.
  const [auth, setAuth] = useState<AuthMode | null>(() =>
    new URLSearchParams(window.location.search).has('register') ? 'register' : null,
  );
  const hasEducation = educationOffers(content.data, i18n.language).length > 0;
  const sections = useMemo(() => SECTION_IDS.filter((id) => id !== 'education' || hasEducation), [hasEducation]);
  const active = useActiveSection(sections);
  const brand = content.data?.brand.name ?? '';

  useEffect(() => {
    void siteApi.me().then(setUser);
  }, []);

  // The form is open: the address drops '?register', so a reload after closing it does not open it again.
  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has('register')) return;
    url.searchParams.delete('register');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }, []);

  useEffect(() => {
    if (brand) document.title = t('meta.title', { brand });
  }, [brand, t, i18n.language]);

  const setLanguage = useCallback(
    (lang: Language) => {
      localStore.set(STORAGE_KEYS.lang, lang);
      void i18n.changeLanguage(lang);
      document.documentElement.lang = lang;
    },
    [i18n],
  );

  const logout = async () => {
    await siteApi.logout();
    window.location.assign('/');
  };

  const openLogin = () => setAuth('login');
  const openRegister = () => setAuth('register');

  return (
    <div className="site" data-testid="site">
      <a className="site-skip" href="#home">
        {t('nav.home')}
      </a>
      <Header
        brand={brand}
        sections={sections}
        active={active}
        user={user}
        onLanguage={setLanguage}
        onLogin={openLogin}
        onRegister={openRegister}
        onLogout={() => void logout()}
      />
      <main>
        <Hero user={user} facts={facts} content={content.data} onLogin={openLogin} onRegister={openRegister} />
        <About content={content.data} onRegister={openRegister} />
        <Features onRegister={openRegister} />
        <Transparency />
        <AssetsSection prices={prices} facts={facts} onRegister={openRegister} />
        <Education content={content.data} />
      </main>
      <Footer content={content.data} facts={facts.data} />
      {auth ? (
        <Suspense fallback={null}>
          <AuthModal mode={auth} brand={brand} facts={facts.data} onMode={setAuth} onClose={() => setAuth(null)} />
        </Suspense>
      ) : null}
    </div>
  );
}
