import { CLIENT_STATUS_COLORS } from '@brokerage/shared';
import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isClientStatus } from '../list-state';

/** §4: a client status with its label and colour; a value the product does not know shows as is, in grey. */
export function ClientStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = isClientStatus(status);
  return (
    // A narrow table column must not cut the label short: the badge keeps its full width.
    <Badge color={known ? CLIENT_STATUS_COLORS[status] : 'gray'} variant="light" style={{ minWidth: 'max-content' }}>
      {known ? t(`clients.statuses.${status}`) : status}
    </Badge>
  );
}
