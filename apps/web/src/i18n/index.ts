import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, localStore } from '../lib/storage-keys';
import enPlatform from './locales/en/platform.json';
import enSite from './locales/en/site.json';
import kkPlatform from './locales/kk/platform.json';
import kkSite from './locales/kk/site.json';
import ruPlatform from './locales/ru/platform.json';
import ruSite from './locales/ru/site.json';
import {
  BACK_OFFICE_NAMESPACES,
  CRM_LANGUAGES,
  DEFAULT_LANGUAGE,
  LANGUAGES,
  NAMESPACES,
  type Language,
} from './languages';

export { LANGUAGES, CRM_LANGUAGES, NAMESPACES, DEFAULT_LANGUAGE, type Language } from './languages';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

function storedLanguage(): Language {
  const stored = localStore.get(STORAGE_KEYS.lang);
  return isLanguage(stored) ? stored : DEFAULT_LANGUAGE;
}

/**
 * Only the client side's namespaces (site, platform) are bundled here; the back office's (translation, clientBase,
 * notify) come with loadBackOfficeTranslations(). Components re-render when they arrive (bindI18nStore: 'added').
 */
void i18n.use(initReactI18next).init({
  resources: {
    ru: { site: ruSite, platform: ruPlatform },
    en: { site: enSite, platform: enPlatform },
    kk: { site: kkSite, platform: kkPlatform },
  },
  ns: [...NAMESPACES],
  defaultNS: 'translation',
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: LANGUAGES,
  interpolation: { escapeValue: false },
  returnNull: false,
  react: { bindI18nStore: 'added' },
});

let backOffice: Promise<void> | null = null;
let backOfficeLoaded = false;

/**
 * The back office's translations (its own chunk, i18n/resources.ts). The back office, /login and the not-found page
 * wait for them before they render (app.tsx, CrmArea); the trading screen loads them once it is idle (the staff bell
 * and the shared loaders use them). Loaded once; a failed load may be tried again.
 */
export function loadBackOfficeTranslations(): Promise<void> {
  backOffice ??= import('./resources').then(
    ({ resources }) => {
      for (const lang of CRM_LANGUAGES)
        for (const ns of BACK_OFFICE_NAMESPACES) i18n.addResourceBundle(lang, ns, resources[lang][ns], true, true);
      backOfficeLoaded = true;
    },
    (error: unknown) => {
      backOffice = null;
      throw error;
    },
  );
  return backOffice;
}

export function backOfficeTranslationsLoaded(): boolean {
  return backOfficeLoaded;
}

document.documentElement.lang = i18n.language;
i18n.on('languageChanged', (lng) => {
  document.documentElement.lang = lng;
});

/** The current interface language, as sent to the server in Accept-Language. */
export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}

export function changeLanguage(lang: Language): void {
  localStore.set(STORAGE_KEYS.lang, lang);
  void i18n.changeLanguage(lang);
}

export default i18n;
