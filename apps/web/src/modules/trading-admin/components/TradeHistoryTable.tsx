import type { AdminTrade } from '@brokerage/shared';
import { Badge, Table, Text, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/format';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { durationMinutes, formatPrice } from '../format';
import { SignedMoney } from './SignedMoney';
import { StaffTradeAudit, auditRowProps } from './StaffTradeAudit';
import { TradeDirection } from './TradeDirection';

const RESULT_COLORS = {
  active: 'blue',
  won: 'teal',
  lost: 'red',
  tie: 'gray',
  no_price: 'gray',
  voided: 'orange',
} as const;

/** §2.17 Результат: ВЫИГРАЛ / ПРОИГРАЛ / ВОЗВРАТ / АННУЛИРОВАНА (a voided trade: who asked, who confirmed, why). */
function ResultBadge({ trade }: { trade: AdminTrade }) {
  const { t } = useTranslation();
  const badge = (
    <Badge
      color={RESULT_COLORS[trade.status]}
      variant="light"
      styles={{ root: { overflow: 'visible' }, label: { overflow: 'visible' } }}
      data-testid="trade-result"
      data-status={trade.status}
    >
      {t(`tradingAccounts.results.${trade.status}`)}
    </Badge>
  );
  if (trade.status !== 'voided') return badge;
  const lines = [
    trade.voided_by_name ? t('tradingAccounts.history.voidedBy', { name: trade.voided_by_name }) : null,
    trade.void_confirmed_by_name
      ? t('tradingAccounts.history.voidConfirmedBy', { name: trade.void_confirmed_by_name })
      : null,
    trade.void_reason ? t('tradingAccounts.history.voidReason', { reason: trade.void_reason }) : null,
  ].filter(Boolean);
  if (lines.length === 0) return badge;
  return (
    <Tooltip label={lines.join('\n')} multiline maw={320} style={{ whiteSpace: 'pre-line' }}>
      {badge}
    </Tooltip>
  );
}

/**
 * §2.17 'История сделок', the first 50 rows: Дата (D19: in the business zone, named in the header; §2.17 said UTC), Актив, Направление, Сумма, Цена открытия, Цена закрытия,
 * Длительность (whole minutes), Результат, Прибыль/Убыток.
 */
export function TradeHistoryTable({ trades }: { trades: AdminTrade[] }) {
  const { t } = useTranslation();
  const { t: tp } = useTranslation('platform');
  const [audited, setAudited] = useState<AdminTrade | null>(null);
  const timeZone = useCurrentUser().business_timezone;
  const dash = t('common.dash');
  if (trades.length === 0) {
    return (
      <Text ta="center" c="dimmed" py="sm" data-testid="history-empty">
        {t('tradingAccounts.history.empty')}
      </Text>
    );
  }
  return (
    <>
      <Table.ScrollContainer minWidth={940}>
        <Table
          striped
          highlightOnHover
          verticalSpacing="xs"
          style={{ whiteSpace: 'nowrap' }}
          data-testid="trade-history"
        >
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('tradingAccounts.history.columns.date', { zone: timeZone })}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.asset')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.direction')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.amount')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.strike')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.close')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.duration')}</Table.Th>
              <Table.Th>{t('tradingAccounts.history.columns.result')}</Table.Th>
              <Table.Th ta="right">{t('tradingAccounts.history.columns.profit')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {trades.slice(0, 50).map((trade) => (
              <Table.Tr
                key={trade.id}
                data-testid="history-row"
                data-trade-id={trade.id}
                data-status={trade.status}
                {...auditRowProps(() => setAudited(trade), tp('audit.open', { id: trade.id }))}
              >
                <Table.Td>
                  <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                    {formatDateTime(trade.created_at, timeZone)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {trade.asset}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <TradeDirection direction={trade.direction} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatMoney(trade.amount)}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace" data-testid="trade-strike">
                    {formatPrice(trade.strike_price, trade.asset) ?? dash}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace" data-testid="trade-close">
                    {formatPrice(trade.close_price, trade.asset) ?? dash}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                    {t('tradingAccounts.history.minutes', { count: durationMinutes(trade.duration) })}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <ResultBadge trade={trade} />
                </Table.Td>
                <Table.Td ta="right">
                  <SignedMoney amount={trade.profit ?? 0} size="sm" data-testid="trade-profit" />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="xs" c="dimmed" mt="xs">
        {t('tradingAccounts.history.note')} {tp('audit.hint')}
      </Text>
      <StaffTradeAudit trade={audited} onClose={() => setAudited(null)} />
    </>
  );
}
