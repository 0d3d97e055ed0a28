import { findAsset, formatDuration, type Trade } from '@brokerage/shared';
import { Alert, Badge, Button, Card, Group, Pagination, Paper, Stack, Text, Title } from '@mantine/core';
import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../../i18n';
import { formatDateTime } from '../../../lib/format';
import type { OpenTrade } from '../account';
import { HISTORY_PAGE_SIZE } from '../api';
import { useAuditOpener, type AuditedTrade } from '../audit-context';
import { latestQuote, usePriceVersion } from '../price-feed';
import { countdownColour, formatCountdown, formatPrice, signedUsd, tradeStanding, usd } from '../rules';
import { useNow } from '../../ui/use-now';
import { downloadProofsOf } from '../statement-api';
import classes from './trading.module.css';

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

function decimalsOf(symbol: string): number {
  return findAsset(symbol)?.decimals ?? 5;
}

/**
 * Issue 14: on the live screen a trade card opens its contract audit on a click, Enter or Space; in demo mode (no
 * opener) it stays a plain card.
 */
function useAuditTrigger(trade: AuditedTrade) {
  const { t } = useTranslation('platform');
  const open = useAuditOpener();
  if (!open) return {};
  return {
    role: 'button',
    tabIndex: 0,
    'aria-label': t('audit.open', { id: trade.id }),
    title: t('audit.hint'),
    style: { cursor: 'pointer' },
    onClick: () => open(trade),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        open(trade);
      }
    },
  };
}

const STATUS_COLOUR: Record<string, string> = {
  active: 'blue',
  won: 'teal',
  lost: 'red',
  tie: 'gray',
  no_price: 'gray',
  voided: 'gray',
  expired: 'gray',
};

const STANDING_COLOUR = { won: 'teal', lost: 'red', tie: 'gray' } as const;
const STANDING_NAME = { won: 'winning', lost: 'losing', tie: 'even' } as const;

/**
 * An open trade (§2.4 'Active trade card', D10): asset, direction, the payout if it wins, the stake, the opening price
 * and the asset's current price, and the countdown — red ≤ 10 s (pulsing), yellow ≤ 30 s, green otherwise, on the timer
 * only. At 0 it reads 'Расчет...' until the server's result arrives. Issue 15 defect 1: the card's colour and label say
 * live whether the trade is in the money, with the result it would have if it expired now, by THE rule of D1
 * (tradeStanding → the shared settleTrade); the server's settlement decides.
 */
export function OpenTradeCard({ trade, now }: { trade: OpenTrade; now: number }) {
  const { t } = useTranslation('platform');
  const left = Math.round((Date.parse(trade.expires_at) - now) / 1000);
  const settling = left <= 0;
  const timerColour = settling ? 'gray' : countdownColour(left);
  const decimals = decimalsOf(trade.asset);
  const current = latestQuote(trade.asset)?.price;
  const standing = tradeStanding(trade, current);
  const colour = standing ? STANDING_COLOUR[standing.status] : 'gray';
  const { style: triggerStyle, ...trigger } = useAuditTrigger(trade);
  return (
    <Card
      {...trigger}
      withBorder
      padding="sm"
      data-testid="open-trade"
      data-trade-id={trade.id}
      data-standing={standing ? STANDING_NAME[standing.status] : 'unknown'}
      className={!settling && left <= 10 ? classes.pulse : undefined}
      style={{
        borderColor: `var(--mantine-color-${colour}-6)`,
        borderWidth: 2,
        borderInlineStartWidth: 6,
        ...triggerStyle,
      }}
    >
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Group gap={6}>
          <Text fw={700}>{trade.asset}</Text>
          <Badge color={trade.direction === 'call' ? 'teal' : 'red'} variant="light">
            {t(trade.direction === 'call' ? 'trade.buy' : 'trade.sell')}
          </Badge>
          <Badge color={colour} variant="filled" data-testid="trade-standing">
            {standing ? t(`trade.${STANDING_NAME[standing.status]}`) : t('trade.noQuote')}
          </Badge>
        </Group>
        <Text size="sm" fw={600} data-testid="trade-payout">
          {t('trade.payout')}: {usd(trade.amount + trade.expected_payout)}
        </Text>
      </Group>
      <Group justify="space-between" mt={4} wrap="wrap">
        <Text size="sm">{t('trade.amount', { amount: usd(trade.amount) })}</Text>
        <Text size="sm">
          {t('trade.ifNow')}:{' '}
          <Text
            span
            fw={700}
            c={standing?.status === 'won' ? 'teal' : standing?.status === 'lost' ? 'red' : undefined}
            data-testid="trade-now-result"
          >
            {standing ? signedUsd(standing.result) : '—'}
          </Text>
        </Text>
      </Group>
      <Text size="sm" c="dimmed" mt={4}>
        {t('trade.strike')}: {formatPrice(trade.strike_price, decimals)} · {t('trade.current')}:{' '}
        {formatPrice(current, decimals)}
      </Text>
      <Group justify="space-between" mt={4}>
        <Text size="xs" c="dimmed" data-testid="trade-expires">
          {t('trade.expires')}: {formatDateTime(trade.expires_at, LOCAL_ZONE, { seconds: true })}
        </Text>
        <Text size="sm" fw={700} c={timerColour} data-testid="countdown" data-colour={timerColour}>
          {settling
            ? t('trade.settling')
            : `${t('trade.left')} ${formatCountdown(left, {
                d: t('units.d'),
                h: t('units.h'),
                m: t('units.m'),
                s: t('units.s'),
              })}`}
        </Text>
      </Group>
    </Card>
  );
}

