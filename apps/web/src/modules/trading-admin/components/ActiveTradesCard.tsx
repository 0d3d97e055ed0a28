import type { AdminTrade, LatestPrice, TradeVoidRequest } from '@brokerage/shared';
import { ActionIcon, Badge, Button, Group, Paper, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconBan, IconClock, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/format';
import { Field } from '../../ui/Field';
import { formatPrice, inTheMoney, potentialProfit } from '../format';
import { useIsPhone } from '../../ui/media';
import { RemainingTime } from './RemainingTime';
import { StaffTradeAudit, auditRowProps } from './StaffTradeAudit';
import { TradeDirection } from './TradeDirection';

/** The server's latest price, green when the trade is in the money and red when not. */
function CurrentPrice({ trade, prices }: { trade: AdminTrade; prices: Map<string, LatestPrice> | undefined }) {
  const { t } = useTranslation();
  const current = prices?.get(trade.asset)?.price ?? null;
  if (current === null) {
    return (
      <Text span size="sm" c="dimmed">
        {t('tradingAccounts.active.noPrice')}
      </Text>
    );
  }
  const winning = inTheMoney(trade.direction, trade.strike_price, current);
  return (
    <Text
      span
      size="sm"
      ff="monospace"
      c={winning === null ? undefined : winning ? 'teal' : 'red'}
      data-testid="trade-current-price"
    >
      {formatPrice(current, trade.asset)}
    </Text>
  );
}

/** amount × payout / 100 at the payout fixed when the trade opened. */
function Potential({ trade }: { trade: AdminTrade }) {
  return (
    <Text span size="sm" c="teal" style={{ whiteSpace: 'nowrap' }}>
      {formatMoney(potentialProfit(trade.amount, trade.payout_percentage))}{' '}
      <Text span size="xs" c="dimmed">
        ({trade.payout_percentage}%)
      </Text>
    </Text>
  );
}

function VoidButton({
  trade,
  pending,
  disabled,
  onVoid,
  fullWidth,
}: {
  trade: AdminTrade;
  /** The trade's void waiting for a second staff member (issue 20 finding 11): shown instead of the button. */
  pending: TradeVoidRequest | undefined;
  disabled: boolean;
  onVoid: (trade: AdminTrade) => void;
  fullWidth?: boolean;
}) {
  const { t } = useTranslation();
  if (pending) {
    return (
      <Tooltip
        label={t('tradingAccounts.active.voidPendingHint', { name: pending.requested_by_name, reason: pending.reason })}
        multiline
        maw={320}
      >
        <Badge
          color="orange"
          variant="light"
          leftSection={<IconClock size={12} />}
          styles={{ root: { overflow: 'visible' }, label: { overflow: 'visible' } }}
          data-testid="trade-void-pending"
        >
          {t('tradingAccounts.active.voidPending')}
        </Badge>
      </Tooltip>
    );
  }
  return (
    <Button
      size="compact-sm"
      variant="light"
      color="red"
      leftSection={<IconBan size={14} />}
      disabled={disabled}
      fullWidth={fullWidth}
      onClick={(e) => {
        // The row opens the audit; this button only voids.
        e.stopPropagation();
        onVoid(trade);
      }}
      data-testid="trade-void"
    >
      {t('tradingAccounts.active.void')}
    </Button>
  );
}

/**
 * §2.17 'Активные сделки (n)' as changed by D1: asset, direction, amount, strike, the server's current price, the
 * remaining time ticking every second, the potential profit at the trade's own payout, and one 'Аннулировать' per
 * trade ('Ждёт подтверждения' while its void waits for a second person). There is no way here to choose a result.
 */
export function ActiveTradesCard({
  trades,
  prices,
  now,
  refreshing,
  voidingId,
  pendingVoids,
  onRefresh,
  onVoid,
}: {
  trades: AdminTrade[];
  prices: Map<string, LatestPrice> | undefined;
  now: number;
  refreshing: boolean;
  /** The trade whose void call is running: its button is disabled. */
  voidingId: number | null;
  /** The account's voids waiting for confirmation. */
  pendingVoids: readonly TradeVoidRequest[];
  onRefresh: () => void;
  onVoid: (trade: AdminTrade) => void;
}) {
  const { t } = useTranslation();
  const { t: tp } = useTranslation('platform');
  const isPhone = useIsPhone();
  const [audited, setAudited] = useState<AdminTrade | null>(null);
  const pendingOf = (trade: AdminTrade) => pendingVoids.find((request) => request.trade_id === trade.id);
  const rowProps = (trade: AdminTrade) => auditRowProps(() => setAudited(trade), tp('audit.open', { id: trade.id }));
  return (
    <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} data-testid="active-trades">
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={4} data-testid="active-trades-title">
          {t('tradingAccounts.active.title', { count: trades.length })}
        </Title>
        <Tooltip label={t('tradingAccounts.active.refresh')}>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('tradingAccounts.active.refresh')}
            loading={refreshing}
            onClick={onRefresh}
            data-testid="active-trades-refresh"
          >
            <IconRefresh size={18} />
          </ActionIcon>
        </Tooltip>
      </Group>
      {trades.length === 0 ? (
        <Text ta="center" c="dimmed" py="sm" data-testid="active-trades-empty">
          {t('tradingAccounts.active.empty')}
        </Text>
      ) : isPhone ? (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {trades.map((trade) => (
            <Paper
              component="li"
              key={trade.id}
              withBorder
              radius="md"
              p="sm"
              data-testid="active-trade"
              data-trade-id={trade.id}
              {...rowProps(trade)}
            >
              <Group justify="space-between" wrap="nowrap" mb="xs">
                <Group gap="xs" wrap="nowrap">
                  <Text fw={600}>{trade.asset}</Text>
                  <Text size="xs" c="dimmed" ff="monospace">
                    #{trade.id}
                  </Text>
                </Group>
                <TradeDirection direction={trade.direction} />
              </Group>
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} mb="sm">
                <Field label={t('tradingAccounts.active.columns.amount')}>{formatMoney(trade.amount)}</Field>
                <Field label={t('tradingAccounts.active.columns.remaining')}>
                  <RemainingTime expiresAt={trade.expires_at} now={now} />
                </Field>
                <Field label={t('tradingAccounts.active.columns.strike')}>
                  <Text span size="sm" ff="monospace">
                    {formatPrice(trade.strike_price, trade.asset)}
                  </Text>
                </Field>
                <Field label={t('tradingAccounts.active.columns.current')}>
                  <CurrentPrice trade={trade} prices={prices} />
                </Field>
                <Field label={t('tradingAccounts.active.columns.potential')}>
                  <Potential trade={trade} />
                </Field>
              </SimpleGrid>
              <VoidButton
                trade={trade}
                pending={pendingOf(trade)}
                disabled={voidingId === trade.id}
                onVoid={onVoid}
                fullWidth
              />
            </Paper>
          ))}
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table verticalSpacing="sm" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('tradingAccounts.active.columns.asset')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.direction')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.amount')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.strike')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.current')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.remaining')}</Table.Th>
                <Table.Th>{t('tradingAccounts.active.columns.potential')}</Table.Th>
                <Table.Th ta="right">{t('tradingAccounts.active.columns.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {trades.map((trade) => (
                <Table.Tr key={trade.id} data-testid="active-trade" data-trade-id={trade.id} {...rowProps(trade)}>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {trade.asset}
                    </Text>
                    <Text size="xs" c="dimmed" ff="monospace">
                      #{trade.id}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <TradeDirection direction={trade.direction} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatMoney(trade.amount)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {formatPrice(trade.strike_price, trade.asset)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <CurrentPrice trade={trade} prices={prices} />
                  </Table.Td>
                  <Table.Td>
                    <RemainingTime expiresAt={trade.expires_at} now={now} />
                  </Table.Td>
                  <Table.Td>
                    <Potential trade={trade} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <VoidButton
                      trade={trade}
                      pending={pendingOf(trade)}
                      disabled={voidingId === trade.id}
                      onVoid={onVoid}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {trades.length > 0 ? (
        <Text size="xs" c="dimmed" mt="xs">
          {t('tradingAccounts.active.pricesNote')} {tp('audit.hint')}
        </Text>
      ) : null}
      <StaffTradeAudit trade={audited} onClose={() => setAudited(null)} />
    </Paper>
  );
}
