const LOCALES: Record<string, string> = { ru: 'ru-RU', en: 'en-US', kk: 'kk-KZ' };
const locale = (lang: string) => LOCALES[lang] ?? 'ru-RU';

/** A YYYY-MM-DD date as the interface language writes it (the date itself, no time-zone shift). */
export function formatDate(isoDate: string, lang: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(locale(lang), { timeZone: 'UTC' });
}

export function formatRatio(n: number | null, lang: string, suffix = ''): string {
  if (n === null) return '—';
  return `${n.toLocaleString(locale(lang), { maximumFractionDigits: 2 })}${suffix}`;
}

/** Dollar amounts in compact form: $3.52T, 385,6 млрд $. */
export function formatMoneyCompact(n: number | null, lang: string): string {
  if (n === null) return '—';
  return n.toLocaleString(locale(lang), {
    style: 'currency',
    currency: 'USD',
    notation: 'compact',
    maximumFractionDigits: 2,
  });
}

export function formatMoney(n: number | null, lang: string): string {
  if (n === null) return '—';
  return n.toLocaleString(locale(lang), { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
}
