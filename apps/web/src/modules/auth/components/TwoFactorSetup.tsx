import type { TwoFactorSecret } from '@brokerage/shared';
import { Alert, Button, Center, Loader, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconShieldCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { ErrorBox } from '../../ui/ErrorBox';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { useSetupConfirm, useSetupStart, useTwoFactorStatus } from '../api/two-factor';
import { RecoveryCodes } from './RecoveryCodes';
import { TotpEnrollment } from './TotpEnrollment';

/**
 * Voluntary two-factor enrollment from the user menu (issue 13): the state, then the password again, the QR code and
 * key, the first code, and the recovery codes shown once. Staff only; clients are never asked.
 */
export function TwoFactorSetupModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const fullScreen = useMediaQuery('(max-width: 36em)') ?? false;
  const status = useTwoFactorStatus(opened);
  const start = useSetupStart();
  const confirm = useSetupConfirm();
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<TwoFactorSecret | null>(null);

  const close = () => {
    setPassword('');
    setSecret(null);
    start.reset();
    confirm.reset();
    onClose();
  };

  let content;
  if (confirm.data) {
    content = (
      <RecoveryCodes codes={confirm.data.recovery_codes} onDone={close} doneLabel={t('login.twoFactor.done')} />
    );
  } else if (secret) {
    content = (
      <TotpEnrollment
        secret={secret}
        hint={t('login.twoFactor.enrollHint')}
        error={confirm.error ? errorText(confirm.error, t('login.twoFactor.failed')) : null}
        pending={confirm.isPending}
        onSubmit={(code) => confirm.mutate(code)}
      />
    );
  } else if (status.isPending) {
    content = (
      <Center py="lg">
        <Loader size="sm" />
      </Center>
    );
  } else if (status.isError) {
    content = (
      <LoadErrorAlert
        title={t('login.twoFactor.statusError')}
        error={status.error}
        onRetry={() => void status.refetch()}
        testId="two-factor-status-error"
      />
    );
  } else if (status.data.enabled) {
    content = (
      <Stack>
        <Alert color="teal" variant="light" icon={<IconShieldCheck size={18} />} title={t('login.twoFactor.enabled')}>
          <Text size="sm" data-testid="two-factor-status">
            {t('login.twoFactor.statusOn', { count: status.data.recovery_codes_left })}
          </Text>
        </Alert>
        <Text size="xs" c="dimmed">
          {t('login.twoFactor.resetHint')}
        </Text>
        <Button variant="default" onClick={close}>
          {t('login.twoFactor.done')}
        </Button>
      </Stack>
    );
  } else {
    content = (
      <form
        noValidate
        data-testid="two-factor-setup-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (password) start.mutate(password, { onSuccess: (s) => setSecret(s) });
        }}
      >
        <Stack>
          <Text size="sm" data-testid="two-factor-status">
            {t('login.twoFactor.statusOff')}
            {status.data.required ? ` ${t('login.twoFactor.statusRequired')}` : ''}
          </Text>
          <ErrorBox message={start.error ? errorText(start.error, t('login.twoFactor.secretError')) : null} />
          <PasswordInput
            label={t('login.twoFactor.passwordPrompt')}
            autoComplete="current-password"
            visibilityToggleButtonProps={{ 'aria-label': t('common.togglePassword') }}
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            data-testid="two-factor-password"
          />
          <Button
            type="submit"
            disabled={!password || start.isPending}
            leftSection={start.isPending ? <Loader size="xs" color="gray" /> : null}
          >
            {t('login.twoFactor.start')}
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('login.twoFactor.setupTitle')}
      fullScreen={fullScreen}
      // The recovery codes are shown once: no closing by a stray click outside while they are on screen.
      closeOnClickOutside={!confirm.data}
      data-testid="two-factor-modal"
    >
      {content}
    </Modal>
  );
}
