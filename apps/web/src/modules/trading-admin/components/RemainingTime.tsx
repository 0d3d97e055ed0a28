import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { remainingTime } from '../format';

/** §4: 'Истекла' / 'Xд Yч' / 'Xч Yм' / m:ss, from the server's expires_at and the ticking clock. */
export function RemainingTime({ expiresAt, now }: { expiresAt: string; now: number }) {
  const { t } = useTranslation();
  const left = remainingTime(new Date(expiresAt).getTime() - now);
  let text: string;
  switch (left.kind) {
    case 'expired':
      text = t('tradingAccounts.remaining.expired');
      break;
    case 'days':
      text = t('tradingAccounts.remaining.days', { days: left.days, hours: left.hours });
      break;
    case 'hours':
      text = t('tradingAccounts.remaining.hours', { hours: left.hours, minutes: left.minutes });
      break;
    case 'clock':
      text = left.text;
      break;
  }
  return (
    <Text
      span
      size="sm"
      ff="monospace"
      c={left.kind === 'expired' ? 'dimmed' : undefined}
      data-testid="trade-remaining"
    >
      {text}
    </Text>
  );
}
