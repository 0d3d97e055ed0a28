import { loginRequestSchema, type LoginRequest, type SessionResponse } from '@brokerage/shared';
import {
  Anchor,
  Box,
  Button,
  Center,
  Group,
  Loader,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { LanguageSwitch } from '../../ui/LanguageSwitch';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { signedIn, useLogin } from '../api/session';
import { setFailedAttemptsNotice } from '../api/two-factor';
import { DemoAccounts } from './DemoAccounts';
import { ForgotPasswordForm } from './ForgotPasswordForm';
import { EnrollStep, OtpStep } from './SecondFactorSteps';

type Step =
  | { kind: 'password' }
  | { kind: 'forgot' }
  | { kind: 'otp'; challenge: string }
  | { kind: 'enroll'; challenge: string };

/** A session has begun: the failed attempts since the previous one go to the shell's notice, then on to the app. */
function enter(session: SessionResponse): void {
  setFailedAttemptsNotice(session.failed_attempts);
  if (session.user.role === 'client') {
    // /trading is another area of the product: a full page load.
    window.location.assign('/trading');
    return;
  }
  // The /login route now sees a signed-in staff member and takes them to their landing path.
  signedIn(session.user);
}

/**
 * §2.3: the sign-in form. Shown only to anonymous visitors (the route sends signed-in users home). Staff with
 * two-factor sign-in (issue 13) go on to the code step, or to the enrollment step when their role requires it.
 * 'Забыли пароль?' (issue 22 §3) asks for a reset link, for staff and clients alike.
 */
export function LoginScreen() {
  const { t } = useTranslation();
  const { t: tPlatform } = useTranslation('platform');
  const login = useLogin();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const form = useForm<LoginRequest>({
    mode: 'controlled',
    initialValues: { email: '', password: '' },
    validate: schemaValidator<LoginRequest>(loginRequestSchema, t),
  });

  const submit = form.onSubmit(async (values) => {
    try {
      const answer = await login.mutateAsync({ email: values.email.trim(), password: values.password });
      if ('otp_required' in answer) setStep({ kind: 'otp', challenge: answer.challenge });
      else if ('enrollment_required' in answer) setStep({ kind: 'enroll', challenge: answer.challenge });
      else enter(answer);
    } catch {
      // The error box reads login.error.
    }
  });

  const submitting = login.isPending || (login.isSuccess && step.kind === 'password');
  const backToPassword = () => {
    login.reset();
    form.setFieldValue('password', '');
    setStep({ kind: 'password' });
  };

  return (
    <Center component="main" mih="100dvh" p="md">
      <Box w="100%" maw={420}>
        <Group justify="flex-end" mb="sm" gap="xs">
          <LanguageSwitch />
          <ThemeToggle />
        </Group>
        <Paper withBorder shadow="sm" radius="md" p="xl">
          {step.kind === 'forgot' ? (
            <>
              <Stack gap={4} mb="lg" align="center">
                <Title order={1} size="h2">
                  {tPlatform('emailFlows.forgot.title')}
                </Title>
              </Stack>
              <ForgotPasswordForm initialEmail={form.values.email.trim()} onBack={backToPassword} />
            </>
          ) : step.kind === 'otp' ? (
            <OtpStep challenge={step.challenge} onSignedIn={enter} onBack={backToPassword} />
          ) : step.kind === 'enroll' ? (
            <EnrollStep challenge={step.challenge} onSignedIn={enter} onBack={backToPassword} />
          ) : (
            <>
              <Stack gap={4} mb="lg" align="center">
                <Title order={1} size="h2">
                  {t('login.title')}
                </Title>
                <Text c="dimmed">{t('login.subtitle')}</Text>
              </Stack>
              <form onSubmit={submit} noValidate data-testid="login-form">
                <Stack>
                  <ErrorBox message={login.error ? errorText(login.error, t('login.failed')) : null} />
                  <TextInput
                    type="email"
                    label={t('login.email')}
                    placeholder={t('login.emailPlaceholder')}
                    autoComplete="username"
                    required
                    {...form.getInputProps('email')}
                  />
                  <PasswordInput
                    visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
                    label={t('login.password')}
                    autoComplete="current-password"
                    required
                    {...form.getInputProps('password')}
                  />
                  <Anchor
                    component="button"
                    type="button"
                    size="sm"
                    ta="left"
                    onClick={() => {
                      login.reset();
                      setStep({ kind: 'forgot' });
                    }}
                    data-testid="forgot-link"
                  >
                    {t('emailFlows.forgotLink')}
                  </Anchor>
                  <Button
                    type="submit"
                    fullWidth
                    disabled={submitting}
                    leftSection={submitting ? <Loader size="xs" color="gray" /> : null}
                  >
                    {submitting ? t('login.submitting') : t('login.submit')}
                  </Button>
                </Stack>
              </form>
              <DemoAccounts onPick={(email, password) => form.setValues({ email, password })} />
            </>
          )}
        </Paper>
      </Box>
    </Center>
  );
}
