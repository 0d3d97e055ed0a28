import { BALANCE_BUCKETS, type TradingAccount } from '@brokerage/shared';
import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconFilterOff, IconRefresh, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { PageHeader } from '../../ui/PageHeader';
import { TablePager } from '../../ui/TablePager';
import { useSetAccountStatus, useTradingAccounts, type AccountsListParams } from '../api/trading-admin';
import { failureReason } from '../failure-text';
import {
  ACCOUNT_STATUSES,
  accountsListSearch,
  hasAccountFilters,
  isAccountStatus,
  isBalanceBucket,
  parseAccountsListParams,
} from '../list-state';
import { useAccountPollInterval } from '../live-updates';
import { AccountsStats } from './AccountsStats';
import { AccountsTable } from './AccountsTable';
import { StatusConfirmModal } from './StatusConfirmModal';

const SEARCH_DEBOUNCE_MS = 350;

interface Dialog {
  account: TradingAccount;
  open: boolean;
}

/** §2.16 Trading accounts list: refresh, five cards, filters, the server-paged table (cards on phones). */
export function TradingAccountsList() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const [searchParams, setSearchParams] = useSearchParams();
  const state = parseAccountsListParams(searchParams);
  const listSearch = searchParams.toString() ? `?${searchParams.toString()}` : '';
  const [searchText, setSearchText] = useState(state.search);
  const accounts = useTradingAccounts(state, useAccountPollInterval());
  const statusChange = useSetAccountStatus();
  const [dialog, setDialog] = useState<Dialog | null>(null);

  // Read from the address at the moment of the change: the debounced search may land after a filter was picked, and
  // must not put back the filters of the render it was typed in.
  const current = () => parseAccountsListParams(new URLSearchParams(window.location.search));
  const update = (patch: Partial<AccountsListParams>) =>
    setSearchParams(accountsListSearch({ ...current(), page: 1, ...patch }), { replace: true });
  const commitSearch = useDebouncedCallback((search: string) => update({ search }), SEARCH_DEBOUNCE_MS);
  const clear = () => {
    setSearchText('');
    commitSearch.cancel();
    setSearchParams(accountsListSearch({ ...current(), search: '', status: null, balance: null, page: 1 }), {
      replace: true,
    });
  };

  const closeDialog = () => setDialog((current) => (current ? { ...current, open: false } : null));
  const confirmStatus = () => {
    if (!dialog) return;
    const { account } = dialog;
    const action = account.status === 'active' ? 'block' : 'activate';
    const name = account.client_name || account.client_email;
    statusChange.mutate(
      { accountId: account.id, action },
      {
        onSuccess: () =>
          notifications.show({
            color: 'green',
            message:
              action === 'block'
                ? t('tradingAccounts.blockModal.success', { name })
                : t('tradingAccounts.activateModal.success', { name }),
          }),
        onError: (error) =>
          notifications.show({
            color: 'red',
            message: t('tradingAccounts.statusError', { reason: failureReason(error) }),
          }),
        onSettled: closeDialog,
      },
    );
  };

  const items = accounts.data?.accounts ?? [];
  const total = accounts.data?.total ?? 0;
  const failed = accounts.isError && !accounts.data;
  const view = {
    items,
    loading: accounts.isPending,
    timeZone: user.business_timezone,
    listSearch,
    pendingId: statusChange.isPending ? (statusChange.variables?.accountId ?? null) : null,
    onStatusAction: (account: TradingAccount) => setDialog({ account, open: true }),
  };

  return (
    <>
      <PageHeader
        title={t('tradingAccounts.title')}
        subtitle={t('tradingAccounts.subtitle')}
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            loading={accounts.isFetching && !accounts.isPending}
            onClick={() => void accounts.refetch()}
            data-testid="accounts-refresh"
          >
            {t('tradingAccounts.refresh')}
          </Button>
        }
      />
      <AccountsStats stats={accounts.data?.stats} />

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Group mb="md" gap="sm" wrap="wrap" align="flex-end">
          <TextInput
            label={t('tradingAccounts.filters.search')}
            placeholder={t('tradingAccounts.filters.searchPlaceholder')}
            leftSection={<IconSearch size={16} />}
            value={searchText}
            maxLength={120}
            onChange={(event) => {
              setSearchText(event.currentTarget.value);
              commitSearch(event.currentTarget.value);
            }}
            style={{ flex: '1 1 240px' }}
            data-testid="accounts-search"
          />
          <Select
            label={t('tradingAccounts.filters.status')}
            data={[
              { value: '', label: t('tradingAccounts.filters.allStatuses') },
              ...ACCOUNT_STATUSES.map((value) => ({ value, label: t(`tradingAccounts.statuses.${value}`) })),
            ]}
            value={state.status ?? ''}
            onChange={(value) => update({ status: isAccountStatus(value) ? value : null })}
            allowDeselect={false}
            w={{ base: '100%', xs: 180 }}
            data-testid="accounts-status-filter"
          />
          <Select
            label={t('tradingAccounts.filters.balance')}
            data={[
              { value: '', label: t('tradingAccounts.filters.allBalances') },
              ...BALANCE_BUCKETS.map((value) => ({ value, label: t(`tradingAccounts.balanceBuckets.${value}`) })),
            ]}
            value={state.balance ?? ''}
            onChange={(value) => update({ balance: isBalanceBucket(value) ? value : null })}
            allowDeselect={false}
            w={{ base: '100%', xs: 200 }}
            data-testid="accounts-balance-filter"
          />
          <Button
            variant="default"
            leftSection={<IconFilterOff size={16} />}
            disabled={!hasAccountFilters(state) && searchText === ''}
            onClick={clear}
            data-testid="accounts-clear"
          >
            {t('tradingAccounts.filters.clear')}
          </Button>
        </Group>

        {accounts.isError ? (
          <Alert color="red" mb="md" title={t('tradingAccounts.listError')} data-testid="accounts-error">
            <Stack gap="xs" align="flex-start">
              {errorText(accounts.error, '') ? <Text size="sm">{errorText(accounts.error, '')}</Text> : null}
              <Button size="xs" variant="light" color="red" onClick={() => void accounts.refetch()}>
                {t('common.retry')}
              </Button>
            </Stack>
          </Alert>
        ) : null}

        {failed ? null : (
          <>
            <div style={{ opacity: accounts.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}>
              <AccountsTable {...view} />
            </div>
            <Text size="sm" c="dimmed" mt="md" data-testid="accounts-shown">
              {t('tradingAccounts.shown', { shown: items.length, total })}
            </Text>
            <TablePager
              page={state.page}
              perPage={state.perPage}
              total={total}
              onPageChange={(page) => update({ page })}
              onPerPageChange={(perPage) => update({ perPage })}
            />
          </>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('tradingAccounts.timeZone', { zone: user.business_timezone })}
        </Text>
      </Paper>

      <StatusConfirmModal
        account={dialog?.account ?? null}
        opened={dialog?.open ?? false}
        loading={statusChange.isPending}
        onConfirm={confirmStatus}
        onClose={closeDialog}
        onExited={() => setDialog(null)}
      />
    </>
  );
}
