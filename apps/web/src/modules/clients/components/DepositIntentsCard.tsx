import { Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { ErrorBox } from '../../ui/ErrorBox';
import { TableStateRows } from '../../ui/TableStateRows';
import { useClientDepositIntents } from '../api/client-card';

/**
 * Decision D21: the top-ups the client confirmed on the trading screen (amount, method, when), newest first, so the
 * manager can follow up. They are intentions, not deposits: a deposit is still recorded in the card's deposits.
 */
export function DepositIntentsCard({ clientId, timeZone }: { clientId: number; timeZone: string }) {
  const { t } = useTranslation();
  const intents = useClientDepositIntents(clientId);
  const items = intents.data?.items ?? [];
  return (
    <Paper withBorder p="md" data-testid="deposit-intents-card">
      <Stack gap="sm">
        <div>
          <Title order={4}>{t('clients.depositIntents.title')}</Title>
          <Text size="sm" c="dimmed">
            {t('clients.depositIntents.hint')}
          </Text>
        </div>
        {intents.isError ? (
          <ErrorBox message={errorText(intents.error, t('clients.depositIntents.loadError'))} />
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('clients.depositIntents.date', { zone: timeZone })}</Table.Th>
                  <Table.Th>{t('clients.depositIntents.amount')}</Table.Th>
                  <Table.Th>{t('clients.depositIntents.method')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                <TableStateRows
                  colSpan={3}
                  loading={intents.isPending}
                  loadingText={t('common.loading')}
                  empty={!intents.isPending && items.length === 0}
                  emptyText={t('clients.depositIntents.empty')}
                  emptyTestId="deposit-intents-empty"
                />
                {items.map((i) => (
                  <Table.Tr key={i.id} data-testid="deposit-intent-row">
                    <Table.Td>{formatDateTime(i.created_at, timeZone)}</Table.Td>
                    <Table.Td>{formatMoney(i.amount)}</Table.Td>
                    <Table.Td>{i.method_title}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Paper>
  );
}
