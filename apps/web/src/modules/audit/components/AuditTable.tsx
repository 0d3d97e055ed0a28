import { ROLES, type AuditEntry } from '@brokerage/shared';
import { ActionIcon, Group, Table, Text, Tooltip } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { TableStateRows } from '../../ui/TableStateRows';
import { TruncatedText } from '../../ui/TruncatedText';
import { formatDateTime } from '../../../lib/format';
import { roleLabelKey } from '../../ui/role-label';
import { auditActionLabel } from '../action-label';

const COLUMNS = 6;

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
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped highlightOnHover verticalSpacing="xs" data-testid="audit-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('audit.columns.time')}</Table.Th>
            <Table.Th>{t('audit.columns.actor')}</Table.Th>
            <Table.Th>{t('audit.columns.action')}</Table.Th>
            <Table.Th>{t('audit.columns.record')}</Table.Th>
            <Table.Th>{t('audit.columns.ip')}</Table.Th>
            <Table.Th ta="right">{t('audit.columns.details')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <TableStateRows
            loading={loading && items.length === 0}
            empty={items.length === 0}
            colSpan={COLUMNS}
            loadingText={t('audit.loading')}
            emptyText={t('audit.empty')}
          />
          {items.map((entry) => (
            <Table.Tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
              <Table.Td>
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  {formatDateTime(entry.at, timeZone, { seconds: true })}
                </Text>
              </Table.Td>
              <Table.Td>
                <TruncatedText value={entry.actor_name ?? t('audit.system')} data-testid="audit-actor" />
                {entry.actor_role && isUserRole(entry.actor_role) ? (
                  <Text size="xs" c="dimmed">
                    {t(roleLabelKey(entry.actor_role))}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{auditActionLabel(entry.action, t)}</Text>
              </Table.Td>
              <Table.Td>
                <TruncatedText
                  ff="monospace"
                  value={
                    entry.entity_type
                      ? `${entry.entity_type}${entry.entity_id ? ` #${entry.entity_id}` : ''}`
                      : t('common.dash')
                  }
                />
              </Table.Td>
              <Table.Td>
                <TruncatedText ff="monospace" value={entry.ip ?? t('common.dash')} />
              </Table.Td>
              <Table.Td>
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
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
