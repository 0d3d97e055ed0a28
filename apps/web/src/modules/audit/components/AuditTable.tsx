import { ROLES, type AuditEntry } from '@brokerage/shared';
import { ActionIcon, Group, Text, Tooltip } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { TruncatedText } from '../../ui/TruncatedText';
import { formatDateTime } from '../../../lib/format';
import { roleLabelKey } from '../../ui/role-label';
import { auditActionLabel } from '../action-label';

/** The command line and a sign-in attempt under an unknown e-mail act as 'system', which has no role label. */
const isUserRole = (role: string) => (ROLES as readonly string[]).includes(role);

export function AuditTable({
  items,
  loading,
  timeZone,
  onShow,
}: {
  items: AuditEntry[];
  loading: boolean;
  /** The business time zone (decisions.md D10) the times are shown in. */
  timeZone: string;
  onShow: (entry: AuditEntry) => void;
}) {
  const { t } = useTranslation();
  const columns: DataColumn<AuditEntry>[] = [
    {
      key: 'time',
      header: t('audit.columns.time'),
      cell: (entry) => (
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(entry.at, timeZone, { seconds: true })}
        </Text>
      ),
    },
    {
      key: 'actor',
      header: t('audit.columns.actor'),
      cell: (entry) => (
        <>
          <TruncatedText value={entry.actor_name ?? t('audit.system')} data-testid="audit-actor" />
          {entry.actor_role && isUserRole(entry.actor_role) ? (
            <Text size="xs" c="dimmed">
              {t(roleLabelKey(entry.actor_role))}
            </Text>
          ) : null}
        </>
      ),
    },
    {
      key: 'action',
      header: t('audit.columns.action'),
      cell: (entry) => <Text size="sm">{auditActionLabel(entry.action, t)}</Text>,
    },
    {
      key: 'record',
      header: t('audit.columns.record'),
      cell: (entry) => (
        <TruncatedText
          ff="monospace"
          value={
            entry.entity_type
              ? `${entry.entity_type}${entry.entity_id ? ` #${entry.entity_id}` : ''}`
              : t('common.dash')
          }
        />
      ),
    },
    {
      key: 'ip',
      header: t('audit.columns.ip'),
      cell: (entry) => <TruncatedText ff="monospace" value={entry.ip ?? t('common.dash')} />,
    },
    {
      key: 'details',
      header: t('audit.columns.details'),
      align: 'right',
      card: 'actions',
      cell: (entry) => (
        <Group justify="flex-end">
          <Tooltip label={t('audit.showDetails')}>
            <ActionIcon
              variant="subtle"
              aria-label={t('audit.showDetails')}
              onClick={() => onShow(entry)}
              data-testid="audit-show"
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
      rowKey={(entry) => entry.id}
      rowProps={(entry) => ({ 'data-testid': 'audit-row', 'data-action': entry.action })}
      minWidth={860}
      verticalSpacing="xs"
      testId="audit-table"
      loading={loading && items.length === 0}
      loadingText={t('audit.loading')}
      empty={items.length === 0}
      emptyText={t('audit.empty')}
    />
  );
}
