import type { TradingAccount } from '@brokerage/shared';
import { ActionIcon, Badge, Button, Group, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { IconEye, IconLock, IconLockOpen } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { DataTable, type DataColumn } from '../../ui/DataTable';
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

/**
 * §2.16 table: Клиент, Баланс, Прибыль, Активные сделки, Статус, Последняя активность, Действия; on phones each account
 * as a card (the client heading it, the status beside, the figures as pairs, the two buttons under them).
 */
export function AccountsTable({ items, loading, timeZone, listSearch, pendingId, onStatusAction }: AccountsViewProps) {
  const { t } = useTranslation();
  const dash = t('common.dash');
  const statusButton = (account: TradingAccount, fullWidth?: boolean) => (
    <StatusActionButton
      account={account}
      pending={pendingId === account.id}
      onClick={() => onStatusAction(account)}
      fullWidth={fullWidth}
    />
  );
  const columns: DataColumn<TradingAccount>[] = [
    {
      key: 'client',
      header: t('tradingAccounts.columns.client'),
      card: 'title',
      cell: (account) => (
        <>
          <TruncatedText value={account.client_name || dash} fw={500} data-testid="account-client-name">
            <Link
              to={accountPath(account.id)}
              state={{ listSearch }}
              style={{ color: 'inherit', textDecoration: 'none' }}
            >
              {account.client_name || dash}
            </Link>
          </TruncatedText>
          <Text size="xs" c="dimmed" ff="monospace">
            {t('tradingAccounts.clientId', { id: account.client_id })}
          </Text>
          {account.platform_id ? (
            <Text size="xs" c="dimmed" ff="monospace" data-testid="account-number">
              {t('tradingAccounts.accountNumber', { number: account.platform_id })}
            </Text>
          ) : null}
          <TruncatedText value={account.client_email} size="xs" c="dimmed" />
        </>
      ),
      cardCell: (account) => (
        <>
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {account.client_name || dash}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {t('tradingAccounts.clientId', { id: account.client_id })}
          </Text>
          {account.platform_id ? (
            <Text size="xs" c="dimmed" ff="monospace" data-testid="account-number">
              {t('tradingAccounts.accountNumber', { number: account.platform_id })}
            </Text>
          ) : null}
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {account.client_email}
          </Text>
        </>
      ),
    },
    {
      key: 'balance',
      header: t('tradingAccounts.columns.balance'),
      cell: (account) => (
        <>
          <Text size="sm" fw={500} data-testid="account-balance">
            {formatMoney(account.balance)}
          </Text>
          <Text size="xs" c="dimmed">
            {t('tradingAccounts.totalInvested', { amount: formatMoney(account.total_invested) })}
          </Text>
        </>
      ),
    },
    {
      key: 'profit',
      header: t('tradingAccounts.columns.profit'),
      cell: (account) => (
        <>
          <SignedMoney amount={account.total_profit} size="sm" />
          <Text size="xs" c="dimmed">
            {t('tradingAccounts.trades', { count: account.total_trades })}
          </Text>
        </>
      ),
    },
    {
      key: 'active',
      header: t('tradingAccounts.columns.activeTrades'),
      cell: (account) => (
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
      ),
    },
    {
      key: 'status',
      header: t('tradingAccounts.columns.status'),
      card: 'aside',
      cell: (account) => <AccountStatusBadge status={account.status} />,
    },
    {
      key: 'lastActivity',
      header: t('tradingAccounts.columns.lastActivity'),
      cell: (account) => (
        <Text size="sm">
          {account.last_activity ? formatDateTime(account.last_activity, timeZone) : t('tradingAccounts.never')}
        </Text>
      ),
    },
    {
      key: 'actions',
      header: t('tradingAccounts.columns.actions'),
      align: 'right',
      card: 'actions',
      cell: (account) => (
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
          {statusButton(account)}
        </Group>
      ),
      cardCell: (account) => (
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
          {statusButton(account, true)}
        </SimpleGrid>
      ),
    },
  ];
  return (
    <DataTable
      items={items}
      columns={columns}
      rowKey={(account) => account.id}
      rowProps={(account) => ({
        'data-testid': 'account-row',
        'data-account-id': account.id,
        'data-email': account.client_email,
      })}
      minWidth={960}
      testId="accounts-table"
      cards
      cardsTestId="accounts-cards"
      loading={loading && items.length === 0}
      loadingText={t('tradingAccounts.loading')}
      empty={!loading && items.length === 0}
      emptyText={t('tradingAccounts.empty')}
      emptyTestId="accounts-empty"
    />
  );
}
