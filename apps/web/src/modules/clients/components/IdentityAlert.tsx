import { can, type Client } from '@brokerage/shared';
import { Alert, Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconShieldCheck, IconShieldExclamation } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { useVerifyIdentity } from '../api/client-card';
import { useErrorWithDetail } from './EditClientModal';

/**
 * Issue 9 finding 1: a self-registration linked to this existing lead is unverified; issue 20 finding 1: so is a login
 * created by staff on the card. The card says so and what it means (deposits not credited, withdrawals refused); a
 * finance approver may confirm the identity, behind a confirmation, which credits the pending deposits — but not the
 * one who created the login, who is told so instead of being offered a button that can only fail.
 */
export function IdentityAlert({ client }: { client: Client }) {
  const { t } = useTranslation('notify');
  const user = useCurrentUser();
  const verify = useVerifyIdentity(client.id);
  const errorText = useErrorWithDetail();
  const [confirming, setConfirming] = useState(false);
  if (client.identity_verified) return null;
  const createdByYou = client.login_created_by !== null && client.login_created_by === user.id;
  const mayVerify = can(user.role, 'finance.approve') && !createdByYou;

  const confirm = () =>
    verify.mutate(undefined, {
      onSuccess: (result) => {
        setConfirming(false);
        notifications.show({
          color: 'green',
          icon: <IconShieldCheck size={18} />,
          message: t('card.identity.verified', {
            count: result.credited_deposits,
            amount: formatMoney(result.credited_amount),
          }),
        });
      },
      onError: (error) => {
        setConfirming(false);
        notifications.show({ color: 'red', message: errorText(error, t('card.identity.error')) });
      },
    });

  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconShieldExclamation size={20} />}
      title={t('card.identity.title')}
      data-testid="client-identity-unverified"
    >
      <Stack gap="xs">
        <Text size="sm">{t(client.login_created_by ? 'card.identity.staffText' : 'card.identity.text')}</Text>
        {createdByYou ? (
          <Text size="sm" c="dimmed" data-testid="client-identity-own-login">
            {t('card.identity.createdByYou')}
          </Text>
        ) : mayVerify ? (
          <Group>
            <Button
              color="orange"
              leftSection={<IconShieldCheck size={16} />}
              onClick={() => setConfirming(true)}
              data-testid="client-verify-identity"
            >
              {t('card.identity.verify')}
            </Button>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            {t('card.identity.whoMay')}
          </Text>
        )}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title={t('card.identity.confirmTitle')}
        text={t('card.identity.confirmText', { name: client.name, email: client.email })}
        confirmLabel={t('card.identity.verify')}
        loading={verify.isPending}
        onConfirm={confirm}
        onClose={() => setConfirming(false)}
      />
    </Alert>
  );
}

/** The list's mark on a client whose linked registration awaits the identity check (issue 9 finding 1). */
export function IdentityBadge({ client }: { client: Client }) {
  const { t } = useTranslation('notify');
  if (client.identity_verified) return null;
  return (
    <Tooltip label={t('card.identity.title')}>
      <Badge
        color="orange"
        variant="light"
        size="xs"
        leftSection={<IconShieldExclamation size={10} />}
        data-testid="client-identity-badge"
      >
        {t('card.identity.badge')}
      </Badge>
    </Tooltip>
  );
}
