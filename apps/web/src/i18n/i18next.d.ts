import 'i18next';
import type clientBase from './locales/ru/clientBase.json';
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
      site: typeof site;
      platform: typeof platform;
    };
  }
}
