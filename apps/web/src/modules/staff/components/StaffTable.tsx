import { MANAGER_ROLES, type Role, type StaffMember } from '@brokerage/shared';
import { ActionIcon, Group, Table, Text, Tooltip } from '@mantine/core';
import { IconKey, IconPencil, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { TruncatedCell, TruncatedText } from '../../ui/TruncatedText';
import { TableStateRows } from '../../ui/TableStateRows';
import { formatDate } from '../../../lib/format';
import { RoleBadge } from '../../ui/RoleBadge';

export type StaffAction = 'edit' | 'password' | 'delete';

function RowAction({
  label,
  color,
  onClick,
  children,
  testId,
}: {
  label: string;
  color?: string;
  onClick: () => void;
  children: ReactNode;
  testId: string;
}) {
  return (
    <Tooltip label={label}>
      <ActionIcon variant="subtle" color={color} aria-label={label} onClick={onClick} data-testid={testId}>
        {children}
      </ActionIcon>
    </Tooltip>
  );
}

/** §2.12 table: Staff, Email, Role, Creation date, Statistics, Actions. */
export function StaffTable({
  items,
  loading,
  viewer,
  timeZone,
  onAction,
}: {
  items: StaffMember[];
  loading: boolean;
  viewer: { id: string; role: Role };
  /** The business time zone (decisions.md D10) the creation dates are shown in. */
  timeZone: string;
  onAction: (action: StaffAction, member: StaffMember) => void;
}) {
  const { t } = useTranslation();
  const columns = 6;
  return (
    <Table.ScrollContainer minWidth={820}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid="staff-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('staff.columns.staff')}</Table.Th>
            <Table.Th>{t('staff.columns.email')}</Table.Th>
            <Table.Th>{t('staff.columns.role')}</Table.Th>
            <Table.Th>{t('staff.columns.createdAt')}</Table.Th>
            <Table.Th>{t('staff.columns.statistics')}</Table.Th>
            <Table.Th ta="right">{t('staff.columns.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <TableStateRows
            loading={loading && items.length === 0}
            empty={items.length === 0}
            colSpan={columns}
            loadingText={t('staff.loading')}
            emptyText={t('staff.empty')}
          />
          {items.map((member) => {
            const isSelf = member.id === viewer.id;
            return (
              <Table.Tr key={member.id} data-testid="staff-row" data-email={member.email}>
                <Table.Td>
                  <Group gap={4} wrap="nowrap" align="baseline">
                    <TruncatedText value={member.full_name || member.name} fw={500} data-testid="staff-name" />
                    {isSelf ? (
                      <Text span c="dimmed" size="xs" style={{ whiteSpace: 'nowrap' }}>
                        ({t('staff.you')})
                      </Text>
                    ) : null}
                  </Group>
                  <Text size="xs" c="dimmed" ff="monospace">
                    {t('staff.id', { id: member.id.slice(0, 8) })}
                  </Text>
                </Table.Td>
                <TruncatedCell value={member.email} />
                <Table.Td>
                  <RoleBadge role={member.role} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatDate(member.created_at, timeZone)}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {MANAGER_ROLES.includes(member.role)
                      ? t('staff.stats', { clients: member.clients_count, active: member.active_clients_count })
                      : t('common.dash')}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    <RowAction label={t('staff.edit')} onClick={() => onAction('edit', member)} testId="staff-edit">
                      <IconPencil size={18} />
                    </RowAction>
                    {viewer.role === 'superadmin' ? (
                      <RowAction
                        label={t('staff.changePassword')}
                        color="orange"
                        onClick={() => onAction('password', member)}
                        testId="staff-password"
                      >
                        <IconKey size={18} />
                      </RowAction>
                    ) : null}
                    {member.role !== 'superadmin' && !isSelf ? (
                      <RowAction
                        label={t('staff.delete')}
                        color="red"
                        onClick={() => onAction('delete', member)}
                        testId="staff-delete"
                      >
                        <IconTrash size={18} />
                      </RowAction>
                    ) : null}
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
