import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, localStore } from '../lib/storage-keys';
import { LANGUAGES, NAMESPACES, DEFAULT_LANGUAGE, resources, type Language } from './resources';

export { LANGUAGES, CRM_LANGUAGES, NAMESPACES, DEFAULT_LANGUAGE, resources, type Language } from './resources';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

function storedLanguage(): Language {
  const stored = localStore.get(STORAGE_KEYS.lang);
  return isLanguage(stored) ? stored : DEFAULT_LANGUAGE;
}

void i18n.use(initReactI18next).init({
  resources,
  ns: [...NAMESPACES],
  defaultNS: 'translation',
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: LANGUAGES,
  interpolation: { escapeValue: false },
  returnNull: false,
});

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