export function OpenTradesList({ trades, loading = false }: { trades: OpenTrade[]; loading?: boolean }) {
  const { t } = useTranslation('platform');
  const now = useNow(1000);
  usePriceVersion();
  if (loading) {
    return (
      <Text c="dimmed" size="sm" py="md" ta="center" data-testid="open-loading">
        {t('common.loading')}
      </Text>
    );
  }
  if (trades.length === 0) {
    return (
      <Stack align="center" gap={2} py="lg" data-testid="open-empty">
        <Text fw={600}>{t('trades.openEmpty')}</Text>
        <Text size="sm" c="dimmed">
          {t('trades.openEmptyHint')}
        </Text>
      </Stack>
    );
  }
  return (
    <Stack gap="xs">
      {trades.map((trade) => (
        <OpenTradeCard key={trade.id} trade={trade} now={now} />
      ))}
    </Stack>
  );
}

/** The result column of §4: '+$X' won, '-$X' lost, '$X' returned (tie, no price by D22's gap rule, voided). */
function resultText(trade: Trade): string {
  if (trade.status === 'won') return `+${usd(trade.profit_loss ?? 0)}`;
  if (trade.status === 'lost') return `-${usd(trade.amount)}`;
  if (trade.status === 'tie' || trade.status === 'no_price' || trade.status === 'voided') return usd(trade.amount);
  return '—';
}

/** A closed trade: asset, direction, status, stake, result, and the opening and closing price with their times. */
export function TradeRow({ trade }: { trade: Trade }) {
  const { t } = useTranslation('platform');
  const decimals = decimalsOf(trade.asset);
  const lang = currentLanguage() === 'en' ? 'en' : 'ru';
  const statusKey = (['active', 'won', 'lost', 'tie', 'no_price', 'voided', 'expired'] as const).includes(
    trade.status as 'active',
  )
    ? trade.status
    : 'unknown';
  const trigger = useAuditTrigger(trade);
  return (
    <Paper
      {...trigger}
      withBorder
      p="sm"
      data-testid="closed-trade"
      data-trade-id={trade.id}
      data-status={trade.status}
    >
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap={6}>
          <Text fw={700}>{trade.asset}</Text>
          <Badge color={trade.direction === 'call' ? 'teal' : 'red'} variant="light">
            {t(trade.direction === 'call' ? 'trade.buy' : 'trade.sell')}
          </Badge>
          <Badge color={STATUS_COLOUR[trade.status] ?? 'gray'} data-testid="trade-status">
            {t(`status.${statusKey}`)}
          </Badge>
        </Group>
        <Text
          fw={700}
          c={trade.status === 'won' ? 'teal' : trade.status === 'lost' ? 'red' : undefined}
          data-testid="trade-result"
        >
          {resultText(trade)}
        </Text>
      </Group>
      <Group gap="lg" mt={4} wrap="wrap">
        <Text size="sm">{t('trade.amount', { amount: usd(trade.amount) })}</Text>
        <Text size="sm" data-testid="trade-open-price">
          {t('trade.openPrice')}: {formatPrice(trade.strike_price, decimals)}
        </Text>
        <Text size="sm" data-testid="trade-close-price">
          {t('trade.closePrice')}: {formatPrice(trade.close_price, decimals)}
        </Text>
        <Text size="sm" c="dimmed">
          {t('trade.duration')}: {formatDuration(trade.duration, lang)}
        </Text>
      </Group>
      {/* Issue 27 item 5: opened → expired, the stored expiry to the second, as the open trade's card showed it. */}
      <Text size="xs" c="dimmed" mt={2} data-testid="trade-times">
        {formatDateTime(trade.strike_at, LOCAL_ZONE, { seconds: true })} →{' '}
        {formatDateTime(trade.expires_at, LOCAL_ZONE, { seconds: true })}
      </Text>
    </Paper>
  );
}

