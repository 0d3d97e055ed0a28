import { RISK_MIN_ACCOUNTS } from '@brokerage/shared';
import { Alert, Anchor, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDayLong } from '../../../lib/format';
import { useRiskFacts } from '../statement-api';

/**
 * The trading screen's risk warning (D6, issue 14): the share of client accounts that lost money over the last 12
 * months with the date of the figure; with too few accounts (or before the figure loads) the generic warning, and why;
 * and the way to the site's transparency section, where checking the prices of one's own trades is explained (issue 30).
 */
export function RiskWarning() {
  const { t, i18n } = useTranslation('platform');
  const facts = useRiskFacts().data;
  const date = facts ? formatAsOf(facts.losing_accounts_as_of, i18n.language) : '';
  return (
    <Alert color="yellow" variant="light" p="xs" data-testid="risk-warning">
      {facts && facts.losing_accounts_percent !== null && (
        <Text size="xs" fw={700} data-testid="risk-figure">
          {t('riskFigure.figure', { percent: facts.losing_accounts_percent, date })}
        </Text>
      )}
      {facts && facts.losing_accounts_percent === null && (
        <Text size="xs" data-testid="risk-few">
          {t('riskFigure.few', { min: RISK_MIN_ACCOUNTS, n: facts.accounts_traded, date })}
        </Text>
      )}
      <Text size="xs">{t('risk')}</Text>
      <Anchor href="/#transparency" size="xs" fw={600} data-testid="risk-proof-link">
        {t('riskProofLink')}
      </Anchor>
    </Alert>
  );
}

/** 'YYYY-MM-DD' as a date in the interface language. */
export const formatAsOf = formatDayLong;
