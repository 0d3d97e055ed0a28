import type { ClientMessage } from '@brokerage/shared';
import { Alert, Badge, Button, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { useMarkMessageRead, useMyMessages } from '../api';
export { unreadBadgeText } from '../rules';

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** §2.7: HH:MM when under 24 h old, otherwise the date. */
function messageTime(iso: string): string {
  const at = new Date(iso);
  if (Date.now() - at.getTime() < 24 * 3600 * 1000) {
    return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  }
  return formatDate(at, LOCAL_ZONE);
}

function MessageItem({ message, onRead }: { message: ClientMessage; onRead: () => void }) {
  const { t } = useTranslation('platform');
  const unread = !message.is_read;
  const body = (
    <Paper
      withBorder
      p="sm"
      data-testid="my-message"
      data-read={message.is_read ? 'true' : 'false'}
      bg={unread ? 'var(--mantine-color-blue-light)' : undefined}
    >
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Text style={{ whiteSpace: 'pre-wrap' }}>{message.content}</Text>
        {unread && <Badge size="sm">{t('messages.new')}</Badge>}
      </Group>
      <Group gap="xs" mt={4}>
        <Text size="xs" c="dimmed">
          {message.created_by_name ?? t('messages.support')}
        </Text>
        <Text size="xs" c="dimmed">
          {messageTime(message.created_at)}
        </Text>
      </Group>
    </Paper>
  );
  if (!unread) return body;
  return (
    <UnstyledButton onClick={onRead} aria-label={t('messages.markRead')} style={{ display: 'block', width: '100%' }}>
      {body}
    </UnstyledButton>
  );
}

/** 'Мои сообщения' (§2.7, D10): the client's messages from staff, live (message.new), read by a click. */
export function MessagesView({ onBack }: { onBack: () => void }) {
  const { t } = useTranslation('platform');
  const messages = useMyMessages(true);
  const markRead = useMarkMessageRead();
  const list = messages.data ?? [];
  return (
    <Stack data-testid="messages-view">
      <Group justify="space-between">
        <Title order={3}>{t('messages.title')}</Title>
        <Button variant="default" onClick={onBack}>
          {t('history.back')}
        </Button>
      </Group>
      {messages.isError ? (
        <Alert color="red" title={messages.error instanceof ApiError ? t('messages.loadFailed') : t('messages.error')}>
          <Button size="xs" variant="light" onClick={() => void messages.refetch()}>
            {t('messages.retry')}
          </Button>
        </Alert>
      ) : messages.isPending ? (
        <Text c="dimmed">{t('common.loading')}</Text>
      ) : list.length === 0 ? (
        <Text c="dimmed" data-testid="messages-empty">
          {t('messages.empty')}
        </Text>
      ) : (
        <Stack gap="xs">
          {list.map((m) => (
            <MessageItem key={m.id} message={m} onRead={() => markRead.mutate(m.id)} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/**
 * Issue 15 defect 10: how many staff messages the client has not read, for the badges on the account menu and its
 * messages entry. The same query as the messages view (refreshed by the live socket, polled while it is down).
 */
export function useUnreadMessages(enabled: boolean): number {
  const messages = useMyMessages(enabled);
  return enabled ? (messages.data ?? []).filter((m) => !m.is_read).length : 0;
}
