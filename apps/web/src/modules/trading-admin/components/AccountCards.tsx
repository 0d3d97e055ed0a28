import { Badge, Button, Group, Loader, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { Field } from '../../ui/Field';
import { AccountStatusBadge } from './AccountStatusBadge';
import { StatusActionButton, accountPath, type AccountsViewProps } from './AccountsTable';
import { SignedMoney } from './SignedMoney';

/** §2.16 on phones: each account as a card instead of the wide table. */
export function AccountCards({ items, loading, timeZone, listSearch, pendingId, onStatusAction }: AccountsViewProps) {
  const { t } = useTranslation();
  if (loading && items.length === 0) {
    return (
      <Group justify="center" gap="sm" py="md" role="status">
        <Loader size="sm" />
        <Text>{t('tradingAccounts.loading')}</Text>
      </Group>
    );
  }
  if (items.length === 0) {
    return (
      <Text ta="center" c="dimmed" py="md" data-testid="accounts-empty">
        {t('tradingAccounts.empty')}
      </Text>
    );
  }
  return (
    <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="accounts-cards">
      {items.map((account) => (
        <Paper
          component="li"
          key={account.id}
          withBorder
          radius="md"
          p="sm"
          data-testid="account-row"
          data-account-id={account.id}
          data-email={account.client_email}
        >
          <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
            <div style={{ minWidth: 0 }}>
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {account.client_name || t('common.dash')}
              </Text>
              <Text size="xs" c="dimmed" ff="monospace">
                {t('tradingAccounts.clientId', { id: account.client_id })}
              </Text>
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {account.client_email}
              </Text>
            </div>
            <AccountStatusBadge status={account.status} />
          </Group>
          <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} mb="sm">
            <Field label={t('tradingAccounts.columns.balance')}>
              <Text span fw={500} size="sm" data-testid="account-balance">
                {formatMoney(account.balance)}
              </Text>
              <Text size="xs" c="dimmed">
                {t('tradingAccounts.totalInvested', { amount: formatMoney(account.total_invested) })}
              </Text>
            </Field>
            <Field label={t('tradingAccounts.columns.profit')}>
              <SignedMoney amount={account.total_profit} size="sm" />
              <Text size="xs" c="dimmed">
                {t('tradingAccounts.trades', { count: account.total_trades })}
              </Text>
            </Field>
            <Field label={t('tradingAccounts.columns.activeTrades')}>
              <Group gap={6}>
                {formatCount(account.active_trades_count)}
                {account.active_trades_count > 0 ? (
                  <Badge size="xs" color="orange" variant="light">
                    {t('tradingAccounts.inProgress')}
                  </Badge>
                ) : null}
              </Group>
            </Field>
            <Field label={t('tradingAccounts.columns.lastActivity')}>
              {account.last_activity ? formatDateTime(account.last_activity, timeZone) : t('tradingAccounts.never')}
            </Field>
          </SimpleGrid>
          <SimpleGrid cols={2} spacing="xs">
            <Button
              component={Link}
              to={accountPath(account.id)}
              state={{ listSearch }}
              size="compact-sm"
              variant="default"
              leftSection={<IconEye size={14} />}
              data-testid="account-details"
            >
              {t('tradingAccounts.details')}
            </Button>
            <StatusActionButton
              account={account}
              pending={pendingId === account.id}
              onClick={() => onStatusAction(account)}
              fullWidth
            />
          </SimpleGrid>
        </Paper>
      ))}
    </Stack>
  );
}
