import { MAIL_LANGUAGES, emailChangeRequestSchema, type MailLanguage } from '@brokerage/shared';
import {
  Alert,
  Badge,
  Button,
  Divider,
  Group,
  Input,
  Loader,
  Modal,
  PasswordInput,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconMailForward } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useChangeEmail, useUpdateProfile } from '../api/email';
import type { CurrentUser } from '../api/session';
import { emailFlowErrorText } from '../email-errors';

function isMailLanguage(value: string): value is MailLanguage {
  return (MAIL_LANGUAGES as readonly string[]).includes(value);
}

/**
 * Issue 22 §2, §5: the client's profile in the trading screen — the address (verified or not, and a new one waiting
 * for its link), the language of the mail, 'only security mail', and the change of address (with the password).
 * A setting is saved as soon as it is changed.
 */
export function ProfileDialog({ user, opened, onClose }: { user: CurrentUser; opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('platform');
  const { t: tValidation } = useTranslation();
  const update = useUpdateProfile();
  const change = useChangeEmail();
  const form = useForm<{ email: string; password: string }>({
    mode: 'controlled',
    initialValues: { email: '', password: '' },
    validate: schemaValidator<{ email: string; password: string }>(emailChangeRequestSchema, tValidation),
  });

  const save = (body: Parameters<typeof update.mutate>[0]) =>
    update.mutate(body, {
      onSuccess: () => notifications.show({ color: 'green', message: t('emailFlows.profile.saved') }),
      onError: (error) =>
        notifications.show({ color: 'red', message: emailFlowErrorText(error, t('emailFlows.profile.saveFailed')) }),
    });
  const submitChange = form.onSubmit((values) =>
    change.mutate({ email: values.email.trim(), password: values.password }, { onSuccess: () => form.reset() }),
  );
  const close = () => {
    change.reset();
    form.reset();
    onClose();
  };

  return (
    <Modal opened={opened} onClose={close} title={t('emailFlows.profile.title')} centered data-testid="profile-dialog">
      <Stack>
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            {t('emailFlows.profile.email')}
          </Text>
          <Group gap="xs" wrap="wrap">
            <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="profile-email">
              {user.email}
            </Text>
            <Badge color={user.email_verified ? 'green' : 'yellow'} variant="light" data-testid="profile-verified">
              {user.email_verified ? t('emailFlows.profile.verified') : t('emailFlows.profile.unverified')}
            </Badge>
          </Group>
          {user.pending_email ? (
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="profile-pending">
              {t('emailFlows.profile.pending', { email: user.pending_email })}
            </Text>
          ) : null}
        </Stack>

        <Input.Wrapper label={t('emailFlows.profile.language')}>
          <SegmentedControl
            fullWidth
            mt={4}
            value={user.language}
            disabled={update.isPending}
            onChange={(value) => isMailLanguage(value) && value !== user.language && save({ language: value })}
            data={MAIL_LANGUAGES.map((lang) => ({ value: lang, label: t(`emailFlows.languages.${lang}`) }))}
            data-testid="profile-language"
          />
        </Input.Wrapper>
        <Switch
          label={t('emailFlows.profile.securityOnly')}
          description={t('emailFlows.profile.securityOnlyHint')}
          checked={user.mail_opt_out}
          disabled={update.isPending}
          onChange={(event) => save({ mail_opt_out: event.currentTarget.checked })}
          data-testid="profile-opt-out"
        />

        <Divider />
        <Title order={3} size="h5">
          {t('emailFlows.profile.changeTitle')}
        </Title>
        {change.isSuccess ? (
          <Alert
            color="green"
            variant="light"
            icon={<IconMailForward size={18} />}
            role="status"
            data-testid="change-sent"
          >
            {t('emailFlows.profile.changeSent', { email: change.variables.email })}
          </Alert>
        ) : null}
        <form onSubmit={submitChange} noValidate data-testid="email-change-form">
          <Stack gap="sm">
            <ErrorBox
              message={change.error ? emailFlowErrorText(change.error, t('emailFlows.profile.changeFailed')) : null}
            />
            <TextInput
              type="email"
              label={t('emailFlows.profile.newEmail')}
              autoComplete="email"
              required
              {...form.getInputProps('email')}
            />
            <PasswordInput
              label={t('emailFlows.profile.password')}
              autoComplete="current-password"
              required
              visibilityToggleButtonProps={{ 'aria-label': t('emailFlows.profile.password') }}
              {...form.getInputProps('password')}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('emailFlows.profile.close')}
              </Button>
              <Button
                type="submit"
                disabled={change.isPending}
                leftSection={change.isPending ? <Loader size="xs" color="gray" /> : null}
                data-testid="email-change-submit"
              >
                {change.isPending ? t('emailFlows.profile.changeSending') : t('emailFlows.profile.changeSubmit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Modal>
  );
}
