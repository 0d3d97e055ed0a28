import type { AdminTrade, TradingAccount } from '@brokerage/shared';
import { Alert, Anchor, Box, Button, Group, Loader, Paper, SimpleGrid, Stack, Tabs, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  IconActivity,
  IconArrowLeft,
  IconCash,
  IconChartLine,
  IconCoin,
  IconRefresh,
  IconWallet,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../../lib/api';
import { formatCount, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { PageHeader } from '../../ui/PageHeader';
import { StatCard } from '../../ui/StatCard';
import { useActiveTrades, useLatestPrices, useTradingAccount, useVoidTrade } from '../api/trading-admin';
import { failureReason } from '../failure-text';
import { tradingAdminKeys } from '../keys';
import { useAccountPollInterval, usePricePollInterval } from '../live-updates';
import { useNow } from '../../ui/use-now';
import { AccountStatusBadge } from './AccountStatusBadge';
import { ActiveTradesCard } from './ActiveTradesCard';
import { BalanceModal } from './BalanceModal';
import { LedgerTable } from './LedgerTable';
import { SettingsCard } from './SettingsCard';
import { SignedMoney } from './SignedMoney';
import { TradeHistoryTable } from './TradeHistoryTable';
import { VoidTradeModal } from './VoidTradeModal';
import { PendingCreditsNote } from '../../withdrawal-requests/components/Confirmations';
import { PendingVoidsNote } from './PendingVoidsNote';
import { ReconnectingBanner } from '../../ui/ReconnectingBanner';
import { newIdempotencyKey } from '../../../lib/idempotency';

const LIST_PATH = '/crm/trading-accounts';
/** After a trade's expiry the server settles it within a moment; the list is asked again this long after. */
const SETTLE_GRACE_MS = 2_000;

/** The list the user came from (its filters and page), else the plain list. */
function useListPath(): string {
  const location = useLocation();
  const state = location.state as { listSearch?: unknown } | null;
  const search = typeof state?.listSearch === 'string' && state.listSearch.startsWith('?') ? state.listSearch : '';
  return `${LIST_PATH}${search}`;
}

function parseAccountId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,15}$/.test(raw)) return null;
  const id = Number(raw);
  return id >= 1 && Number.isSafeInteger(id) ? id : null;
}

function AccountNotFound({ listPath }: { listPath: string }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="xl" radius="md" maw={520} mx="auto" mt="xl" data-testid="account-not-found">
      <Stack align="center" gap="sm">
        <Title order={3}>{t('tradingAccounts.detail.notFound')}</Title>
        <Button component={Link} to={listPath} variant="light" leftSection={<IconArrowLeft size={16} />}>
          {t('tradingAccounts.detail.backToList')}
        </Button>
      </Stack>
    </Paper>
  );
}

/** §2.17 Trading account detail, as changed by D1 (no result controls; void with a reason). */
export function TradingAccountDetail() {
  const params = useParams();
  const listPath = useListPath();
  const accountId = parseAccountId(params.accountId);
  if (accountId === null) return <AccountNotFound listPath={listPath} />;
  return <AccountScreen key={accountId} accountId={accountId} listPath={listPath} />;
}

