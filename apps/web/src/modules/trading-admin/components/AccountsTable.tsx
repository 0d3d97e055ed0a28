import type { TradingAccount } from '@brokerage/shared';
import { ActionIcon, Badge, Button, Group, Loader, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconEye, IconLock, IconLockOpen } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { TruncatedText } from '../../ui/TruncatedText';
import { AccountStatusBadge } from './AccountStatusBadge';
import { SignedMoney } from './SignedMoney';

export interface AccountsViewProps {
  items: TradingAccount[];
  loading: boolean;
  timeZone: string;
  /** The list's own query (?search=…), handed to the detail page so its back link returns here. */
  listSearch: string;
  /** The account whose block/activate call is running, if any. */
  pendingId: number | null;
  onStatusAction: (account: TradingAccount) => void;
}

export function accountPath(id: number) {
  return `/crm/trading-accounts/${id}`;
}

/** §2.16: 'block' for an active account, 'activate' otherwise. */
export function StatusActionButton({
  account,
  pending,
  onClick,
  fullWidth,
}: {
  account: TradingAccount;
  pending: boolean;
  onClick: () => void;
  fullWidth?: boolean;
}) {
  const { t } = useTranslation();
  const blocking = account.status === 'active';
  return (
    <Button
      size="compact-sm"
      variant="light"
      color={blocking ? 'red' : 'teal'}
      leftSection={blocking ? <IconLock size={14} /> : <IconLockOpen size={14} />}
      loading={pending}
      onClick={onClick}
      fullWidth={fullWidth}
      data-testid={blocking ? 'account-block' : 'account-activate'}
    >
      {blocking ? t('tradingAccounts.block') : t('tradingAccounts.activate')}
    </Button>
  );
}

/** §2.16 table: Клиент, Баланс, Прибыль, Активные сделки, Статус, Последняя активность, Действия. */
export function AccountsTable({ items, loading, timeZone, listSearch, pendingId, onStatusAction }: AccountsViewProps) {
  const { t } = useTranslation();
  const columns = 7;
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid="accounts-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('tradingAccounts.columns.client')}</Table.Th>
            <Table.Th>{t('tradingAccounts.columns.balance')}</Table.Th>
            <Table.Th>{t('tradingAccounts.columns.profit')}</Table.Th>
            <Table.Th>{t('tradingAccounts.columns.activeTrades')}</Table.Th>
            <Table.Th>{t('tradingAccounts.columns.status')}</Table.Th>
            <Table.Th>{t('tradingAccounts.columns.lastActivity')}</Table.Th>
            <Table.Th ta="right">{t('tradingAccounts.columns.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {loading && items.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns}>
                <Group justify="center" gap="sm" py="md" role="status">
                  <Loader size="sm" />
                  <Text>{t('tradingAccounts.loading')}</Text>
                </Group>
              </Table.Td>
            </Table.Tr>
          ) : null}
          {!loading && items.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns}>
                <Text ta="center" c="dimmed" py="md" data-testid="accounts-empty">
                  {t('tradingAccounts.empty')}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : null}
          {items.map((account) => (
            <Table.Tr
              key={account.id}
              data-testid="account-row"
              data-account-id={account.id}
              data-email={account.client_email}
            >
              <Table.Td>
                <TruncatedText
                  value={account.client_name || t('common.dash')}
                  fw={500}
                  data-testid="account-client-name"
                >
                  <Link
                    to={accountPath(account.id)}
                    state={{ listSearch }}
                    style={{ color: 'inherit', textDecoration: 'none' }}
                  >
                    {account.client_name || t('common.dash')}
                  </Link>
                </TruncatedText>
                <Text size="xs" c="dimmed" ff="monospace">
                  {t('tradingAccounts.clientId', { id: account.client_id })}
                </Text>
                <TruncatedText value={account.client_email} size="xs" c="dimmed" />
              </Table.Td>
              <Table.Td>
                <Text size="sm" fw={500} data-testid="account-balance">
                  {formatMoney(account.balance)}
                </Text>
                <Text size="xs" c="dimmed">
                  {t('tradingAccounts.totalInvested', { amount: formatMoney(account.total_invested) })}
                </Text>
              </Table.Td>
              <Table.Td>
                <SignedMoney amount={account.total_profit} size="sm" />
                <Text size="xs" c="dimmed">
                  {t('tradingAccounts.trades', { count: account.total_trades })}
                </Text>
              </Table.Td>
              <Table.Td>
                <Stack gap={2} align="flex-start">
                  <Text size="sm" fw={500}>
                    {formatCount(account.active_trades_count)}
                  </Text>
                  {account.active_trades_count > 0 ? (
                    <Badge size="xs" color="orange" variant="light">
                      {t('tradingAccounts.inProgress')}
                    </Badge>
                  ) : null}
                </Stack>
              </Table.Td>
              <Table.Td>
                <AccountStatusBadge status={account.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {account.last_activity ? formatDateTime(account.last_activity, timeZone) : t('tradingAccounts.never')}
                </Text>
              </Table.Td>
              <Table.Td>
                <Group gap="xs" justify="flex-end" wrap="nowrap">
                  <Tooltip label={t('tradingAccounts.details')}>
                    <ActionIcon
                      component={Link}
                      to={accountPath(account.id)}
                      state={{ listSearch }}
                      variant="subtle"
                      aria-label={t('tradingAccounts.details')}
                      data-testid="account-details"
                    >
                      <IconEye size={18} />
                    </ActionIcon>
                  </Tooltip>
                  <StatusActionButton
                    account={account}
                    pending={pendingId === account.id}
                    onClick={() => onStatusAction(account)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