export function ClosedTradesList({
  items,
  loading,
  error,
  onRetry,
}: {
  items: Trade[];
  loading: boolean;
  error: boolean;
  onRetry: () => void;
}) {
  const { t } = useTranslation('platform');
  if (error)
    return (
      <Alert color="red" title={t('trades.loadError')}>
        <Button size="xs" variant="light" onClick={onRetry}>
          {t('common.retry')}
        </Button>
      </Alert>
    );
  if (loading)
    return (
      <Text c="dimmed" size="sm" py="md" ta="center">
        {t('common.loading')}
      </Text>
    );
  if (items.length === 0)
    return (
      <Stack align="center" gap={2} py="lg" data-testid="history-empty">
        <Text fw={600}>{t('history.empty')}</Text>
        <Text size="sm" c="dimmed">
          {t('history.emptyHint')}
        </Text>
      </Stack>
    );
  return (
    <Stack gap="xs">
      {items.map((trade) => (
        <TradeRow key={trade.id} trade={trade} />
      ))}
    </Stack>
  );
}

/** The history view (§2.4 Reading B): every closed trade, 10 per page, and the total P&L. */
export function HistoryView({
  items,
  total,
  page,
  setPage,
  totalProfit,
  loading,
  error,
  onRetry,
  onBack,
  proofs = false,
}: {
  /** Offer the price proofs of the trades shown (a real account; demo trades have none). */
  proofs?: boolean;
  items: Trade[];
  total: number;
  page: number;
  setPage: (p: number) => void;
  totalProfit: number | null;
  loading: boolean;
  error: boolean;
  onRetry: () => void;
  onBack: () => void;
}) {
  const { t } = useTranslation('platform');
  const pages = Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE));
  const [proofState, setProofState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const downloadProofs = async () => {
    setProofState({ busy: true, error: null });
    const failure = await downloadProofsOf(items);
    setProofState({ busy: false, error: failure === null ? null : failure || t('history.proofsFailed') });
  };
  return (
    <Stack data-testid="history-view">
      <Group justify="space-between" wrap="wrap">
        <Title order={3}>{t('history.title')}</Title>
        <Button variant="default" onClick={onBack}>
          {t('history.back')}
        </Button>
      </Group>
      <Group gap={6}>
        <Text>{t('history.totalPnl')}:</Text>
        <Text fw={700} c={(totalProfit ?? 0) >= 0 ? 'teal' : 'red'} data-testid="total-pnl">
          {totalProfit === null ? '—' : `${totalProfit >= 0 ? '+' : '-'}${usd(totalProfit)}`}
        </Text>
      </Group>
      <ClosedTradesList items={items} loading={loading} error={error} onRetry={onRetry} />
      {proofs && items.some((trade) => trade.settled_at) && (
        <Group gap="sm" wrap="wrap">
          <Button
            variant="default"
            size="xs"
            loading={proofState.busy}
            onClick={() => void downloadProofs()}
            data-testid="history-download-proofs"
          >
            {t('history.downloadProofs')}
          </Button>
          {proofState.error && (
            <Text size="sm" c="red" role="alert" data-testid="history-proofs-error">
              {proofState.error}
            </Text>
          )}
        </Group>
      )}
      {total > 0 && (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed" data-testid="history-pages">
            {t('history.pageOf', { page, pages, count: total })}
          </Text>
          <Pagination
            total={pages}
            value={page}
            onChange={setPage}
            withEdges={false}
            getControlProps={(control) => ({
              'aria-label': t(control === 'previous' ? 'history.prev' : 'history.next'),
            })}
          />
        </Group>
      )}
    </Stack>
  );
}
