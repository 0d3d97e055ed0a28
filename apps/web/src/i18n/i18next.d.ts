import 'i18next';
import type affiliates from './locales/ru/affiliates.json';
import type affiliateTokens from './locales/ru/affiliateTokens.json';
import type clientBase from './locales/ru/clientBase.json';
import type leadImport from './locales/ru/leadImport.json';
import type notify from './locales/ru/notify.json';
import type platform from './locales/ru/platform.json';
import type site from './locales/ru/site.json';
import type ru from './ru.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: {
      translation: typeof ru;
      clientBase: typeof clientBase;
      notify: typeof notify;
      leadImport: typeof leadImport;
      affiliateTokens: typeof affiliateTokens;
      affiliates: typeof affiliates;
      site: typeof site;
      platform: typeof platform;
    };
  }
}
