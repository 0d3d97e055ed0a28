import { Alert, Group, Loader, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { TablePager } from '../../ui/TablePager';
import { useAccountLedger } from '../api/trading-admin';
import { TruncatedCell } from '../../ui/TruncatedText';
import { SignedMoney } from './SignedMoney';

const DEFAULT_PER_PAGE = 25;

/**
 * 'Движения по счету' (D3): the account's ledger, newest first, paged by the server: kind, amount (+/−), the balance
 * after it, the reason, who made it and when.
 */
export function LedgerTable({ accountId, timeZone }: { accountId: number; timeZone: string }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(DEFAULT_PER_PAGE);
  const ledger = useAccountLedger(accountId, page, perPage, true);
  const items = ledger.data?.items ?? [];
  return (
    <>
      {ledger.isError ? (
        <Alert color="red" mb="sm">
          {errorText(ledger.error, t('tradingAccounts.ledger.error'))}
        </Alert>
      ) : null}
      {ledger.isPending ? (
        <Group justify="center" gap="sm" py="sm" role="status">
          <Loader size="sm" />
          <Text>{t('tradingAccounts.ledger.loading')}</Text>
        </Group>
      ) : null}
      {!ledger.isPending && items.length === 0 ? (
        <Text ta="center" c="dimmed" py="sm" data-testid="ledger-empty">
          {t('tradingAccounts.ledger.empty')}
        </Text>
      ) : null}
      <div
        style={{
          display: items.length === 0 ? 'none' : undefined,
          opacity: ledger.isPlaceholderData ? 0.6 : 1,
          transition: 'opacity 150ms',
        }}
      >
        <Table.ScrollContainer minWidth={860}>
          <Table striped verticalSpacing="xs" style={{ whiteSpace: 'nowrap' }} data-testid="ledger-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('tradingAccounts.ledger.columns.date')}</Table.Th>
                <Table.Th>{t('tradingAccounts.ledger.columns.kind')}</Table.Th>
                <Table.Th ta="right">{t('tradingAccounts.ledger.columns.amount')}</Table.Th>
                <Table.Th ta="right">{t('tradingAccounts.ledger.columns.balanceAfter')}</Table.Th>
                <Table.Th>{t('tradingAccounts.ledger.columns.reason')}</Table.Th>
                <Table.Th>{t('tradingAccounts.ledger.columns.actor')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((entry) => (
                <Table.Tr key={entry.id} data-testid="ledger-row" data-kind={entry.kind}>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                      {formatDateTime(entry.created_at, timeZone, { seconds: true })}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{t(`tradingAccounts.ledger.kinds.${entry.kind}`)}</Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    <SignedMoney amount={entry.amount} size="sm" data-testid="ledger-amount" />
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm" data-testid="ledger-balance-after">
                      {formatMoney(entry.balance_after)}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'normal', minWidth: 220 }}>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="ledger-reason">
                      {entry.reason || t('common.dash')}
                    </Text>
                  </Table.Td>
                  <TruncatedCell
                    value={entry.actor_name || (entry.actor_id ? t('common.dash') : t('tradingAccounts.ledger.system'))}
                  />
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </div>
      <TablePager
        page={page}
        perPage={perPage}
        total={ledger.data?.total ?? 0}
        onPageChange={setPage}
        onPerPageChange={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
    </>
  );
}
