import { DEFAULT_ASSET, DEFAULT_STAKE_DOLLARS, DEFAULT_TRADE_DURATION, findAsset } from '@brokerage/shared';
import {
  ActionIcon,
  Alert,
  Avatar,
  Badge,
  Box,
  Button,
  Container,
  Grid,
  Group,
  Loader,
  Indicator,
  Menu,
  Modal,
  Paper,
  ScrollArea,
  Stack,
  Tabs,
  Text,
  Title,
  Tooltip,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCalendarEvent,
  IconChartLine,
  IconHistory,
  IconListDetails,
  IconLogout,
  IconMessage,
  IconRefresh,
  IconRotate,
  IconUserPlus,
  IconUserCircle,
  IconWallet,
  IconCash,
} from '@tabler/icons-react';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../../i18n';
import { logout, type CurrentUser } from '../../auth/api/session';
import { EmailVerifyBanner } from '../../auth/components/EmailVerifyBanner';
import { ProfileDialog } from '../../auth/components/ProfileDialog';
import { LanguageSwitch } from '../../ui/LanguageSwitch';
import { ReconnectingBanner, useLiveStale } from '../../ui/ReconnectingBanner';
import type { AccountView } from '../account';
import { usePrices } from '../api';
import { seedPrices, startPriceFeed } from '../price-feed';
import { usd } from '../rules';
import { AssetSelector } from './AssetSelector';
import { DepositModal, WithdrawModal } from './FundsModals';
import { MessagesView, unreadBadgeText, useUnreadMessages } from './MessagesView';
import { browserTimeZone, timeZoneOffset } from '../../../lib/format';
import { PriceChart } from './PriceChart';
import { RiskWarning } from './RiskWarning';
import { StatementView } from './StatementView';
import { ClosedTradesList, HistoryView, OpenTradesList } from './TradeLists';
import { TRADE_BAR_SPACE, TradePanel, useTradeBar } from './TradePanel';

export type TradingView = 'trade' | 'history' | 'calendar' | 'fundamental' | 'messages' | 'statement';

/** The screens other helpers' modules provide, mounted by the area (they stay out of this module's imports). */
export interface TradingSlots {
  calendar?: ReactNode;
  /** Given the screen's selected asset. */
  fundamental?: (asset: string) => ReactNode;
  /** The staff notifications bell (Reading A), for non-client roles. */
  bell?: ReactNode;
}

/** Seeds the price store from GET /api/prices once and opens the live feed. */
function usePriceFeed(): boolean {
  const prices = usePrices();
  useEffect(() => startPriceFeed(), []);
  useEffect(() => {
    if (prices.data) seedPrices(prices.data);
  }, [prices.data]);
  return prices.isSuccess;
}

function BalanceBox({ account, stale }: { account: AccountView; stale: boolean }) {
  const { t } = useTranslation('platform');
  return (
    <Paper
      withBorder
      px="sm"
      py={4}
      radius="md"
      data-testid="balance-box"
      aria-busy={stale}
      style={stale ? { opacity: 0.55 } : undefined}
    >
      <Group gap="xs" wrap="nowrap">
        <div>
          <Text size="xs" c="dimmed" lh={1.1}>
            {account.mode === 'demo' ? t('account.demo') : t('account.trading')}
          </Text>
          {account.balanceError ? (
            <Text size="sm" c="red" data-testid="balance-error">
              {t('balance.error')}
            </Text>
          ) : account.balanceLoading ? (
            <Loader size="xs" />
          ) : (
            <Text fw={700} ff="monospace" data-testid="balance">
              {usd(account.balance ?? 0)}
            </Text>
          )}
          {account.held > 0 && (
            <Text size="xs" c="orange" data-testid="balance-held">
              {t('balance.held', { amount: usd(account.held) })}
            </Text>
          )}
        </div>
        <Tooltip label={account.balanceError ? t('common.retry') : t('balance.refresh')}>
          <ActionIcon
            variant="subtle"
            onClick={account.refresh}
            aria-label={t('balance.refresh')}
            data-testid="balance-refresh"
          >
            <IconRefresh size={16} />
          </ActionIcon>
        </Tooltip>
      </Group>
    </Paper>
  );
}

/**
 * The trading screen (client-platform.md §2.4 Reading B with D10): header with the account menu, the balance box and
 * the view buttons; the trading panel; the live chart with the open and closed trades below it; the history,
 * messages, calendar and fundamental views. `account` is the client's real account or the demo of D16.
 */
