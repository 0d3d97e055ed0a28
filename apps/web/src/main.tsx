/**
 * The entry point stays tiny: the public landing page (/) boots on its own, without the back office's UI kit and
 * translations (docs/operations.md, "Page weight"); every other path loads the application.
 *
 * A fresh load of a trading screen (issue 12, item 6) does not wait for the application before it asks for what the
 * first chart needs: the session check and the first candles start here, and the trading chunk downloads beside the
 * application's instead of after it (apiRequest takes the early answers, lib/early-fetch.ts).
 */
import { config as zodConfig } from 'zod/v4/core';
import { fetchEarly } from './lib/early-fetch';
import { DEFAULT_LANGUAGE, LANGUAGES } from './i18n/languages';
import { localStore, STORAGE_KEYS } from './lib/storage-keys';

// The shared schemas validate here too: zod must not probe `new Function`, which the CSP (no 'unsafe-eval') reports
// as a violation even though zod catches it (issue 28 §3).
zodConfig({ jitless: true });

const path = window.location.pathname;
if (path === '/') void import('./areas/site/boot');
else {
  if (/^\/(trading|demo|chart-test)(\/|$)/.test(path)) {
    const stored = localStore.get(STORAGE_KEYS.lang);
    const language = (LANGUAGES as readonly (string | null)[]).includes(stored) ? stored : DEFAULT_LANGUAGE;
    fetchEarly('/api/auth/me', language);
    // The first chart is EURUSD at 1 minute (§2.4); the same path as trading/api.ts candlesPath builds.
    fetchEarly('/api/prices/EURUSD/candles?interval=1m', language);
    void import('./areas/trading/TradingArea');
  }
  void import('./app');
}
