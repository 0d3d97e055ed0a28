import { Modal, Stack, Switch, Text, Button, Group } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useUpdateProfile } from '../api/email';
import { useSession } from '../api/session';

/**
 * Issue 22 §5: a staff member's mail settings in the CRM user menu — the daily digest of due reminders (opt-in).
 * Security mail is always sent. Saved as soon as it is switched.
 */
export function MailSettingsModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { data: user } = useSession();
  const update = useUpdateProfile();
  if (!user) return null;

  return (
    <Modal opened={opened} onClose={onClose} title={t('emailFlows.mail.title')} centered>
      <Stack data-testid="mail-settings">
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {t('emailFlows.mail.address', { email: user.email })}
        </Text>
        <Switch
          label={t('emailFlows.mail.digest')}
          description={t('emailFlows.mail.digestHint')}
          checked={user.digest_opt_in}
          disabled={update.isPending}
          onChange={(event) =>
            update.mutate(
              { digest_opt_in: event.currentTarget.checked },
              {
                onSuccess: () => notifications.show({ color: 'green', message: t('emailFlows.mail.saved') }),
                onError: (error) =>
                  notifications.show({ color: 'red', message: errorText(error, t('emailFlows.mail.failed')) }),
              },
            )
          }
          data-testid="mail-digest"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('emailFlows.mail.close')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
