import { homePathFor, invitationAcceptSchema, type SessionResponse } from '@brokerage/shared';
import { Alert, Box, Button, Center, Group, Loader, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconAlertCircle, IconShieldLock } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { CRM_LANGUAGES } from '../../../i18n';
import { errorText } from '../../../lib/api';
import { translateValidation } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { roleLabelKey } from '../../ui/role-label';
import { linkToken, useAcceptInvitation, useInvitation } from '../api/email';
import { signedIn } from '../api/session';
import { AuthPageShell } from '../components/AuthPageShell';
import { EnrollStep, OtpStep } from '../components/SecondFactorSteps';
import { emailFlowErrorText, isDeadLink } from '../email-errors';
import { passwordPairErrors } from '../password-pair';

type Step = { kind: 'password' } | { kind: 'otp'; challenge: string } | { kind: 'enroll'; challenge: string };

/**
 * /invitation?token=… (issue 22 §4): a staff member invited without a password sets one here, then is signed in
 * exactly as after the sign-in form — straight to the CRM, or through the two-factor enrollment their role requires.
 */
export default function InvitationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const token = linkToken(useLocation().search);
  const info = useInvitation(token);
  const accept = useAcceptInvitation();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const form = useForm<{ password: string; confirm: string }>({
    mode: 'controlled',
    initialValues: { password: '', confirm: '' },
    validate: (values) =>
      passwordPairErrors(values, invitationAcceptSchema.shape.password, {
        translate: (message) => translateValidation(message, t),
        mismatch: t('emailFlows.invitation.mismatch'),
      }),
  });

  const enter = (session: SessionResponse) => {
    signedIn(session.user);
    navigate(homePathFor(session.user.role), { replace: true });
  };
  const submit = form.onSubmit(async (values) => {
    try {
      const answer = await accept.mutateAsync({ token, password: values.password });
      if ('otp_required' in answer) setStep({ kind: 'otp', challenge: answer.challenge });
      else if ('enrollment_required' in answer) setStep({ kind: 'enroll', challenge: answer.challenge });
      else enter(answer);
    } catch {
      // The error box reads accept.error.
    }
  });
  const toLogin = () => window.location.assign('/login');

  if (step.kind !== 'password') {
    // The password is set: the second factor goes on as at sign-in (a step back leads to the sign-in page).
    return (
      <Center component="main" mih="100dvh" p="md">
        <Box w="100%" maw={440}>
          <Paper withBorder shadow="sm" radius="md" p={{ base: 'lg', xs: 'xl' }}>
            {step.kind === 'otp' ? (
              <OtpStep challenge={step.challenge} onSignedIn={enter} onBack={toLogin} />
            ) : (
              <EnrollStep challenge={step.challenge} onSignedIn={enter} onBack={toLogin} />
            )}
          </Paper>
        </Box>
      </Center>
    );
  }

  let body;
  if (!token) {
    body = <DeadLink message={t('emailFlows.invitation.missing')} />;
  } else if (info.isPending) {
    body = (
      <Group justify="center" gap="sm" py="md" role="status" aria-live="polite">
        <Loader size="sm" />
        <Text>{t('emailFlows.invitation.loading')}</Text>
      </Group>
    );
  } else if (info.isError) {
    body = isDeadLink(info.error) ? (
      <DeadLink message={emailFlowErrorText(info.error, t('emailFlows.invitation.loadFailed'))} />
    ) : (
      <Stack>
        <ErrorBox message={errorText(info.error, t('emailFlows.invitation.loadFailed'))} />
        <Button variant="light" onClick={() => void info.refetch()}>
          {t('emailFlows.invitation.retry')}
        </Button>
      </Stack>
    );
  } else {
    const submitting = accept.isPending || (accept.isSuccess && step.kind === 'password');
    body = (
      <form onSubmit={submit} noValidate data-testid="invitation-form">
        <Stack>
          <Stack gap={2}>
            <Text fw={600}>{t('emailFlows.invitation.intro', { name: info.data.name })}</Text>
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="invitation-who">
              {t('emailFlows.invitation.who', { email: info.data.email, role: t(roleLabelKey(info.data.role)) })}
            </Text>
          </Stack>
          {info.data.two_factor_required ? (
            <Alert color="blue" variant="light" icon={<IconShieldLock size={18} />}>
              {t('emailFlows.invitation.twoFactor')}
            </Alert>
          ) : null}
          <ErrorBox
            message={accept.error ? emailFlowErrorText(accept.error, t('emailFlows.invitation.failed')) : null}
          />
          {/* For the browser's password manager: the account the new password belongs to. */}
          <input type="email" name="username" autoComplete="username" value={info.data.email} readOnly hidden />
          <PasswordInput
            label={t('emailFlows.invitation.password')}
            autoComplete="new-password"
            required
            data-autofocus
            visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
            {...form.getInputProps('password')}
          />
          <PasswordInput
            label={t('emailFlows.invitation.confirm')}
            autoComplete="new-password"
            required
            visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
            {...form.getInputProps('confirm')}
          />
          <Button
            type="submit"
            fullWidth
            disabled={submitting || isDeadLink(accept.error)}
            leftSection={submitting ? <Loader size="xs" color="gray" /> : null}
            data-testid="invitation-submit"
          >
            {submitting ? t('emailFlows.invitation.submitting') : t('emailFlows.invitation.submit')}
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <AuthPageShell title={t('emailFlows.invitation.title')} languages={CRM_LANGUAGES} testId="invitation-page">
      {body}
    </AuthPageShell>
  );
}

function DeadLink({ message }: { message: string }) {
  const { t } = useTranslation();
  return (
    <Stack data-testid="invitation-dead">
      <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
        {message}
      </Alert>
      <Text size="sm" c="dimmed">
        {t('emailFlows.invitation.dead')}
      </Text>
      <Button component="a" href="/login" variant="default" fullWidth>
        {t('emailFlows.invitation.toLogin')}
      </Button>
    </Stack>
  );
}
