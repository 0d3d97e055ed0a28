import { STAFF_ROLES, can, isStaffRole, type Role, type StaffMember, type StaffRole } from '@brokerage/shared';
import { Alert, Button, Group, Paper, Select, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconPlus, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AccessDenied } from '../../ui/AccessDenied';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { PageHeader } from '../../ui/PageHeader';
import { roleLabelKey } from '../../ui/role-label';
import { TablePager } from '../../ui/TablePager';
import { useDeleteStaff, useResendInvitation, useRevokeInvitation, useUsersList } from '../api/staff';
import { AddStaffModal } from './AddStaffModal';
import { ChangePasswordModal } from './ChangePasswordModal';
import { EditStaffModal } from './EditStaffModal';
import { StaffSummary } from './StaffSummary';
import { StaffTable, type StaffAction } from './StaffTable';

const SEARCH_DEBOUNCE_MS = 350;
const DEFAULT_PER_PAGE = 25;

interface Dialog {
  action: StaffAction;
  member: StaffMember;
  open: boolean;
}

/** §2.12 Staff management: summary, search and role filter, the paged table and its modals. */
export function StaffManagement() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  if (!can(user.role, 'staff.manage')) return <AccessDenied reason={t('staff.onlyAdmin')} />;
  return <StaffManagementScreen viewer={user} />;
}

function StaffManagementScreen({ viewer }: { viewer: { id: string; role: Role; business_timezone: string } }) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const [role, setRole] = useState<StaffRole | null>(null);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(DEFAULT_PER_PAGE);
  const [addOpened, setAddOpened] = useState(false);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const users = useUsersList({ page, perPage, search: debouncedSearch, role });
  const deletion = useDeleteStaff();
  const resend = useResendInvitation();
  const revoke = useRevokeInvitation();

  const openDialog = (action: StaffAction, member: StaffMember) => {
    if (action === 'resend') return resendInvitation(member);
    setDialog({ action, member, open: true });
  };
  const closeDialog = () => setDialog((current) => (current ? { ...current, open: false } : null));
  const clearDialog = () => setDialog(null);
  const dialogFor = (action: StaffAction) => (dialog?.action === action ? dialog : null);

  const confirmDelete = (member: StaffMember) => {
    const name = member.full_name || member.name;
    deletion.mutate(member.id, {
      onSuccess: () => notifications.show({ color: 'green', message: t('staff.deleteModal.success', { name }) }),
      onError: (error) => notifications.show({ color: 'red', message: errorText(error, t('staff.deleteModal.error')) }),
      // §8: the modal closes whatever the answer.
      onSettled: closeDialog,
    });
  };

  // Issue 22 §4: a new invitation link at once (nothing is lost); revoking asks first (the member is removed).
  const resendInvitation = (member: StaffMember) =>
    resend.mutate(member.id, {
      onSuccess: () =>
        notifications.show({ color: 'green', message: t('emailFlows.staff.resent', { email: member.email }) }),
      onError: (error) =>
        notifications.show({ color: 'red', message: errorText(error, t('emailFlows.staff.resendFailed')) }),
    });
  const confirmRevoke = (member: StaffMember) => {
    const name = member.full_name || member.name;
    revoke.mutate(member.id, {
      onSuccess: () => notifications.show({ color: 'green', message: t('emailFlows.staff.revoked', { name }) }),
      onError: (error) =>
        notifications.show({ color: 'red', message: errorText(error, t('emailFlows.staff.revokeFailed')) }),
      onSettled: closeDialog,
    });
  };

  const deleting = dialogFor('delete');
  const revoking = dialogFor('revoke');
  return (
    <>
      <PageHeader
        title={t('staff.title')}
        subtitle={t('staff.subtitle')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAddOpened(true)} data-testid="staff-add">
            {t('staff.add')}
          </Button>
        }
      />
      <StaffSummary summary={users.data?.summary} />
      {/* Issue 20 finding 4: with fewer than two finance approvers, a payout or a credit above the threshold, or one
          the only approver worked on, has nobody to finish it. The superadmin is who can add one. */}
      {viewer.role === 'superadmin' && users.data && users.data.summary.finance_approvers < 2 ? (
        <Alert
          color="orange"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={t('staff.approversWarning.title')}
          mb="md"
          data-testid="staff-approvers-warning"
        >
          {t('staff.approversWarning.text', { count: users.data.summary.finance_approvers })}
        </Alert>
      ) : null}

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Group mb="md" gap="sm" wrap="wrap" align="flex-end">
          <TextInput
            aria-label={t('common.search')}
            placeholder={t('staff.searchPlaceholder')}
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(event) => {
              setSearch(event.currentTarget.value);
              setPage(1);
            }}
            style={{ flex: '1 1 240px' }}
            data-testid="staff-search"
          />
          <Select
            aria-label={t('staff.roleFilter')}
            placeholder={t('staff.allRoles')}
            data={STAFF_ROLES.map((value) => ({ value, label: t(roleLabelKey(value)) }))}
            value={role}
            onChange={(value) => {
              setRole(value && isStaffRole(value) ? value : null);
              setPage(1);
            }}
            clearable
            w={{ base: '100%', xs: 220 }}
            data-testid="staff-role-filter"
          />
        </Group>

        {users.isError ? (
          <Alert color="red" mb="md">
            {errorText(users.error, t('staff.listError'))}
          </Alert>
        ) : null}

        <StaffTable
          items={users.data?.items ?? []}
          loading={users.isPending}
          viewer={viewer}
          timeZone={viewer.business_timezone}
          onAction={openDialog}
        />
        <TablePager
          page={page}
          perPage={perPage}
          total={users.data?.total ?? 0}
          onPageChange={setPage}
          onPerPageChange={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
        <Text size="xs" c="dimmed" mt="xs" data-testid="staff-time-zone">
          {t('staff.timeZone', { zone: viewer.business_timezone })}
        </Text>
      </Paper>

      <AddStaffModal opened={addOpened} viewerRole={viewer.role} onClose={() => setAddOpened(false)} />
      <EditStaffModal
        member={dialogFor('edit')?.member ?? null}
        opened={dialogFor('edit')?.open ?? false}
        viewerRole={viewer.role}
        onClose={closeDialog}
        onExited={clearDialog}
      />
      <ChangePasswordModal
        member={dialogFor('password')?.member ?? null}
        opened={dialogFor('password')?.open ?? false}
        onClose={closeDialog}
        onExited={clearDialog}
      />
      <ConfirmModal
        opened={deleting?.open ?? false}
        title={t('staff.deleteModal.title')}
        text={deleting ? t('staff.deleteModal.text', { name: deleting.member.full_name || deleting.member.name }) : ''}
        confirmLabel={t('staff.deleteModal.submit')}
        loading={deletion.isPending}
        onConfirm={() => deleting && confirmDelete(deleting.member)}
        onClose={closeDialog}
        onExited={clearDialog}
      />
      <ConfirmModal
        opened={revoking?.open ?? false}
        title={t('emailFlows.staff.revokeTitle')}
        text={
          revoking ? t('emailFlows.staff.revokeText', { name: revoking.member.full_name || revoking.member.name }) : ''
        }
        confirmLabel={t('emailFlows.staff.revoke')}
        loading={revoke.isPending}
        onConfirm={() => revoking && confirmRevoke(revoking.member)}
        onClose={closeDialog}
        onExited={clearDialog}
        testId="staff-revoke-modal"
        confirmTestId="staff-revoke-confirm"
      />
    </>
  );
}
