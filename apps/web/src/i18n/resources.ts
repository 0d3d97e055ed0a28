// The translation resources, without side effects (tests import this file).
import en from './en.json';
import enClientBase from './locales/en/clientBase.json';
import enNotify from './locales/en/notify.json';
import enPlatform from './locales/en/platform.json';
import enSite from './locales/en/site.json';
import kkPlatform from './locales/kk/platform.json';
import kkSite from './locales/kk/site.json';
import ruClientBase from './locales/ru/clientBase.json';
import ruNotify from './locales/ru/notify.json';
import ruPlatform from './locales/ru/platform.json';
import ruSite from './locales/ru/site.json';
import ru from './ru.json';
import enLeadImport from './locales/en/leadImport.json';
import enAffiliateTokens from './locales/en/affiliateTokens.json';
import enAffiliates from './locales/en/affiliates.json';
import ruLeadImport from './locales/ru/leadImport.json';
import ruAffiliateTokens from './locales/ru/affiliateTokens.json';
import ruAffiliates from './locales/ru/affiliates.json';

/**
 * Namespaces: `translation` (the back office and shared texts, ru/en), `clientBase` and `notify` (back-office client
 * base screens, ru/en), `site` (the public site) and `platform` (the client trading screen) in ru/en/kk. The back
 * office offers ru and en; the client side adds kk. A key missing in a language falls back to ru.
 * The application bundles only `site` and `platform`; it imports this file lazily for the back-office namespaces
 * (index.ts, loadBackOfficeTranslations), so the trading screen does not parse them before its first chart.
 */
export {
  LANGUAGES,
  CRM_LANGUAGES,
  DEFAULT_LANGUAGE,
  NAMESPACES,
  BACK_OFFICE_NAMESPACES,
  type Language,
} from './languages';

export const resources = {
  ru: {
    translation: ru,
    clientBase: ruClientBase,
    notify: ruNotify,
    leadImport: ruLeadImport,
    affiliateTokens: ruAffiliateTokens,
    affiliates: ruAffiliates,
    site: ruSite,
    platform: ruPlatform,
  },
  en: {
    translation: en,
    clientBase: enClientBase,
    notify: enNotify,
    leadImport: enLeadImport,
    affiliateTokens: enAffiliateTokens,
    affiliates: enAffiliates,
    site: enSite,
    platform: enPlatform,
  },
  kk: { site: kkSite, platform: kkPlatform },
} as const;
