import type { TradeVoidRequest } from '@brokerage/shared';
import { Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatAge, formatMoney } from '../../../lib/format';

/** The account's voids waiting for a second staff member (issue 20 finding 11): who asked, why, and how long ago. */
export function PendingVoidsNote({ requests }: { requests: readonly TradeVoidRequest[] }) {
  const { t } = useTranslation();
  if (requests.length === 0) return null;
  return (
    <Paper withBorder radius="md" p="sm" bg="var(--mantine-color-orange-light)" data-testid="account-pending-voids">
      <Text fw={600} size="sm" mb={4}>
        {t('voids.pendingTitle', { count: requests.length })}
      </Text>
      <Stack gap={2}>
        {requests.map((request) => (
          <Text size="sm" key={request.id} data-testid="pending-void" style={{ overflowWrap: 'anywhere' }}>
            {t('voids.pendingLine', {
              id: request.trade_id,
              asset: request.asset,
              amount: formatMoney(request.amount),
              name: request.requested_by_name,
              age: formatAge(request.age_seconds, t),
            })}
            {` — ${request.reason}`}
          </Text>
        ))}
      </Stack>
      <Text size="xs" c="dimmed" mt={4}>
        {t('voids.pendingHint')}
      </Text>
    </Paper>
  );
}
