import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { linkToken, useVerifyEmail } from '../api/email';
import { useSession } from '../api/session';
import { AuthPageShell } from '../components/AuthPageShell';
import { emailFlowErrorText, isDeadLink } from '../email-errors';

/**
 * /verify-email?token=… (issue 22 §2): the link of the verification e-mail. Opening it proves the address at once
 * (one POST; the link is single-use, so a repeated effect must not send it twice); a signed-in client's session is
 * read again, so the trading screen's banner is gone.
 */
export default function VerifyEmailPage() {
  const { t } = useTranslation('platform');
  const token = linkToken(useLocation().search);
  const verify = useVerifyEmail();
  const { data: user } = useSession();
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current || !token) return;
    sent.current = true;
    verify.mutate(token);
  }, [token, verify]);

  const home = user?.role === 'client' ? '/trading' : '/';
  const homeLabel = user?.role === 'client' ? t('emailFlows.verify.toPlatform') : t('emailFlows.verify.toSite');

  let body;
  if (!token) {
    body = (
      <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert" data-testid="verify-error">
        {t('emailFlows.verify.missing')}
      </Alert>
    );
  } else if (verify.isSuccess) {
    body = (
      <Alert color="green" variant="light" icon={<IconCircleCheck size={18} />} role="status" data-testid="verify-done">
        {t('emailFlows.verify.done', { email: verify.data.email })}
      </Alert>
    );
  } else if (verify.isError) {
    const dead = isDeadLink(verify.error);
    body = (
      <Stack gap="sm">
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertCircle size={18} />}
          role="alert"
          title={t('emailFlows.verify.failed')}
          data-testid="verify-error"
        >
          {emailFlowErrorText(verify.error, t('emailFlows.verify.failed'))}
        </Alert>
        {dead ? (
          <Text size="sm" c="dimmed">
            {t('emailFlows.verify.newLinkHint')}
          </Text>
        ) : (
          <Button variant="light" onClick={() => verify.mutate(token)} data-testid="verify-retry">
            {t('emailFlows.verify.retry')}
          </Button>
        )}
      </Stack>
    );
  } else {
    body = (
      <Group justify="center" gap="sm" py="md" role="status" aria-live="polite">
        <Loader size="sm" />
        <Text>{t('emailFlows.verify.checking')}</Text>
      </Group>
    );
  }

  return (
    <AuthPageShell title={t('emailFlows.verify.title')} testId="verify-email-page">
      <Stack>
        {body}
        <Button component="a" href={home} variant={verify.isSuccess ? 'filled' : 'default'} fullWidth>
          {homeLabel}
        </Button>
      </Stack>
    </AuthPageShell>
  );
}
