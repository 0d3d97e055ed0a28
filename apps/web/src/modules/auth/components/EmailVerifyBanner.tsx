import { Alert, Button, Group, Text } from '@mantine/core';
import { IconMailExclamation } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useResendVerification } from '../api/email';
import { authKeys, type CurrentUser } from '../api/session';
import { emailFlowErrorText } from '../email-errors';

/**
 * Issue 22 §2: while a client's address is not verified, the trading screen says so, with 'send again'. Top-ups and
 * withdrawals wait for it; the demo and everything else work. The link is usually opened in another tab: coming back
 * to this one reads the session again, and the banner goes once the address is verified.
 */
export function EmailVerifyBanner({ user }: { user: CurrentUser }) {
  const { t } = useTranslation('platform');
  const queryClient = useQueryClient();
  const resend = useResendVerification();

  useEffect(() => {
    const refresh = () => {
      if (document.visibilityState === 'visible') void queryClient.invalidateQueries({ queryKey: authKeys.me });
    };
    window.addEventListener('focus', refresh);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      window.removeEventListener('focus', refresh);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [queryClient]);

  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconMailExclamation size={18} />}
      data-testid="email-unverified-banner"
    >
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 260px', overflowWrap: 'anywhere' }}>
          {t('emailFlows.banner.text', { email: user.email })}
        </Text>
        <Button
          size="xs"
          variant="light"
          color="yellow"
          loading={resend.isPending}
          disabled={resend.isSuccess}
          onClick={() => resend.mutate()}
          data-testid="email-resend"
        >
          {t('emailFlows.banner.resend')}
        </Button>
      </Group>
      {resend.isSuccess || resend.isError ? (
        <Text
          size="sm"
          mt={6}
          c={resend.isError ? 'red' : undefined}
          role={resend.isError ? 'alert' : 'status'}
          data-testid="email-resend-result"
        >
          {resend.isError
            ? emailFlowErrorText(resend.error, t('emailFlows.forgot.failed'))
            : t('emailFlows.banner.sent')}
        </Text>
      ) : null}
    </Alert>
  );
}
