import type { AuditEntry } from '@brokerage/shared';
import { Code, Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { auditActionLabel } from '../action-label';

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4} style={{ minWidth: 0 }}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      {value === null || value === undefined ? (
        <Text size="sm" c="dimmed">
          {t('audit.noValue')}
        </Text>
      ) : (
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: '50vh', overflow: 'auto' }}>
          {JSON.stringify(value, null, 2)}
        </Code>
      )}
    </Stack>
  );
}

/** One audit entry's before/after state. */
export function AuditDetailsModal({
  entry,
  opened,
  timeZone,
  onClose,
  onExited,
}: {
  entry: AuditEntry | null;
  opened: boolean;
  /** The business time zone (decisions.md D10), shown next to the time. */
  timeZone: string;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onExited}
      title={entry ? t('audit.detailsTitle', { id: entry.id }) : ''}
      size="xl"
      centered
    >
      {entry ? (
        <Stack data-testid="audit-details">
          <Text size="sm">
            {formatDateTime(entry.at, timeZone, { seconds: true })} ({timeZone}) · {auditActionLabel(entry.action, t)} ·{' '}
            {entry.actor_name ?? t('audit.system')}
            {entry.ip ? ` · ${entry.ip}` : ''}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <JsonBlock label={t('audit.before')} value={entry.before} />
            <JsonBlock label={t('audit.after')} value={entry.after} />
          </SimpleGrid>
        </Stack>
      ) : null}
    </Modal>
  );
}
