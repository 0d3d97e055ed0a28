import type { AffiliateToken } from '@brokerage/shared';
import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useCopyFeedback } from '../hooks/useCopyFeedback';

/**
 * The one time the full token is shown (D17): the token, a copy button and a clear warning. Once closed it cannot be
 * shown again; a lost token is replaced by a new one.
 */
export function TokenCreatedModal({ token, onClose }: { token: AffiliateToken | null; onClose: () => void }) {
  const { t } = useTranslation('affiliateTokens');
  const { copied, copy } = useCopyFeedback();
  return (
    <Modal
      opened={token !== null}
      onClose={onClose}
      title={t('created.title')}
      centered
      closeOnClickOutside={false}
      size="lg"
    >
      {token ? (
        <Stack data-testid="token-created">
          <Alert
            color="orange"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={t('created.warningTitle')}
          >
            {t('created.warning')}
          </Alert>
          <Text size="sm">{t('created.tokenFor', { name: token.name })}</Text>
          <Code block fz="sm" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="token-full">
            {token.token}
          </Code>
          <Group justify="space-between" wrap="wrap">
            <Button
              variant="light"
              color={copied ? 'teal' : 'blue'}
              leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              onClick={() => void copy(token.token)}
              data-testid="token-full-copy"
            >
              {copied ? t('created.copied') : t('created.copy')}
            </Button>
            <Button onClick={onClose} data-testid="token-created-close">
              {t('created.done')}
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
