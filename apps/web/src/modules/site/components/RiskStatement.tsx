import { RISK_MIN_ACCOUNTS, type SiteFacts } from '@brokerage/shared';
import { useTranslation } from 'react-i18next';

/** 'YYYY-MM-DD' as a date in the page's language. */
function asOf(day: string, lang: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(at.getTime())) return day;
  try {
    return new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      at,
    );
  } catch {
    return day;
  }
}

/**
 * The true risk warning (D6, issue 14, ESMA's format): "N% of client accounts lost money trading with us in the last
 * 12 months" with the date of the figure, from GET /api/site/facts; with fewer than RISK_MIN_ACCOUNTS accounts that
 * traded, why there is no figure. Nothing while the facts load (the generic warning next to it is always shown).
 */
export function RiskStatement({ facts, as = 'span' }: { facts: SiteFacts | undefined; as?: 'span' | 'p' }) {
  const { t, i18n } = useTranslation('site');
  if (!facts) return null;
  const date = asOf(facts.losing_accounts_as_of, i18n.language);
  const Tag = as;
  return facts.losing_accounts_percent !== null ? (
    <Tag className="site-risk-figure" data-testid="risk-figure">
      <strong>{t('riskFigure.figure', { percent: facts.losing_accounts_percent, date })}</strong>
    </Tag>
  ) : (
    <Tag className="site-risk-figure" data-testid="risk-few">
      {t('riskFigure.few', { min: RISK_MIN_ACCOUNTS, n: facts.accounts_traded, date })}
    </Tag>
  );
}
