import { Alert, Code, Group, Loader, Modal, Stack, Tabs, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import { useOutboxMessage } from '../api/outbox';
import { OutboxStatusBadge } from './OutboxTable';

/**
 * One message as it was rendered. The HTML part is shown in an iframe with an empty sandbox (no scripts, no forms, no
 * same origin: it cannot reach this page or its session) from srcdoc; a link in it opens nothing inside the frame, so
 * the text part, where every link stands on its own line, is there to copy a verification or reset link from.
 */
export function OutboxMessageModal({
  id,
  opened,
  timeZone,
  onClose,
  onExited,
}: {
  id: number | null;
  opened: boolean;
  timeZone: string;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  const message = useOutboxMessage(id);
  const m = message.data;
  let body;
  if (message.isError) {
    body = (
      <Alert color="red" role="alert" data-testid="outbox-message-error">
        {errorText(message.error, t('outbox.messageError'))}
      </Alert>
    );
  } else if (!m) {
    body = (
      <Group justify="center" py="xl" role="status" aria-live="polite">
        <Loader size="sm" />
        <Text>{t('outbox.loadingMessage')}</Text>
      </Group>
    );
  } else {
    body = (
      <Stack data-testid="outbox-message">
        <Stack gap={4}>
          <Text size="sm">
            <Text span c="dimmed">
              {t('outbox.columns.to')}:
            </Text>{' '}
            {m.to}
          </Text>
          <Text size="sm">
            <Text span c="dimmed">
              {t('outbox.columns.created')}:
            </Text>{' '}
            {formatDateTime(m.created_at, timeZone)}
            {m.sent_at ? ` · ${t('outbox.sentAt', { at: formatDateTime(m.sent_at, timeZone) })}` : ''}
          </Text>
          <Group gap="xs">
            <OutboxStatusBadge status={m.status} />
            <Text size="sm" c="dimmed">
              {t(`outbox.category.${m.category}`)} · {m.template} · {m.language} ·{' '}
              {t('outbox.attempts', { count: m.attempts })}
            </Text>
          </Group>
          {m.last_error ? (
            <Alert color="red" variant="light" title={t('outbox.lastError')} data-testid="outbox-last-error">
              {m.last_error}
            </Alert>
          ) : null}
        </Stack>
        <Tabs defaultValue="html" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="html">{t('outbox.htmlPart')}</Tabs.Tab>
            <Tabs.Tab value="text">{t('outbox.textPart')}</Tabs.Tab>
            <Tabs.Tab value="headers">{t('outbox.headers')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="html" pt="sm">
            <iframe
              title={t('outbox.htmlPreview', { subject: m.subject })}
              sandbox=""
              srcDoc={m.html_body}
              referrerPolicy="no-referrer"
              style={{ width: '100%', height: '60vh', border: '1px solid var(--mantine-color-default-border)' }}
              data-testid="outbox-html"
            />
          </Tabs.Panel>
          <Tabs.Panel value="text" pt="sm">
            <Code
              block
              style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: '60vh', overflow: 'auto' }}
              data-testid="outbox-text"
            >
              {m.text_body}
            </Code>
          </Tabs.Panel>
          <Tabs.Panel value="headers" pt="sm">
            {Object.keys(m.headers).length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('outbox.noHeaders')}
              </Text>
            ) : (
              <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="outbox-headers">
                {Object.entries(m.headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n')}
              </Code>
            )}
          </Tabs.Panel>
        </Tabs>
      </Stack>
    );
  }
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onExited}
      title={m?.subject ?? t('outbox.messageTitle')}
      size="xl"
      centered
    >
      {body}
    </Modal>
  );
}
