import i18n from 'i18next';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { initReactI18next } from 'react-i18next';
import en from '../../i18n/locales/en/site.json';
import kk from '../../i18n/locales/kk/site.json';
import ru from '../../i18n/locales/ru/site.json';
import { STORAGE_KEYS, localStore } from '../../lib/storage-keys';
import { SITE_LANGUAGES } from '../../modules/site/api';
import SiteArea from './SiteArea';

/**
 * A fresh load of / starts here (main.tsx): only the 'site' namespace in ru/en/kk, no router, no UI kit — the rest of
 * the application loads when the visitor leaves for /trading, /login or /crm (full page loads).
 */
const stored = localStore.get(STORAGE_KEYS.lang);
const lng = (SITE_LANGUAGES as readonly string[]).includes(stored ?? '') ? stored! : 'ru';

void i18n.use(initReactI18next).init({
  resources: { ru: { site: ru }, en: { site: en }, kk: { site: kk } },
  ns: ['site'],
  defaultNS: 'site',
  lng,
  fallbackLng: 'ru',
  supportedLngs: [...SITE_LANGUAGES],
  interpolation: { escapeValue: false },
});
document.documentElement.lang = lng;

const container = document.getElementById('root');
if (!container) throw new Error('#root is missing from index.html');
createRoot(container).render(
  <StrictMode>
    <SiteArea />
  </StrictMode>,
);
