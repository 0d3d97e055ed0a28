import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { errorText } from '../../../lib/api';
import { AuthPageShell } from '../../auth/components/AuthPageShell';
import { useUnsubscribe } from '../api/outbox';

/**
 * /unsubscribe?token=… (issue 22 §1): the unsubscribe link at the foot of bulk mail. Opening the page changes nothing
 * (mail scanners open links); the button turns the non-security mail of the link's account off. Security mail (sign-in,
 * password, e-mail changes) still comes; the profile turns the rest back on.
 */
export default function UnsubscribePage() {
  const { t } = useTranslation('site');
  const token = new URLSearchParams(useLocation().search).get('token')?.trim() ?? '';
  const unsubscribe = useUnsubscribe();

  let body;
  if (!token) {
    body = (
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertCircle size={18} />}
        role="alert"
        data-testid="unsubscribe-error"
      >
        {t('unsubscribe.missing')}
      </Alert>
    );
  } else if (unsubscribe.isSuccess) {
    body = (
      <Alert
        color="green"
        variant="light"
        icon={<IconCircleCheck size={18} />}
        role="status"
        data-testid="unsubscribe-done"
      >
        {t('unsubscribe.done')}
      </Alert>
    );
  } else {
    body = (
      <Stack gap="sm">
        <Text>{t('unsubscribe.explain')}</Text>
        {unsubscribe.isError ? (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertCircle size={18} />}
            role="alert"
            data-testid="unsubscribe-error"
          >
            {errorText(unsubscribe.error, t('unsubscribe.failed'))}
          </Alert>
        ) : null}
        <Button
          onClick={() => unsubscribe.mutate(token)}
          loading={unsubscribe.isPending}
          fullWidth
          data-testid="unsubscribe-confirm"
        >
          {t('unsubscribe.confirm')}
        </Button>
      </Stack>
    );
  }

  return (
    <AuthPageShell title={t('unsubscribe.title')} testId="unsubscribe-page">
      <Stack>
        {body}
        <Button component="a" href="/" variant="default" fullWidth>
          {t('unsubscribe.toSite')}
        </Button>
      </Stack>
    </AuthPageShell>
  );
}
