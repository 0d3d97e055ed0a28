/** Every key the web app keeps in the browser's storage (back-office.md §9). The session token is never stored (D8). */
export const STORAGE_KEYS = {
  /** localStorage: 'light' | 'dark', written by Mantine's colour scheme manager. */
  theme: 'theme',
  /** localStorage: the interface language, 'ru' | 'en'. */
  lang: 'lang',
  /** localStorage: whether the desktop side menu is collapsed to icons. */
  menuCollapsed: 'menuCollapsed',
  /** localStorage: the clients list's filters, sort and page size (§2.5), JSON; read through a validator. */
  clientsPageFilters: 'clientsPageFilters',
  /** sessionStorage: the /crm path an anonymous visitor asked for, restored after login. */
  intendedPath: 'intendedPath',
  /** localStorage: the /demo account (balance, trades, next id), JSON; read through a validator (issue 27 item 15). */
  demoAccount: 'demoAccount',
} as const;

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    // Storage can be unavailable (private mode, disabled cookies); the app keeps working without it.
    return fallback;
  }
}

export const localStore = {
  get: (key: string): string | null => safely(() => window.localStorage.getItem(key), null),
  set: (key: string, value: string): void => safely(() => window.localStorage.setItem(key, value), undefined),
  remove: (key: string): void => safely(() => window.localStorage.removeItem(key), undefined),
};

export const sessionStore = {
  get: (key: string): string | null => safely(() => window.sessionStorage.getItem(key), null),
  set: (key: string, value: string): void => safely(() => window.sessionStorage.setItem(key, value), undefined),
  remove: (key: string): void => safely(() => window.sessionStorage.removeItem(key), undefined),
};
