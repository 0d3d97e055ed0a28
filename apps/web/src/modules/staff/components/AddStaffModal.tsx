import {
  DEFAULT_STAFF_ROLE,
  registerStaffRequestSchema,
  type RegisterStaffRequest,
  type Role,
} from '@brokerage/shared';
import { Button, Group, Modal, PasswordInput, Stack, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconDice5 } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { randomPassword } from '../../../lib/random';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useCreateStaff } from '../api/staff';
import { assignableRolesFor } from '../role-options';
import { RoleSelect } from './RoleSelect';

interface AddStaffValues {
  name: string;
  email: string;
  password: string;
  role: string;
}

const EMPTY: AddStaffValues = { name: '', email: '', password: '', role: DEFAULT_STAFF_ROLE };

/**
 * §2.12 'Add staff member': full name, email, password (show/hide, 'Gen'), role; Cancel resets, Create posts. Left
 * empty, the password is the member's own to set from an invitation e-mail (issue 22 §4).
 */
export function AddStaffModal({
  opened,
  viewerRole,
  onClose,
}: {
  opened: boolean;
  viewerRole: Role;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const create = useCreateStaff();
  const [passwordVisible, setPasswordVisible] = useState(false);
  const form = useForm<AddStaffValues>({
    mode: 'controlled',
    initialValues: EMPTY,
    validate: schemaValidator<AddStaffValues>(registerStaffRequestSchema, t),
  });

  const cancel = () => {
    form.reset();
    create.reset();
    setPasswordVisible(false);
    onClose();
  };

  // Issue 22 §4: an empty password invites the member by e-mail to set their own.
  const inviting = form.values.password === '';
  const submit = form.onSubmit((values) => {
    const body = registerStaffRequestSchema.parse(values) satisfies RegisterStaffRequest;
    create.mutate(body, {
      onSuccess: () => {
        notifications.show({
          color: 'green',
          message:
            body.password === undefined
              ? t('emailFlows.staff.invitedSuccess', { email: body.email })
              : t('staff.addModal.success', { name: body.name }),
        });
        cancel();
      },
    });
  });

  return (
    <Modal opened={opened} onClose={onClose} title={t('staff.addModal.title')} centered>
      <form onSubmit={submit} noValidate data-testid="add-staff-form">
        <Stack>
          <ErrorBox message={create.error ? errorText(create.error, t('staff.addModal.error')) : null} />
          <TextInput label={t('staff.form.fullName')} required data-autofocus {...form.getInputProps('name')} />
          <TextInput
            label={t('staff.form.email')}
            type="email"
            required
            autoComplete="off"
            {...form.getInputProps('email')}
          />
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <PasswordInput
              visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
              label={t('staff.form.password')}
              description={t('emailFlows.staff.passwordHint')}
              // The hint under the input keeps the 'Ген' button level with it.
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              autoComplete="new-password"
              visible={passwordVisible}
              onVisibilityChange={setPasswordVisible}
              style={{ flex: 1 }}
              {...form.getInputProps('password')}
            />
            <Tooltip label={t('staff.form.generateTitle')}>
              <Button
                variant="light"
                mt={25}
                leftSection={<IconDice5 size={16} />}
                onClick={() => {
                  form.setFieldValue('password', randomPassword());
                  setPasswordVisible(true);
                }}
                data-testid="generate-password"
              >
                {t('staff.form.generate')}
              </Button>
            </Tooltip>
          </Group>
          <RoleSelect
            label={t('staff.form.role')}
            required
            roles={assignableRolesFor(viewerRole)}
            {...form.getInputProps('role')}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={cancel}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending} data-testid="add-staff-submit">
              {inviting ? t('emailFlows.staff.invite') : t('staff.addModal.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
