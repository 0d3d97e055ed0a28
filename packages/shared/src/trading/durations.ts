/** client-platform.md §9: the expiry options offered, in seconds (the server may replace them by configuration). */
export const TRADE_DURATIONS = [300, 900, 1800, 3600, 14400, 86400, 2592000] as const;

/** §9: the default expiry is 300 s and the default stake $25. */
export const DEFAULT_TRADE_DURATION = 300;
export const DEFAULT_STAKE_DOLLARS = 25;
export const MIN_TRADE_DOLLARS = 1;
/** Per-account defaults (back-office.md §9). */
export const DEFAULT_PAYOUT_PERCENTAGE = 85;
export const DEFAULT_MAX_TRADE_DOLLARS = 1000;
/** decisions.md D1: a price older than this refuses a new trade. */
export const MAX_PRICE_AGE_MS = 5000;

/**
 * §9's duration display: seconds under 60, minutes under 3600, hours under 86400, else days
 * ('30 с', '5 мин', '4 ч', '30 дн').
 */
export function formatDuration(seconds: number, lang: 'ru' | 'en' = 'ru'): string {
  const [s, m, h, d] = lang === 'ru' ? ['с', 'мин', 'ч', 'дн'] : ['s', 'min', 'h', 'd'];
  if (seconds < 60) return `${seconds} ${s}`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} ${m}`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} ${h}`;
  return `${Math.floor(seconds / 86400)} ${d}`;
}
