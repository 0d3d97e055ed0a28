import {
  ASSIGNABLE_STAFF_ROLES,
  DEFAULT_STAFF_ROLE,
  updateUserRequestSchema,
  type Role,
  type StaffMember,
} from '@brokerage/shared';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useUpdateStaff } from '../api/staff';
import { assignableRolesFor } from '../role-options';
import { RoleSelect } from './RoleSelect';

interface EditStaffValues {
  name: string;
  email: string;
  role: string;
}

function initialValues(member: StaffMember): EditStaffValues {
  // §2.12: a role that cannot be given from this page (the legacy manager) resets to the default.
  const assignable = (ASSIGNABLE_STAFF_ROLES as readonly string[]).includes(member.role);
  return {
    name: member.full_name || member.name,
    email: member.email,
    role: assignable ? member.role : DEFAULT_STAFF_ROLE,
  };
}

function EditStaffForm({
  member,
  viewerRole,
  onClose,
}: {
  member: StaffMember;
  viewerRole: Role;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const update = useUpdateStaff();
  const form = useForm<EditStaffValues>({
    mode: 'controlled',
    initialValues: initialValues(member),
    validate: schemaValidator<EditStaffValues>(updateUserRequestSchema, t),
  });

  const submit = form.onSubmit((values) => {
    const body = updateUserRequestSchema.parse(values);
    update.mutate(
      { id: member.id, body },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('staff.editModal.success', { name: body.name }) });
          onClose();
        },
      },
    );
  });

  return (
    <form onSubmit={submit} noValidate data-testid="edit-staff-form">
      <Stack>
        <ErrorBox message={update.error ? errorText(update.error, t('staff.editModal.error')) : null} />
        <TextInput label={t('staff.form.fullName')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('staff.form.email')} type="email" required {...form.getInputProps('email')} />
        <RoleSelect
          label={t('staff.form.role')}
          required
          roles={assignableRolesFor(viewerRole, member.role)}
          {...form.getInputProps('role')}
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={update.isPending}>
            {t('staff.editModal.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.12 'Edit staff': full name, email, role, a general error box, Cancel and Update. */
export function EditStaffModal({
  member,
  opened,
  viewerRole,
  onClose,
  onExited,
}: {
  member: StaffMember | null;
  opened: boolean;
  viewerRole: Role;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={onExited} title={t('staff.editModal.title')} centered>
      {member ? <EditStaffForm key={member.id} member={member} viewerRole={viewerRole} onClose={onClose} /> : null}
    </Modal>
  );
}
