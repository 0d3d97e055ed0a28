import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isAccountStatus } from '../list-state';

const COLORS = { active: 'teal', blocked: 'red', demo: 'blue' } as const;

/** §2.16 status: Активен / Заблокирован / Демо, anything else Неизвестно. */
export function AccountStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  if (!isAccountStatus(status)) {
    return (
      <Badge color="gray" variant="light">
        {t('tradingAccounts.statuses.unknown')}
      </Badge>
    );
  }
  return (
    <Badge color={COLORS[status]} variant="light" data-testid="account-status" data-status={status}>
      {t(`tradingAccounts.statuses.${status}`)}
    </Badge>
  );
}
