import type { MailOutboxItem, MailStatus } from '@brokerage/shared';
import { ActionIcon, Badge, Group, Text, Tooltip } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { DataTable, type DataColumn, type DataTableError } from '../../ui/DataTable';
import { TruncatedText } from '../../ui/TruncatedText';

const STATUS_COLOR: Record<MailStatus, string> = { kept: 'gray', pending: 'yellow', sent: 'green', failed: 'red' };

export function OutboxStatusBadge({ status }: { status: MailStatus }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" data-testid="outbox-status" data-status={status}>
      {t(`outbox.status.${status}`)}
    </Badge>
  );
}

export function OutboxTable({
  items,
  loading,
  error,
  timeZone,
  onShow,
}: {
  items: MailOutboxItem[];
  loading: boolean;
  error: DataTableError | null;
  timeZone: string;
  onShow: (item: MailOutboxItem) => void;
}) {
  const { t } = useTranslation();
  const columns: DataColumn<MailOutboxItem>[] = [
    {
      key: 'created',
      header: t('outbox.columns.created'),
      cell: (item) => (
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(item.created_at, timeZone)}
        </Text>
      ),
    },
    {
      key: 'to',
      header: t('outbox.columns.to'),
      card: 'title',
      cell: (item) => <TruncatedText value={item.to} data-testid="outbox-to" />,
    },
    {
      key: 'subject',
      header: t('outbox.columns.subject'),
      card: 'wide',
      cell: (item) => <TruncatedText value={item.subject} data-testid="outbox-subject" />,
    },
    {
      key: 'status',
      header: t('outbox.columns.status'),
      card: 'aside',
      cell: (item) => (
        <Tooltip label={item.last_error ?? ''} disabled={!item.last_error} multiline maw={360}>
          <span>
            <OutboxStatusBadge status={item.status} />
          </span>
        </Tooltip>
      ),
    },
    {
      key: 'attempts',
      header: t('outbox.columns.attempts'),
      align: 'right',
      cell: (item) => <Text size="sm">{item.attempts}</Text>,
    },
    {
      key: 'show',
      header: t('outbox.columns.open'),
      align: 'right',
      card: 'actions',
      cell: (item) => (
        <Group justify="flex-end">
          <Tooltip label={t('outbox.open')}>
            <ActionIcon
              variant="subtle"
              aria-label={t('outbox.openMessage', { subject: item.subject })}
              onClick={() => onShow(item)}
              data-testid="outbox-open"
            >
              <IconEye size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <DataTable
      items={items}
      columns={columns}
      rowKey={(item) => item.id}
      rowProps={(item) => ({ 'data-testid': 'outbox-row', 'data-template': item.template })}
      minWidth={860}
      verticalSpacing="xs"
      testId="outbox-table"
      loading={loading && items.length === 0}
      loadingText={t('outbox.loading')}
      empty={!loading && !error && items.length === 0}
      emptyText={t('outbox.empty')}
      emptyHint={t('outbox.emptyHint')}
      error={error}
      cards
    />
  );
}