function AccountScreen({ accountId, listPath }: { accountId: number; listPath: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const user = useCurrentUser();
  const [editing, setEditing] = useState(false);
  const [balanceOpen, setBalanceOpen] = useState(false);
  const [balanceKey, setBalanceKey] = useState(0);
  // The void's Idempotency-Key is made when its dialog opens: a double click or a retry asks once (D3).
  const [voiding, setVoiding] = useState<{ trade: AdminTrade; open: boolean; key: string } | null>(null);

  const poll = useAccountPollInterval(accountId);
  // §2.17: every 30 s the active trades, and the whole account too unless its settings are being edited.
  const detail = useTradingAccount(accountId, { refetchInterval: editing ? false : poll });
  const activeQuery = useActiveTrades(accountId, { refetchInterval: poll, enabled: detail.isSuccess });
  const voidTrade = useVoidTrade(accountId);

  // The fresher of the two answers that carry the active trades.
  const activeTrades =
    activeQuery.data && activeQuery.dataUpdatedAt >= detail.dataUpdatedAt
      ? activeQuery.data.activeTrades
      : (detail.data?.activeTrades ?? []);
  const hasActive = activeTrades.length > 0;
  const prices = useLatestPrices({ refetchInterval: usePricePollInterval(), enabled: hasActive });
  const now = useNow(1000, hasActive);

  const notFound = detail.error instanceof ApiError && detail.error.status === 404;
  useEffect(() => {
    // §8: an account that is not there (or outside the caller's scope, D5) sends the user back to the list.
    if (!notFound) return;
    notifications.show({
      id: 'trading-account-not-found',
      color: 'red',
      message: t('tradingAccounts.detail.notFound'),
    });
    void navigate(listPath, { replace: true });
  }, [notFound, navigate, listPath, t]);

  // Shortly after the next expiry, ask again: the server will have settled the trade (won, lost or tie).
  const nextExpiry = activeTrades
    .map((trade) => new Date(trade.expires_at).getTime())
    .filter((at) => at > now)
    .sort((a, b) => a - b)[0];
  useEffect(() => {
    if (nextExpiry === undefined) return undefined;
    const timer = window.setTimeout(
      () => void queryClient.invalidateQueries({ queryKey: tradingAdminKeys.account(accountId) }),
      nextExpiry - Date.now() + SETTLE_GRACE_MS,
    );
    return () => window.clearTimeout(timer);
  }, [nextExpiry, accountId, queryClient]);

  const refreshAll = () => void queryClient.invalidateQueries({ queryKey: tradingAdminKeys.account(accountId) });

  const confirmVoid = (reason: string) => {
    if (!voiding) return;
    const { trade, key } = voiding;
    voidTrade.mutate(
      { body: { trade_id: trade.id, reason }, idempotencyKey: key },
      {
        // Issue 20 finding 11: the void only asks; a second staff member confirms it.
        onSuccess: (request) => {
          notifications.show({
            color: 'orange',
            message: t('tradingAccounts.voidModal.sent', { id: request.trade_id }),
          });
          setVoiding((current) => (current ? { ...current, open: false } : null));
        },
        onError: (error) =>
          notifications.show({
            color: 'red',
            message: t('tradingAccounts.voidModal.error', { reason: failureReason(error) }),
          }),
      },
    );
  };

  const back = (
    <Anchor component={Link} to={listPath} size="sm" data-testid="account-back">
      <Group gap={4} wrap="nowrap">
        <IconArrowLeft size={16} />
        {t('tradingAccounts.detail.back')}
      </Group>
    </Anchor>
  );

  if (detail.isPending || notFound) {
    return (
      <Stack gap="md">
        {back}
        <Group gap="sm" justify="center" py="xl" role="status" data-testid="account-loading">
          <Loader size="sm" />
          <Text>{t('tradingAccounts.detail.loading')}</Text>
        </Group>
      </Stack>
    );
  }
  if (detail.isError) {
    return (
      <Stack gap="md">
        {back}
        <Alert color="red" title={t('tradingAccounts.detail.loadError', { reason: failureReason(detail.error) })}>
          <Button size="xs" variant="light" color="red" onClick={() => void detail.refetch()}>
            {t('common.retry')}
          </Button>
        </Alert>
      </Stack>
    );
  }

  const { account, tradeHistory } = detail.data;
  const voidingId = voidTrade.isPending ? (voidTrade.variables?.body.trade_id ?? null) : null;

  return (
    <>
      <Box mb="sm">{back}</Box>
      {/* Issue 21 §7: the watched account's figures may be stale while the live socket reconnects. */}
      <ReconnectingBanner mb="sm" title={t('live.reconnecting')} text={t('live.reconnectingHint')} />
      <PageHeader
        title={t('tradingAccounts.detail.title', { name: account.client_name || account.client_email })}
        subtitle={
          <Group component="span" gap="xs" wrap="wrap">
            <AccountStatusBadge status={account.status} />
            <span data-testid="account-subtitle">
              {t('tradingAccounts.detail.subtitle', { id: account.id, email: account.client_email })}
            </span>
            {account.platform_id ? (
              <span data-testid="account-number">
                {t('tradingAccounts.accountNumber', { number: account.platform_id })}
              </span>
            ) : null}
          </Group>
        }
        actions={
          <>
            <Button
              variant="default"
              leftSection={<IconRefresh size={16} />}
              loading={detail.isFetching}
              onClick={refreshAll}
              data-testid="account-refresh"
            >
              {t('tradingAccounts.detail.refresh')}
            </Button>
            <Button
              leftSection={<IconWallet size={16} />}
              onClick={() => {
                setBalanceKey((key) => key + 1);
                setBalanceOpen(true);
              }}
              data-testid="change-balance"
            >
              {t('tradingAccounts.detail.changeBalance')}
            </Button>
          </>
        }
      />

      <Stack gap="lg">
        <SummaryCards account={account} activeCount={activeTrades.length} />

        <PendingCreditsNote credits={detail.data.pendingCredits} testId="account-pending-credits" />
        <PendingVoidsNote requests={detail.data.pendingVoids} />

        <SettingsCard
          account={account}
          editing={editing}
          onEdit={() => setEditing(true)}
          onDone={() => setEditing(false)}
          onCancel={() => {
            setEditing(false);
            void detail.refetch();
          }}
        />

        <ActiveTradesCard
          trades={activeTrades}
          prices={prices.data}
          now={now}
          refreshing={activeQuery.isFetching}
          voidingId={voidingId}
          pendingVoids={detail.data.pendingVoids}
          onRefresh={() => void activeQuery.refetch()}
          onVoid={(trade) => setVoiding({ trade, open: true, key: newIdempotencyKey() })}
        />

        <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
          <Tabs defaultValue="history" keepMounted={false}>
            <Tabs.List mb="md">
              <Tabs.Tab value="history" data-testid="tab-history">
                {t('tradingAccounts.history.tab')}
              </Tabs.Tab>
              <Tabs.Tab value="ledger" data-testid="tab-ledger">
                {t('tradingAccounts.ledger.tab')}
              </Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="history">
              <TradeHistoryTable trades={tradeHistory} />
            </Tabs.Panel>
            <Tabs.Panel value="ledger">
              <LedgerTable accountId={account.id} timeZone={user.business_timezone} />
            </Tabs.Panel>
          </Tabs>
        </Paper>

        <BalanceModal
          account={account}
          opened={balanceOpen}
          formKey={balanceKey}
          onClose={() => setBalanceOpen(false)}
        />
        <VoidTradeModal
          trade={voiding?.trade ?? null}
          opened={voiding?.open ?? false}
          voiding={voidTrade.isPending}
          onConfirm={confirmVoid}
          onClose={() => setVoiding((current) => (current ? { ...current, open: false } : null))}
          onExited={() => setVoiding(null)}
        />
      </Stack>
    </>
  );
}

/** §2.17 cards: current balance, total invested, total profit, active trade count. */
function SummaryCards({ account, activeCount }: { account: TradingAccount; activeCount: number }) {
  const { t } = useTranslation();
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
      <StatCard
        label={t('tradingAccounts.detail.cards.balance')}
        value={formatMoney(account.balance)}
        icon={<IconCash size={20} />}
        color="green"
        testId="account-balance-card"
      />
      <StatCard
        label={t('tradingAccounts.detail.cards.invested')}
        value={formatMoney(account.total_invested)}
        icon={<IconCoin size={20} />}
        testId="account-invested-card"
      />
      <StatCard
        label={t('tradingAccounts.detail.cards.profit')}
        value={<SignedMoney amount={account.total_profit} inherit />}
        icon={<IconChartLine size={20} />}
        color="grape"
        testId="account-profit-card"
      />
      <StatCard
        label={t('tradingAccounts.detail.cards.activeTrades')}
        value={formatCount(activeCount)}
        icon={<IconActivity size={20} />}
        color="orange"
        testId="account-active-card"
      />
    </SimpleGrid>
  );
}
