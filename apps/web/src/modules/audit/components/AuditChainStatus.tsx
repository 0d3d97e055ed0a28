import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useAuditChain } from '../api/audit';

/** Issue 13: 'chain verified up to row N', or the first row that does not match and why, or (issue 20) a cut tail. */
export function AuditChainStatus() {
  const { t } = useTranslation();
  const chain = useAuditChain();
  const recheck = (
    <Button size="xs" variant="default" loading={chain.isFetching} onClick={() => void chain.refetch()}>
      {t('audit.chain.recheck')}
    </Button>
  );

  if (chain.isPending)
    return (
      <Group gap="xs" mb="md" data-testid="audit-chain">
        <Loader size="xs" />
        <Text size="sm" c="dimmed">
          {t('audit.chain.checking')}
        </Text>
      </Group>
    );
  if (chain.isError)
    return (
      <Alert color="red" mb="md" data-testid="audit-chain">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="sm">{errorText(chain.error, t('audit.chain.error'))}</Text>
          {recheck}
        </Group>
      </Alert>
    );
  const { broken, verified_up_to: upTo } = chain.data;
  let message = t('audit.chain.verified', { upTo });
  if (broken?.reason === 'missing_tail') message = t('audit.chain.missingTail', { upTo, seq: broken.seq });
  else if (broken)
    message = t('audit.chain.broken', { id: broken.id, reason: t(`audit.chain.reasons.${broken.reason}`), upTo });
  return (
    <Alert
      color={broken ? 'red' : 'green'}
      mb="md"
      data-testid="audit-chain"
      title={broken ? t('audit.chain.brokenTitle') : undefined}
    >
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm">{message}</Text>
        {recheck}
      </Group>
    </Alert>
  );
}
