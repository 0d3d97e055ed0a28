import { formatDuration, type TradeDirection } from '@brokerage/shared';
import { Alert, Button, Group, Paper, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../../i18n';
import type { AccountView } from '../account';
import { latestQuote, usePriceVersion } from '../price-feed';
import { isLoadingProblem, potentialProfit, tradeMaximum, tradeProblem, usd } from '../rules';
import { AmountField } from './AmountField';
import { AssetSelector } from './AssetSelector';
import { problemText } from './FundsModals';

/**
 * Issue 15 defect 14: below the md breakpoint (where the panel would stack under the chart and the trade lists) the
 * amount, the expiry and the buy/sell buttons live in a bar fixed to the bottom of the screen, as mobile trading apps do.
 */
export const TRADE_BAR_QUERY = '(max-width: 61.99em)';
/** The room the screen leaves under its content for the bar. */
export const TRADE_BAR_SPACE = 190;

export function useTradeBar(): boolean {
  return useMediaQuery(TRADE_BAR_QUERY, false, { getInitialValueInEffect: false }) ?? false;
}

/**
 * The trading panel (§2.4 Reading B): asset, amount with the 'Максимум' hint, expiry from the server's durations,
 * potential profit from the account's payout, and the buy and sell buttons — disabled, with the reason shown, while a
 * check of §5 or the account's settings fails. The server decides everything again when the trade is placed.
 */
export function TradePanel({
  account,
  asset,
  onAsset,
  amount,
  onAmount,
  duration,
  onDuration,
}: {
  account: AccountView;
  asset: string;
  onAsset: (s: string) => void;
  amount: string;
  onAmount: (v: string) => void;
  duration: number;
  onDuration: (d: number) => void;
}) {
  const { t } = useTranslation('platform');
  usePriceVersion();
  const bar = useTradeBar();
  const [busy, setBusy] = useState<TradeDirection | null>(null);
  const { settings } = account;
  const price = latestQuote(asset)?.price ?? null;
  const problem = tradeProblem({
    amount,
    balance: account.balance,
    minTrade: settings.min_trade_amount,
    maxTrade: settings.max_trade_amount,
    tradingEnabled: settings.trading_enabled,
    price,
    balanceError: account.balanceError,
  });
  // Defect 5: the smaller of the balance and the account's limit, saying which binds; defect 6: never a false $0.
  const maximum = account.settingsReady ? tradeMaximum(account.balance, settings.max_trade_amount) : null;
  const maxHint =
    maximum === null
      ? t('panel.maxLoading')
      : t(maximum.binds === 'balance' ? 'panel.maxBalance' : 'panel.maxLimit', { amount: usd(maximum.amount) });
  // Issue 27 item 3: until the account's settings are in, its payout is not known — no default 85 % shown as if it
  // were the account's.
  const payoutKnown = account.settingsReady;
  const profit = potentialProfit(amount, settings.payout_percentage);
  const stake = Number(amount);
  const payoutTotal = Number.isFinite(stake) && profit > 0 ? stake + profit : 0;
  const lang = currentLanguage() === 'en' ? 'en' : 'ru';
  const durations = settings.durations.includes(duration) ? settings.durations : [duration, ...settings.durations];

  const submit = async (direction: TradeDirection) => {
    if (problem || busy) return;
    setBusy(direction);
    try {
      await account.place({ asset, direction, amount: Number(amount), duration });
    } catch {
      // The toast has said why.
    } finally {
      setBusy(null);
    }
  };

  const amountInput = (
    <AmountField
      label={t('panel.amount')}
      description={<span data-testid="trade-max">{maxHint}</span>}
      placeholder="25"
      value={amount}
      onValue={onAmount}
      leftSection="$"
      size={bar ? 'xs' : 'sm'}
      data-testid="trade-amount"
    />
  );
  const expirySelect = (
    <Select
      label={t('panel.expiry')}
      value={String(duration)}
      onChange={(v) => v && onDuration(Number(v))}
      data={durations.map((d) => ({ value: String(d), label: formatDuration(d, lang) }))}
      allowDeselect={false}
      size={bar ? 'xs' : 'sm'}
      data-testid="trade-duration"
      comboboxProps={{ withinPortal: true }}
    />
  );
  const figures = (
    <Stack gap={2}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">{t('panel.profit')}</Text>
        <Text fw={700} c="teal" data-testid="potential-profit">
          {payoutKnown ? `+${usd(profit)}` : '—'}
        </Text>
      </Group>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">{t('panel.payoutTotal')}</Text>
        <Text fw={700} data-testid="potential-payout">
          {payoutKnown ? usd(payoutTotal) : '—'}
        </Text>
      </Group>
    </Stack>
  );
  const problemBox = problem ? (
    isLoadingProblem(problem) ? (
      <Text size="sm" c="dimmed" data-testid="trade-problem" data-loading="true">
        {problemText(problem, t)}
      </Text>
    ) : (
      <Alert
        color={problem.code === 'trading_disabled' ? 'orange' : 'red'}
        p="xs"
        data-testid="trade-problem"
        styles={{ message: { color: 'var(--mantine-color-text)' } }}
      >
        {problemText(problem, t)}
      </Alert>
    )
  ) : null;
  const buttons = (
    <SimpleGrid cols={2} spacing="xs">
      <Button
        color="teal"
        size="md"
        disabled={problem !== null || !account.settingsReady}
        loading={busy === 'call'}
        onClick={() => void submit('call')}
        data-testid="buy-button"
      >
        {t('panel.buy')}
      </Button>
      <Button
        color="red"
        size="md"
        disabled={problem !== null || !account.settingsReady}
        loading={busy === 'put'}
        onClick={() => void submit('put')}
        data-testid="sell-button"
      >
        {t('panel.sell')}
      </Button>
    </SimpleGrid>
  );

  return (
    <Paper withBorder p="md" radius="md" data-testid="trade-panel">
      <Stack gap="sm">
        <Title order={4}>{t('panel.title')}</Title>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('panel.asset')}
          </Text>
          <AssetSelector value={asset} onChange={onAsset} />
        </div>
        {!bar && amountInput}
        {!bar && expirySelect}
        {figures}
        <Text size="xs" c="dimmed" data-testid="account-payout">
          {payoutKnown ? t('panel.payout', { payout: settings.payout_percentage }) : t('panel.payoutLoading')}
        </Text>
        {!bar && problemBox}
        {!bar && buttons}
        <Text size="xs" c="dimmed">
          {t('panel.note')}
        </Text>
      </Stack>
      {bar && (
        <Paper
          component="section"
          aria-label={t('panel.bar')}
          withBorder
          radius={0}
          shadow="md"
          px="sm"
          pt={6}
          pb="sm"
          pos="fixed"
          left={0}
          right={0}
          bottom={0}
          style={{ zIndex: 150, borderBottom: 0, borderInline: 0 }}
          data-testid="trade-bar"
        >
          <Stack gap={6}>
            <SimpleGrid cols={2} spacing="xs">
              {amountInput}
              {expirySelect}
            </SimpleGrid>
            {problemBox}
            {buttons}
          </Stack>
        </Paper>
      )}
    </Paper>
  );
}
