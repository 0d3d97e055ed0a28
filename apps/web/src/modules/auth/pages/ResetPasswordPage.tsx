import { passwordResetConfirmSchema } from '@brokerage/shared';
import { Alert, Button, Loader, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { translateValidation } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { linkToken, usePasswordResetConfirm } from '../api/email';
import { AuthPageShell } from '../components/AuthPageShell';
import { ForgotPasswordForm } from '../components/ForgotPasswordForm';
import { emailFlowErrorText, isDeadLink } from '../email-errors';
import { passwordPairErrors } from '../password-pair';

interface Values {
  password: string;
  confirm: string;
}

/**
 * /reset-password?token=… (issue 22 §3), for clients and staff: a new password (twice). The server ends every session
 * of the account; the page then offers the sign-in. A used, expired or unknown link offers a new one.
 */
export default function ResetPasswordPage() {
  const { t } = useTranslation('platform');
  const { t: tValidation } = useTranslation();
  const token = linkToken(useLocation().search);
  const confirm = usePasswordResetConfirm();
  const [asking, setAsking] = useState(false);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { password: '', confirm: '' },
    validate: (values) =>
      passwordPairErrors(values, passwordResetConfirmSchema.shape.password, {
        translate: (message) => translateValidation(message, tValidation),
        mismatch: t('emailFlows.reset.mismatch'),
      }),
  });
  const submit = form.onSubmit((values) => confirm.mutate({ token, password: values.password }));

  if (asking || !token) {
    return (
      <AuthPageShell title={t('emailFlows.forgot.title')} testId="reset-password-page">
        <Stack>
          {!token ? (
            <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
              {t('emailFlows.reset.missing')}
            </Alert>
          ) : null}
          <ForgotPasswordForm onBack={() => window.location.assign('/login')} />
        </Stack>
      </AuthPageShell>
    );
  }

  if (confirm.isSuccess) {
    return (
      <AuthPageShell title={t('emailFlows.reset.title')} testId="reset-password-page">
        <Stack>
          <Alert
            color="green"
            variant="light"
            icon={<IconCircleCheck size={18} />}
            role="status"
            data-testid="reset-done"
          >
            {t('emailFlows.reset.done')}
          </Alert>
          <Button component="a" href="/login" fullWidth data-testid="reset-to-login">
            {t('emailFlows.reset.toLogin')}
          </Button>
        </Stack>
      </AuthPageShell>
    );
  }

  const dead = isDeadLink(confirm.error);
  return (
    <AuthPageShell title={t('emailFlows.reset.title')} testId="reset-password-page">
      <form onSubmit={submit} noValidate data-testid="reset-form">
        <Stack>
          <Text size="sm">{t('emailFlows.reset.text')}</Text>
          <ErrorBox message={confirm.error ? emailFlowErrorText(confirm.error, t('emailFlows.forgot.failed')) : null} />
          {dead ? (
            <Button variant="light" onClick={() => setAsking(true)} data-testid="reset-request-new">
              {t('emailFlows.reset.requestNew')}
            </Button>
          ) : (
            <>
              <PasswordInput
                label={t('emailFlows.reset.password')}
                autoComplete="new-password"
                required
                data-autofocus
                visibilityToggleButtonProps={{ 'aria-label': t('emailFlows.reset.password') }}
                {...form.getInputProps('password')}
              />
              <PasswordInput
                label={t('emailFlows.reset.confirm')}
                autoComplete="new-password"
                required
                visibilityToggleButtonProps={{ 'aria-label': t('emailFlows.reset.confirm') }}
                {...form.getInputProps('confirm')}
              />
              <Button
                type="submit"
                fullWidth
                disabled={confirm.isPending}
                leftSection={confirm.isPending ? <Loader size="xs" color="gray" /> : null}
                data-testid="reset-submit"
              >
                {confirm.isPending ? t('emailFlows.reset.saving') : t('emailFlows.reset.submit')}
              </Button>
            </>
          )}
        </Stack>
      </form>
    </AuthPageShell>
  );
}