export function TradingScreen({
  account,
  user,
  slots = {},
}: {
  account: AccountView;
  user: CurrentUser | null;
  slots?: TradingSlots;
}) {
  const { t } = useTranslation('platform');
  usePriceFeed();
  // Issue 21 §7: the real account's figures are dimmed while the live socket reconnects (the demo's are local).
  const liveStale = useLiveStale();
  const stale = account.mode === 'live' && liveStale;
  const bar = useTradeBar();
  const [asset, setAsset] = useState(DEFAULT_ASSET);
  const [view, setView] = useState<TradingView>('trade');
  const [tab, setTab] = useState<'open' | 'closed'>('open');
  const [amount, setAmount] = useState(String(DEFAULT_STAKE_DOLLARS));
  const [chosenDuration, setDuration] = useState(DEFAULT_TRADE_DURATION);
  const [depositOpen, setDepositOpen] = useState(false);
  const [withdrawOpen, setWithdrawOpen] = useState(false);
  const [profileOpen, setProfileOpen] = useState(false);
  const [resetOpen, setResetOpen] = useState(false);

  // The server may offer other durations (TRADE_DURATIONS): the choice is always one of them.
  const offered = account.settings.durations;
  const duration =
    offered.length === 0 || offered.includes(chosenDuration)
      ? chosenDuration
      : offered.includes(DEFAULT_TRADE_DURATION)
        ? DEFAULT_TRADE_DURATION
        : offered[0]!;

  const decimals = findAsset(asset)?.decimals ?? 5;
  const chartTrades = useMemo(() => account.openTrades.filter((tr) => tr.asset === asset), [account.openTrades, asset]);
  const loggedIn = user !== null && account.mode === 'live';
  const name = user?.name || user?.email || (user ? t('account.user') : t('account.demoName'));
  // §2.4: the client's account number (platform_id), else the user id; the demo user's fixed one.
  const id = user ? (user.platform_id ?? user.id) : 'DEMO123456789';
  const unread = useUnreadMessages(loggedIn);
  const zone = browserTimeZone();

  const viewButton = (target: TradingView, icon: ReactNode, label: string) => (
    <Button
      size="xs"
      variant={view === target ? 'filled' : 'default'}
      leftSection={icon}
      onClick={() => {
        setView(view === target ? 'trade' : target);
        if (target === 'history') account.refresh();
      }}
      data-testid={`view-${target}`}
    >
      {label}
    </Button>
  );

  return (
    <Box mih="100vh" bg="var(--mantine-color-body)">
      <Paper component="header" radius={0} withBorder px="md" py="xs" style={{ borderTop: 0, borderInline: 0 }}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap">
            <Menu position="bottom-start" withinPortal>
              <Menu.Target>
                <UnstyledButton data-testid="account-button">
                  <VisuallyHidden>
                    {unread > 0
                      ? `${t('account.menu')} (${t('account.unread', { count: unread })}): `
                      : `${t('account.menu')}: `}
                  </VisuallyHidden>
                  <Group gap={8} wrap="nowrap">
                    <Indicator
                      disabled={unread === 0}
                      label={unreadBadgeText(unread)}
                      size={18}
                      color="red"
                      offset={4}
                      data-testid="account-unread"
                    >
                      <Avatar color="blue" radius="xl" size="md">
                        {name.slice(0, 1).toUpperCase()}
                      </Avatar>
                    </Indicator>
                    <div style={{ lineHeight: 1.1, minWidth: 0 }}>
                      <Text size="sm" fw={600} maw={160} truncate="end" title={name} data-testid="account-name">
                        {name}
                      </Text>
                      <Text size="xs" c="dimmed" maw={160} truncate data-testid="account-id">
                        {t('account.id', { id })}
                      </Text>
                    </div>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label maw={280} style={{ overflowWrap: 'anywhere' }}>
                  {name} · {account.mode === 'demo' ? t('account.demo') : t('account.trading')}
                </Menu.Label>
                {user?.email && <Menu.Label>{user.email}</Menu.Label>}
                {loggedIn && (
                  <Menu.Item
                    leftSection={<IconMessage size={16} />}
                    onClick={() => setView('messages')}
                    data-testid="menu-messages"
                    rightSection={
                      unread > 0 ? (
                        <Badge size="sm" color="red" circle={unread < 10} data-testid="menu-messages-unread">
                          {unreadBadgeText(unread)}
                        </Badge>
                      ) : null
                    }
                  >
                    {t('account.messages')}
                  </Menu.Item>
                )}
                <Menu.Item
                  leftSection={<IconWallet size={16} />}
                  onClick={() => setDepositOpen(true)}
                  data-testid="menu-deposit"
                >
                  {t('account.deposit')}
                </Menu.Item>
                <Menu.Item
                  leftSection={<IconCash size={16} />}
                  onClick={() => setWithdrawOpen(true)}
                  data-testid="menu-withdraw"
                >
                  {t('account.withdraw')}
                </Menu.Item>
                {loggedIn && (
                  <Menu.Item
                    leftSection={<IconUserCircle size={16} />}
                    onClick={() => setProfileOpen(true)}
                    data-testid="menu-profile"
                  >
                    {t('emailFlows.profile.menu')}
                  </Menu.Item>
                )}
                {account.resetDemo && (
                  <Menu.Item
                    leftSection={<IconRotate size={16} />}
                    onClick={() => setResetOpen(true)}
                    data-testid="menu-demo-reset"
                  >
                    {t('demo.reset')}
                  </Menu.Item>
                )}
                {user && (
                  <Menu.Item
                    leftSection={<IconLogout size={16} />}
                    color="red"
                    onClick={() => void logout('/')}
                    data-testid="logout"
                  >
                    {t('account.logout')}
                  </Menu.Item>
                )}
              </Menu.Dropdown>
            </Menu>
            {account.mode === 'demo' && (
              <Badge color="orange" variant="light" data-testid="demo-badge">
                {t('account.demo')}
              </Badge>
            )}
            {account.mode === 'demo' && !user && (
              // Issue 27 item 15: from the demo to a real account (the landing page opens its registration form).
              <Button
                component="a"
                href="/?register=1"
                size="xs"
                leftSection={<IconUserPlus size={14} />}
                data-testid="demo-open-real"
              >
                {t('demo.openReal')}
              </Button>
            )}
            <BalanceBox account={account} stale={stale} />
            <Text size="xs" c="dimmed" data-testid="trading-time-zone" title={zone}>
              {t('account.timeZone', { zone, offset: timeZoneOffset(zone, new Date()) })}
            </Text>
          </Group>
          <Group gap="xs" wrap="wrap">
            {viewButton('calendar', <IconCalendarEvent size={14} />, t('views.calendar'))}
            {viewButton('fundamental', <IconChartLine size={14} />, t('views.fundamental'))}
            {viewButton('history', <IconHistory size={14} />, t('views.history'))}
            {loggedIn && viewButton('statement', <IconListDetails size={14} />, t('views.statement'))}
            <Box visibleFrom="md">
              <AssetSelector value={asset} onChange={setAsset} />
            </Box>
            {slots.bell}
            {/* ru/en of D15, and kk for a visitor who chose it on the public site (the platform texts have kk). */}
            <LanguageSwitch languages={LANGUAGES} />
          </Group>
        </Group>
      </Paper>

      {account.mode === 'live' && (
        <Container size="xl" pt={stale ? 'sm' : 0}>
          <ReconnectingBanner title={t('live.reconnecting')} text={t('live.reconnectingHint')} />
        </Container>
      )}

      {/* Issue 22 §2: a client's address is verified before money moves. */}
      {loggedIn && user && !user.email_verified && (
        <Container size="xl" pt="sm">
          <EmailVerifyBanner user={user} />
        </Container>
      )}

      {account.balanceError && (
        <Container size="xl" pt="sm">
          <Alert color="red" icon={<IconAlertTriangle size={16} />} data-testid="balance-alert">
            <Group justify="space-between">
              <Text size="sm">{t('balance.errorLong')}</Text>
              <Button size="xs" variant="light" onClick={account.refresh}>
                {t('common.retry')}
              </Button>
            </Group>
          </Alert>
        </Container>
      )}

      <Container
        component="main"
        size="xl"
        pt="md"
        pb={bar ? TRADE_BAR_SPACE : 'md'}
        aria-busy={stale}
        style={stale ? { opacity: 0.55 } : undefined}
        data-stale={stale || undefined}
      >
        <VisuallyHidden>
          <Title order={1}>{t('screen.title')}</Title>
        </VisuallyHidden>
        <Grid gutter="md">
          <Grid.Col span={{ base: 12, md: 4, lg: 3 }} order={{ base: 2, md: 1 }}>
            <Stack>
              <TradePanel
                account={account}
                asset={asset}
                onAsset={setAsset}
                amount={amount}
                onAmount={setAmount}
                duration={duration}
                onDuration={setDuration}
              />
              <RiskWarning />
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 8, lg: 9 }} order={{ base: 1, md: 2 }}>
            {view === 'trade' && (
              <Stack>
                <Paper withBorder p="sm" radius="md">
                  <PriceChart symbol={asset} decimals={decimals} trades={chartTrades} />
                </Paper>
                <Tabs keepMounted value={tab} onChange={(v) => setTab(v === 'closed' ? 'closed' : 'open')}>
                  <Tabs.List>
                    {/* Issue 15 defect 6: no count until the list has loaded (never a false '(0)'). */}
                    <Tabs.Tab
                      value="open"
                      data-testid="tab-open"
                      rightSection={account.openLoading ? <Loader size={12} aria-hidden /> : undefined}
                    >
                      {account.openLoading
                        ? t('trades.openTitle')
                        : t('trades.openTab', { n: account.openTrades.length })}
                    </Tabs.Tab>
                    <Tabs.Tab
                      value="closed"
                      data-testid="tab-closed"
                      rightSection={account.closed.loading ? <Loader size={12} aria-hidden /> : undefined}
                    >
                      {account.closed.loading
                        ? t('trades.closedTitle')
                        : t('trades.closedTab', { n: account.closed.total })}
                    </Tabs.Tab>
                  </Tabs.List>
                  {/* Both panels exist (keepMounted), so every tab's aria-controls names a real panel. */}
                  <Tabs.Panel value="open">
                    <ScrollArea.Autosize mah={520} mt="sm">
                      <OpenTradesList trades={account.openTrades} loading={account.openLoading} />
                    </ScrollArea.Autosize>
                  </Tabs.Panel>
                  <Tabs.Panel value="closed">
                    <ScrollArea.Autosize mah={520} mt="sm">
                      <ClosedTradesList
                        items={account.closed.items}
                        loading={account.closed.loading}
                        error={account.closed.error}
                        onRetry={account.refresh}
                      />
                    </ScrollArea.Autosize>
                  </Tabs.Panel>
                </Tabs>
              </Stack>
            )}
            {view === 'history' && (
              <HistoryView
                items={account.closed.items}
                total={account.closed.total}
                page={account.page}
                setPage={account.setPage}
                totalProfit={account.totalProfit}
                loading={account.closed.loading}
                error={account.closed.error}
                onRetry={account.refresh}
                onBack={() => setView('trade')}
                proofs={account.mode !== 'demo'}
              />
            )}
            {view === 'messages' && loggedIn && <MessagesView onBack={() => setView('trade')} />}
            {view === 'statement' && loggedIn && (
              <StatementView onBack={() => setView('trade')} accountNumber={user?.platform_id ?? null} />
            )}
            {(view === 'calendar' || view === 'fundamental') && (
              <Stack data-testid={`${view}-view`}>
                <Group justify="flex-end">
                  <Button variant="default" onClick={() => setView('trade')}>
                    {t('history.back')}
                  </Button>
                </Group>
                {(view === 'calendar' ? slots.calendar : slots.fundamental?.(asset)) ?? (
                  <Text c="dimmed">{t('views.unavailable')}</Text>
                )}
              </Stack>
            )}
          </Grid.Col>
        </Grid>
      </Container>

      {loggedIn && user && <ProfileDialog user={user} opened={profileOpen} onClose={() => setProfileOpen(false)} />}
      <DepositModal
        opened={depositOpen}
        onClose={() => setDepositOpen(false)}
        demo={account.mode === 'demo'}
        onOpenSupport={loggedIn ? () => setView('messages') : undefined}
      />
      <WithdrawModal
        opened={withdrawOpen}
        onClose={() => {
          setWithdrawOpen(false);
          account.refresh();
        }}
        balance={account.balance ?? 0}
        demo={account.mode === 'demo'}
      />
      <Modal
        opened={resetOpen}
        onClose={() => setResetOpen(false)}
        title={t('demo.resetTitle')}
        centered
        data-testid="demo-reset-dialog"
      >
        <Text size="sm" mb="md">
          {t('demo.resetText')}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setResetOpen(false)}>
            {t('demo.cancel')}
          </Button>
          <Button
            color="orange"
            onClick={() => {
              account.resetDemo?.();
              setResetOpen(false);
            }}
            data-testid="demo-reset-confirm"
          >
            {t('demo.resetConfirm')}
          </Button>
        </Group>
      </Modal>
    </Box>
  );
}
