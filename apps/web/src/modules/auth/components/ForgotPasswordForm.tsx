import { passwordResetRequestSchema } from '@brokerage/shared';
import { Alert, Anchor, Button, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { usePasswordResetRequest, useSiteContacts } from '../api/email';
import { contactsLine } from '../contacts';
import { emailFlowErrorText } from '../email-errors';

/** The support hint under the reset request: the 'Поддержка' conversation, and the site's contacts when filled. */
export function ResetHelp() {
  const { t } = useTranslation('platform');
  const content = useSiteContacts();
  const contacts = contactsLine(content.data);
  return (
    <Text size="sm" c="dimmed" data-testid="reset-help">
      {t('emailFlows.forgot.support')}
      {contacts ? ` ${t('emailFlows.forgot.contacts', { contacts })}` : null}
    </Text>
  );
}

/**
 * Issue 22 §3: 'Забыли пароль?' — the address, then always the same answer (known address or not). For staff and
 * clients alike (the /login page and the reset page whose link was dead).
 */
export function ForgotPasswordForm({ initialEmail = '', onBack }: { initialEmail?: string; onBack?: () => void }) {
  const { t } = useTranslation('platform');
  // The shared validation messages live in the back office's namespace (lib/validation.ts).
  const { t: tValidation } = useTranslation();
  const request = usePasswordResetRequest();
  const form = useForm<{ email: string }>({
    mode: 'controlled',
    initialValues: { email: initialEmail },
    validate: schemaValidator<{ email: string }>(passwordResetRequestSchema, tValidation),
  });
  const submit = form.onSubmit((values) => request.mutate(values.email.trim()));

  return (
    <Stack data-testid="forgot-password">
      {request.isSuccess ? (
        <Alert color="green" variant="light" icon={<IconMailCheck size={18} />} role="status" data-testid="forgot-sent">
          {t('emailFlows.forgot.sent', { email: request.variables })}
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate data-testid="forgot-form">
          <Stack>
            <Text size="sm">{t('emailFlows.forgot.text')}</Text>
            <ErrorBox
              message={request.error ? emailFlowErrorText(request.error, t('emailFlows.forgot.failed')) : null}
            />
            <TextInput
              type="email"
              label={t('emailFlows.forgot.email')}
              autoComplete="username"
              required
              data-autofocus
              {...form.getInputProps('email')}
            />
            <Button
              type="submit"
              fullWidth
              disabled={request.isPending}
              leftSection={request.isPending ? <Loader size="xs" color="gray" /> : null}
            >
              {request.isPending ? t('emailFlows.forgot.sending') : t('emailFlows.forgot.submit')}
            </Button>
          </Stack>
        </form>
      )}
      <ResetHelp />
      {onBack ? (
        <Anchor component="button" type="button" size="sm" onClick={onBack} data-testid="forgot-back">
          {t('emailFlows.forgot.back')}
        </Anchor>
      ) : null}
    </Stack>
  );
}
