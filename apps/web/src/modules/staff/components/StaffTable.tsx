import { MANAGER_ROLES, type Role, type StaffMember } from '@brokerage/shared';
import { ActionIcon, Badge, Group, Text, Tooltip } from '@mantine/core';
import { IconKey, IconMailForward, IconMailOff, IconPencil, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { TruncatedText } from '../../ui/TruncatedText';
import { formatDate, formatDateTime } from '../../../lib/format';
import { RoleBadge } from '../../ui/RoleBadge';

export type StaffAction = 'edit' | 'password' | 'delete' | 'resend' | 'revoke';

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

/** Issue 22 §4: 'приглашён' and until when the invitation's link works (or that it has run out). */
function InvitedMark({ member, timeZone }: { member: StaffMember; timeZone: string }) {
  const { t } = useTranslation();
  // The server gives the newest live link's end; null for an invited member means every link has run out.
  const expires = member.invitation_expires_at;
  return (
    <Group gap={6} mt={2} wrap="wrap" data-testid="staff-invited">
      <Badge size="sm" variant="light" color="grape">
        {t('emailFlows.staff.invited')}
      </Badge>
      <Text size="xs" c={expires ? 'dimmed' : 'red'}>
        {expires
          ? t('emailFlows.staff.invitedUntil', { date: formatDateTime(expires, timeZone) })
          : t('emailFlows.staff.invitationExpired')}
      </Text>
    </Group>
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
  const columns: DataColumn<StaffMember>[] = [
    {
      key: 'staff',
      header: t('staff.columns.staff'),
      cell: (member) => (
        <>
          <Group gap={4} wrap="nowrap" align="baseline">
            <TruncatedText value={member.full_name || member.name} fw={500} data-testid="staff-name" />
            {member.id === viewer.id ? (
              <Text span c="dimmed" size="xs" style={{ whiteSpace: 'nowrap' }}>
                ({t('staff.you')})
              </Text>
            ) : null}
          </Group>
          <Text size="xs" c="dimmed" ff="monospace">
            {t('staff.id', { id: member.id.slice(0, 8) })}
          </Text>
          {member.invited ? <InvitedMark member={member} timeZone={timeZone} /> : null}
        </>
      ),
    },
    { key: 'email', header: t('staff.columns.email'), cell: (member) => <TruncatedText value={member.email} /> },
    { key: 'role', header: t('staff.columns.role'), cell: (member) => <RoleBadge role={member.role} /> },
    {
      key: 'createdAt',
      header: t('staff.columns.createdAt'),
      cell: (member) => <Text size="sm">{formatDate(member.created_at, timeZone)}</Text>,
    },
    {
      key: 'statistics',
      header: t('staff.columns.statistics'),
      cell: (member) => (
        <Text size="sm">
          {MANAGER_ROLES.includes(member.role)
            ? t('staff.stats', { clients: member.clients_count, active: member.active_clients_count })
            : t('common.dash')}
        </Text>
      ),
    },
    {
      key: 'actions',
      header: t('staff.columns.actions'),
      align: 'right',
      card: 'actions',
      cell: (member) => (
        <Group gap={4} justify="flex-end" wrap="nowrap">
          <RowAction label={t('staff.edit')} onClick={() => onAction('edit', member)} testId="staff-edit">
            <IconPencil size={18} />
          </RowAction>
          {member.invited ? (
            <>
              <RowAction
                label={t('emailFlows.staff.resend')}
                color="blue"
                onClick={() => onAction('resend', member)}
                testId="staff-invite-resend"
              >
                <IconMailForward size={18} />
              </RowAction>
              <RowAction
                label={t('emailFlows.staff.revoke')}
                color="red"
                onClick={() => onAction('revoke', member)}
                testId="staff-invite-revoke"
              >
                <IconMailOff size={18} />
              </RowAction>
            </>
          ) : null}
          {/* An invited member has no password yet (the invitation sets it) and is removed by revoking it. */}
          {viewer.role === 'superadmin' && !member.invited ? (
            <RowAction
              label={t('staff.changePassword')}
              color="orange"
              onClick={() => onAction('password', member)}
              testId="staff-password"
            >
              <IconKey size={18} />
            </RowAction>
          ) : null}
          {member.role !== 'superadmin' && member.id !== viewer.id && !member.invited ? (
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
      ),
    },
  ];
  return (
    <DataTable
      items={items}
      columns={columns}
      rowKey={(member) => member.id}
      rowProps={(member) => ({ 'data-testid': 'staff-row', 'data-email': member.email })}
      minWidth={820}
      testId="staff-table"
      loading={loading && items.length === 0}
      loadingText={t('staff.loading')}
      empty={items.length === 0}
      emptyText={t('staff.empty')}
    />
  );
}
