import type { SessionResponse } from '@brokerage/shared';
import { Anchor, Button, Center, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { ErrorBox } from '../../ui/ErrorBox';
import { useEnrollConfirm, useEnrollSecret, useOtpLogin } from '../api/two-factor';
import { RecoveryCodes } from './RecoveryCodes';
import { TotpEnrollment } from './TotpEnrollment';

/** The sign-in step after a right password for an enrolled staff member: a TOTP code or a recovery code. */
export function OtpStep({
  challenge,
  onSignedIn,
  onBack,
}: {
  challenge: string;
  onSignedIn: (session: SessionResponse) => void;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const otp = useOtpLogin();
  const [code, setCode] = useState('');
  const submitting = otp.isPending || otp.isSuccess;
  return (
    <form
      noValidate
      data-testid="otp-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!code.trim()) return;
        otp.mutate({ challenge, code: code.trim() }, { onSuccess: onSignedIn });
      }}
    >
      <Stack>
        <Stack gap={4} align="center">
          <Title order={3}>{t('login.twoFactor.otpTitle')}</Title>
          <Text size="sm" c="dimmed" ta="center">
            {t('login.twoFactor.otpHint')}
          </Text>
        </Stack>
        <ErrorBox message={otp.error ? errorText(otp.error, t('login.twoFactor.failed')) : null} />
        <TextInput
          label={t('login.twoFactor.codeLabel')}
          placeholder={t('login.twoFactor.codePlaceholder')}
          autoComplete="one-time-code"
          autoFocus
          maxLength={20}
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          data-testid="otp-code"
        />
        <Button
          type="submit"
          fullWidth
          disabled={submitting || !code.trim()}
          leftSection={submitting ? <Loader size="xs" color="gray" /> : null}
        >
          {submitting ? t('login.twoFactor.verifying') : t('login.twoFactor.verify')}
        </Button>
        <Center>
          <Anchor component="button" type="button" size="sm" onClick={onBack} data-testid="second-factor-back">
            {t('login.twoFactor.back')}
          </Anchor>
        </Center>
      </Stack>
    </form>
  );
}

/**
 * Enrollment at sign-in, for a role that must use two-factor sign-in: the QR code and key, the first code, then the
 * recovery codes shown once; the session starts when they have been seen.
 */
export function EnrollStep({
  challenge,
  onSignedIn,
  onBack,
}: {
  challenge: string;
  onSignedIn: (session: SessionResponse) => void;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const secret = useEnrollSecret(challenge);
  const confirm = useEnrollConfirm();
  const back = (
    <Center>
      <Anchor component="button" type="button" size="sm" onClick={onBack} data-testid="second-factor-back">
        {t('login.twoFactor.back')}
      </Anchor>
    </Center>
  );

  if (confirm.data) {
    const { recovery_codes, ...session } = confirm.data;
    return <RecoveryCodes codes={recovery_codes} onDone={() => onSignedIn(session)} />;
  }
  return (
    <Stack>
      <Title order={3} ta="center">
        {t('login.twoFactor.enrollTitle')}
      </Title>
      {secret.isPending ? (
        <Center py="lg">
          <Stack align="center" gap="xs">
            <Loader size="sm" />
            <Text size="sm" c="dimmed">
              {t('login.twoFactor.loadingSecret')}
            </Text>
          </Stack>
        </Center>
      ) : secret.isError ? (
        <Stack>
          <ErrorBox message={errorText(secret.error, t('login.twoFactor.secretError'))} />
          <Button variant="light" onClick={() => void secret.refetch()}>
            {t('login.twoFactor.retry')}
          </Button>
        </Stack>
      ) : (
        <TotpEnrollment
          secret={secret.data}
          hint={t('login.twoFactor.enrollRequired')}
          error={confirm.error ? errorText(confirm.error, t('login.twoFactor.failed')) : null}
          pending={confirm.isPending}
          onSubmit={(code) => confirm.mutate({ challenge, code })}
        />
      )}
      {back}
    </Stack>
  );
}
