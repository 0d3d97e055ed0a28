import type { TradingAccount } from '@brokerage/shared';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The confirmation before block (active account) or activate (any other status). */
export function StatusConfirmModal({
  account,
  opened,
  loading,
  onConfirm,
  onClose,
  onExited,
}: {
  account: TradingAccount | null;
  opened: boolean;
  loading: boolean;
  onConfirm: () => void;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  const blocking = account?.status === 'active';
  const name = account?.client_name || account?.client_email || '';
  const texts = blocking
    ? {
        title: t('tradingAccounts.blockModal.title'),
        text: t('tradingAccounts.blockModal.text', { name }),
        submit: t('tradingAccounts.blockModal.submit'),
      }
    : {
        title: t('tradingAccounts.activateModal.title'),
        text: t('tradingAccounts.activateModal.text', { name }),
        submit: t('tradingAccounts.activateModal.submit'),
      };
  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={onExited} title={texts.title} centered>
      <Stack data-testid="account-status-modal">
        <Text>{texts.text}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button
            color={blocking ? 'red' : 'teal'}
            onClick={onConfirm}
            loading={loading}
            data-autofocus
            data-testid="account-status-confirm"
          >
            {texts.submit}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
