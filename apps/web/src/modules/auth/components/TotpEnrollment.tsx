import type { TwoFactorSecret } from '@brokerage/shared';
import { Button, Center, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyableCode } from '../../ui/CopyableCode';
import { ErrorBox } from '../../ui/ErrorBox';
import { QrCode } from './QrCode';

/** The enrollment form: the QR code, the key as text to type in, and the first code from the app. */
export function TotpEnrollment({
  secret,
  hint,
  error,
  pending,
  onSubmit,
}: {
  secret: TwoFactorSecret;
  hint: string;
  error: string | null;
  pending: boolean;
  onSubmit: (code: string) => void;
}) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  return (
    <form
      noValidate
      data-testid="totp-enroll-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (code.trim()) onSubmit(code.trim());
      }}
    >
      <Stack>
        <Text size="sm">{hint}</Text>
        <Center>
          <QrCode value={secret.otpauth_url} alt={t('login.twoFactor.qrAlt')} />
        </Center>
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            {t('login.twoFactor.secretLabel')}
          </Text>
          <CopyableCode
            value={secret.secret}
            copyLabel={t('login.twoFactor.copy')}
            copiedLabel={t('login.twoFactor.copied')}
            testId="totp-secret"
          />
        </Stack>
        <ErrorBox message={error} />
        <TextInput
          label={t('login.twoFactor.codeLabel')}
          placeholder={t('login.twoFactor.codePlaceholder')}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))}
          data-testid="totp-code"
        />
        <Button
          type="submit"
          fullWidth
          disabled={pending || code.length !== 6}
          leftSection={pending ? <Loader size="xs" color="gray" /> : null}
        >
          {pending ? t('login.twoFactor.verifying') : t('login.twoFactor.verify')}
        </Button>
      </Stack>
    </form>
  );
}
