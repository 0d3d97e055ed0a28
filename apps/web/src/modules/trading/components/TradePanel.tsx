import { formatDuration, type TradeDirection } from '@brokerage/shared';
import { Alert, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../../i18n';
import type { AccountView } from '../account';
import { latestQuote, usePriceVersion } from '../price-feed';
import { potentialProfit, shapeAmount, tradeProblem, usd } from '../rules';
import { AssetSelector } from './AssetSelector';
import { problemText } from './FundsModals';

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
  });
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
        <TextInput
          label={t('panel.amount')}
          description={t('panel.maxHint', { amount: usd(account.balance ?? 0) })}
          placeholder="25"
          inputMode="decimal"
          value={amount}
          onChange={(e) => {
            const next = shapeAmount(e.currentTarget.value);
            if (next !== null) onAmount(next);
          }}
          leftSection="$"
          data-testid="trade-amount"
        />
        <Select
          label={t('panel.expiry')}
          value={String(duration)}
          onChange={(v) => v && onDuration(Number(v))}
          data={durations.map((d) => ({ value: String(d), label: formatDuration(d, lang) }))}
          allowDeselect={false}
          data-testid="trade-duration"
          comboboxProps={{ withinPortal: true }}
        />
        <Group justify="space-between">
          <Text size="sm">{t('panel.profit')}</Text>
          <Text fw={700} c="teal" data-testid="potential-profit">
            +{usd(potentialProfit(amount, settings.payout_percentage))}
          </Text>
        </Group>
        <Text size="xs" c="dimmed">
          {t('panel.payout', { payout: settings.payout_percentage })}
        </Text>
        {problem && (
          <Alert color={problem.code === 'trading_disabled' ? 'orange' : 'red'} p="xs" data-testid="trade-problem">
            {problemText(problem, t)}
          </Alert>
        )}
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
        <Text size="xs" c="dimmed">
          {t('panel.note')}
        </Text>
      </Stack>
    </Paper>
  );
}
