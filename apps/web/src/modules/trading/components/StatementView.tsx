import { LEDGER_KINDS, type LedgerKind, type StatementEntry, type StatementFormat } from '@brokerage/shared';
import {
  Alert,
  Badge,
  Button,
  Group,
  MultiSelect,
  Pagination,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { usd } from '../rules';
import { downloadPeriodProofs, downloadStatement, useStatement, type StatementFilter } from '../statement-api';

const PER_PAGE = 20;
const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

function Amount({ value }: { value: number }) {
  return (
    <Text span fw={600} c={value >= 0 ? 'teal' : 'red'} style={{ whiteSpace: 'nowrap' }} data-testid="statement-amount">
      {`${value >= 0 ? '+' : '−'}${usd(value)}`}
    </Text>
  );
}

/** What the entry belongs to: its trade or withdrawal request, or the staff reason of an adjustment. */
function Belongs({ entry }: { entry: StatementEntry }) {
  const { t } = useTranslation('platform');
  return (
    <Stack gap={2}>
      {entry.trade_id !== null && (
        <Badge variant="light" size="sm" data-testid="statement-trade">
          {t('statement.trade', { id: entry.trade_id })}
        </Badge>
      )}
      {entry.withdraw_request_id !== null && (
        <Badge variant="light" color="grape" size="sm" data-testid="statement-withdrawal">
          {t('statement.withdrawal', { id: entry.withdraw_request_id })}
        </Badge>
      )}
      {entry.reason && (
        <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
          {entry.reason}
        </Text>
      )}
    </Stack>
  );
}

/**
 * 'История операций' (issue 14): every ledger entry of the client's account, oldest first, by period and kind, paged
 * on the server; each with its time, kind, signed amount, the balance after it and the trade or request it belongs to;
 * the opening and closing figures of the page shown; the period downloadable as CSV or XLSX, and the price proofs of
 * its settled trades as one file (issue 30).
 */
export function StatementView({ onBack, accountNumber }: { onBack: () => void; accountNumber: string | null }) {
  const { t } = useTranslation('platform');
  const [filter, setFilter] = useState<StatementFilter>({ from: '', to: '', kinds: [] });
  const [page, setPage] = useState(1);
  const [downloading, setDownloading] = useState<StatementFormat | 'proofs' | null>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const statement = useStatement(filter, page, PER_PAGE);
  const data = statement.data;
  const pages = Math.max(1, Math.ceil((data?.total ?? 0) / PER_PAGE));
  const filtered = filter.kinds.length > 0;
  const change = (next: Partial<StatementFilter>) => {
    setFilter((f) => ({ ...f, ...next }));
    setPage(1);
  };
  const download = async (format: StatementFormat) => {
    setDownloading(format);
    setDownloadError(null);
    const failure = await downloadStatement(filter, format);
    setDownloading(null);
    if (failure !== null) setDownloadError(failure || t('statement.downloadFailed'));
  };
  const downloadProofs = async () => {
    setDownloading('proofs');
    setDownloadError(null);
    const failure = await downloadPeriodProofs(filter);
    setDownloading(null);
    if (failure !== null) setDownloadError(failure || t('statement.proofsFailed'));
  };
  // The proofs call takes a closed period (the server refuses one of more than 1,000 trades with its reason).
  const proofsPeriod = filter.from !== '' && filter.to !== '';
  const kindLabel = (kind: LedgerKind) => t(`statement.kinds.${kind}`);

  return (
    <Stack data-testid="statement-view">
      <Group justify="space-between" wrap="wrap">
        <div>
          <Title order={3}>{t('statement.title')}</Title>
          {accountNumber ? (
            <Text size="sm" c="dimmed" data-testid="statement-account">
              {t('statement.account', { number: accountNumber })}
            </Text>
          ) : null}
        </div>
        <Button variant="default" onClick={onBack}>
          {t('history.back')}
        </Button>
      </Group>
      <Paper withBorder p="sm" radius="md">
        <Group align="flex-end" wrap="wrap" gap="sm">
          <TextInput
            type="date"
            label={t('statement.from')}
            value={filter.from}
            max={filter.to || undefined}
            onChange={(e) => change({ from: e.currentTarget.value })}
            data-testid="statement-from"
            w={160}
          />
          <TextInput
            type="date"
            label={t('statement.to')}
            value={filter.to}
            min={filter.from || undefined}
            onChange={(e) => change({ to: e.currentTarget.value })}
            data-testid="statement-to"
            w={160}
          />
          <MultiSelect
            label={t('statement.kind')}
            placeholder={filtered ? undefined : t('statement.allKinds')}
            data={LEDGER_KINDS.map((k) => ({ value: k, label: kindLabel(k) }))}
            value={filter.kinds}
            onChange={(v) => change({ kinds: v as LedgerKind[] })}
            clearable
            miw={220}
            style={{ flex: 1 }}
            data-testid="statement-kind"
            comboboxProps={{ withinPortal: true }}
          />
          <Group gap="xs">
            {(['csv', 'xlsx'] as const).map((format) => (
              <Button
                key={format}
                variant="light"
                leftSection={<IconDownload size={14} />}
                loading={downloading === format}
                onClick={() => void download(format)}
                data-testid={`statement-download-${format}`}
              >
                {format.toUpperCase()}
              </Button>
            ))}
            <Button
              variant="light"
              leftSection={<IconDownload size={14} />}
              loading={downloading === 'proofs'}
              disabled={!proofsPeriod}
              onClick={() => void downloadProofs()}
              aria-describedby={proofsPeriod ? undefined : 'statement-proofs-period'}
              data-testid="statement-download-proofs"
            >
              {t('statement.downloadProofs')}
            </Button>
          </Group>
        </Group>
        <Text size="xs" c="dimmed" mt={6}>
          {t('statement.periodHint')}
          {proofsPeriod ? null : (
            <>
              {' '}
              <span id="statement-proofs-period">{t('statement.proofsPeriod')}</span>
            </>
          )}
        </Text>
      </Paper>
      {downloadError && (
        <Alert
          color="red"
          withCloseButton
          onClose={() => setDownloadError(null)}
          data-testid="statement-download-error"
        >
          {downloadError}
        </Alert>
      )}
      {statement.isError && !data ? (
        <Alert color="red" data-testid="statement-error">
          <Group justify="space-between">
            <Text size="sm">{t('statement.error')}</Text>
            <Button size="xs" variant="light" onClick={() => void statement.refetch()}>
              {t('common.retry')}
            </Button>
          </Group>
        </Alert>
      ) : !data ? (
        <Stack gap="xs" data-testid="statement-loading">
          {Array.from({ length: 5 }, (_, i) => (
            <Skeleton key={i} h={36} />
          ))}
        </Stack>
      ) : (
        <>
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm">
              {t(filtered ? 'statement.openingFiltered' : 'statement.opening')}:{' '}
              <Text span fw={700} data-testid="statement-opening">
                {`${data.opening_balance < 0 ? '−' : ''}${usd(data.opening_balance)}`}
              </Text>
            </Text>
            <Text size="sm">
              {t(filtered ? 'statement.closingFiltered' : 'statement.closing')}:{' '}
              <Text span fw={700} data-testid="statement-closing">
                {`${data.closing_balance < 0 ? '−' : ''}${usd(data.closing_balance)}`}
              </Text>
            </Text>
          </Group>
          {data.entries.length === 0 ? (
            <Paper withBorder p="lg" ta="center" data-testid="statement-empty">
              <Text c="dimmed">{t('statement.empty')}</Text>
            </Paper>
          ) : (
            <>
              <Table.ScrollContainer minWidth={560} visibleFrom="sm">
                <Table striped highlightOnHover verticalSpacing={6} data-testid="statement-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('statement.time')}</Table.Th>
                      <Table.Th>{t('statement.kind')}</Table.Th>
                      <Table.Th ta="right">{t('statement.amount')}</Table.Th>
                      <Table.Th ta="right">{t('statement.balanceAfter')}</Table.Th>
                      <Table.Th>{t('statement.belongs')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.entries.map((e) => (
                      <Table.Tr key={e.id} data-testid="statement-row" data-kind={e.kind}>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>
                          {formatDateTime(e.at, LOCAL_ZONE, { seconds: true })}
                        </Table.Td>
                        <Table.Td>{kindLabel(e.kind)}</Table.Td>
                        <Table.Td ta="right">
                          <Amount value={e.amount} />
                        </Table.Td>
                        <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                          {usd(e.balance_after)}
                        </Table.Td>
                        <Table.Td>
                          <Belongs entry={e} />
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <Stack gap="xs" hiddenFrom="sm" data-testid="statement-cards">
                {data.entries.map((e) => (
                  <Paper key={e.id} withBorder p="xs" radius="md" data-testid="statement-card">
                    <Group justify="space-between" wrap="nowrap" align="flex-start">
                      <div>
                        <Text size="sm" fw={600}>
                          {kindLabel(e.kind)}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {formatDateTime(e.at, LOCAL_ZONE, { seconds: true })}
                        </Text>
                      </div>
                      <Stack gap={0} align="flex-end">
                        <Amount value={e.amount} />
                        <Text size="xs" c="dimmed">
                          {t('statement.balanceShort', { balance: usd(e.balance_after) })}
                        </Text>
                      </Stack>
                    </Group>
                    <Group mt={4}>
                      <Belongs entry={e} />
                    </Group>
                  </Paper>
                ))}
              </Stack>
            </>
          )}
          {data.total > 0 && (
            <Group justify="space-between" wrap="wrap">
              <Text size="sm" c="dimmed" data-testid="statement-pages">
                {t('statement.pageOf', { page, pages, total: data.total })}
              </Text>
              <Pagination
                total={pages}
                value={page}
                onChange={setPage}
                withEdges={false}
                size="sm"
                getControlProps={(control) => ({
                  'aria-label': t(control === 'previous' ? 'history.prev' : 'history.next'),
                })}
              />
            </Group>
          )}
        </>
      )}
    </Stack>
  );
}
