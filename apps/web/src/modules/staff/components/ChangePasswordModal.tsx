import { changePasswordRequestSchema, type StaffMember } from '@brokerage/shared';
import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useChangeStaffPassword } from '../api/staff';

const MIN_LENGTH = 6;

function ChangePasswordForm({ member, onClose }: { member: StaffMember; onClose: () => void }) {
  const { t } = useTranslation();
  const change = useChangeStaffPassword();
  const form = useForm<{ new_password: string }>({
    mode: 'controlled',
    initialValues: { new_password: '' },
    validate: schemaValidator<{ new_password: string }>(changePasswordRequestSchema, t),
  });
  const password = form.values.new_password;
  const tooShort = password.length > 0 && password.length < MIN_LENGTH;
  const name = member.full_name || member.name;

  const submit = form.onSubmit((values) => {
    change.mutate(
      { id: member.id, body: changePasswordRequestSchema.parse(values) },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('staff.passwordModal.success', { name }) });
          onClose();
        },
      },
    );
  });

  const input = form.getInputProps('new_password');
  return (
    <form onSubmit={submit} noValidate data-testid="change-password-form">
      <Stack>
        <ErrorBox message={change.error ? errorText(change.error, t('staff.passwordModal.error')) : null} />
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
          label={t('staff.passwordModal.newPassword')}
          required
          autoComplete="new-password"
          data-autofocus
          {...input}
          error={tooShort ? t('staff.passwordModal.tooShort') : input.error}
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={change.isPending} disabled={password.length < MIN_LENGTH}>
            {t('staff.passwordModal.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.12 'Change password for staff member <name>' (superadmin viewers only). */
export function ChangePasswordModal({
  member,
  opened,
  onClose,
  onExited,
}: {
  member: StaffMember | null;
  opened: boolean;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onExited}
      title={member ? t('staff.passwordModal.title', { name: member.full_name || member.name }) : ''}
      centered
    >
      {member ? <ChangePasswordForm key={member.id} member={member} onClose={onClose} /> : null}
    </Modal>
  );
}
