import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useAuditChain } from '../api/audit';

/**
 * 'Chain verified up to row N', or the first row that does not match and why, or a cut tail; a chain with no
 * checkpoint outside the database (not anchored) and a check that the chain key did not allow are said apart.
 */
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
  const { status, broken, verified_up_to: upTo } = chain.data;
  let message = t('audit.chain.verified', { upTo });
  let color = 'green';
  let title: string | undefined;
  if (status === 'key_missing' || status === 'key_mismatch') {
    // The check could not be made: not a finding of tampering, and not a pass either.
    message = t(status === 'key_missing' ? 'audit.chain.keyMissing' : 'audit.chain.keyMismatch', { upTo });
    color = 'orange';
    title = t('audit.chain.keyTitle');
  } else if (broken) {
    message =
      broken.reason === 'missing_tail'
        ? t('audit.chain.missingTail', { upTo, seq: broken.seq })
        : t('audit.chain.broken', { id: broken.id, reason: t(`audit.chain.reasons.${broken.reason}`), upTo });
    color = 'red';
    title = t('audit.chain.brokenTitle');
  } else if (status === 'not_anchored') {
    message = t('audit.chain.notAnchored', { upTo });
    color = 'yellow';
  }
  return (
    <Alert color={color} mb="md" data-testid="audit-chain" data-status={status} title={title}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm">{message}</Text>
        {recheck}
      </Group>
    </Alert>
  );
}
