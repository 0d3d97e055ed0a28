import { RISK_MIN_ACCOUNTS, type SiteFacts } from '@brokerage/shared';
import { useTranslation } from 'react-i18next';
import { formatDayLong } from '../../../lib/format';

const asOf = formatDayLong;

/** The link from a risk warning to the transparency section (issue 30): how to check the prices of one's trades. */
export function RiskProofLink() {
  const { t } = useTranslation('site');
  return (
    <a href="/#transparency" className="site-risk-proof" data-testid="risk-proof-link">
      {t('riskLink')}
    </a>
  );
}

/**
 * The true risk warning (D6, issue 14, ESMA's format): "N% of client accounts lost money trading with us in the last
 * 12 months" with the date of the figure, from GET /api/site/facts; with fewer than RISK_MIN_ACCOUNTS accounts that
 * traded, why there is no figure. While the facts load only the link to the transparency section (the generic warning
 * next to it is always shown); `proofLink={false}` leaves the link out (the registration modal: it would lead away).
 */
export function RiskStatement({
  facts,
  as = 'span',
  proofLink = true,
}: {
  facts: SiteFacts | undefined;
  as?: 'span' | 'p';
  proofLink?: boolean;
}) {
  const { t, i18n } = useTranslation('site');
  const link = proofLink ? <RiskProofLink /> : null;
  if (!facts) return link;
  const date = asOf(facts.losing_accounts_as_of, i18n.language);
  const Tag = as;
  return (
    <>
      {facts.losing_accounts_percent !== null ? (
        <Tag className="site-risk-figure" data-testid="risk-figure">
          <strong>{t('riskFigure.figure', { percent: facts.losing_accounts_percent, date })}</strong>
        </Tag>
      ) : (
        <Tag className="site-risk-figure" data-testid="risk-few">
          {t('riskFigure.few', { min: RISK_MIN_ACCOUNTS, n: facts.accounts_traded, date })}
        </Tag>
      )}
      {link ? <> {link}</> : null}
    </>
  );
}
