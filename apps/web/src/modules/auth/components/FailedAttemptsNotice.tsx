import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { setFailedAttemptsNotice, useFailedAttemptsNotice } from '../api/two-factor';

/** After a sign-in: the failed attempts on the account since the previous one (count, last time, last address). */
export function FailedAttemptsNotice({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  const notice = useFailedAttemptsNotice();
  if (!notice) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      mb="md"
      icon={<IconAlertTriangle size={18} />}
      title={t('login.twoFactor.failedTitle')}
      withCloseButton
      closeButtonLabel={t('login.twoFactor.dismiss')}
      onClose={() => setFailedAttemptsNotice(null)}
      data-testid="failed-attempts-notice"
    >
      {t('login.twoFactor.failedText', {
        count: notice.count,
        at: formatDateTime(notice.last_at, timeZone, { seconds: true }),
        ip: notice.last_ip ?? t('login.twoFactor.unknownIp'),
      })}
    </Alert>
  );
}
