import type { StaffClientMessage } from '@brokerage/shared';
import { Badge, Group, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';

/** One message: the client's on the left, staff replies on the right, each with its read state. */
export function ConversationMessage({ message, timeZone }: { message: StaffClientMessage; timeZone: string }) {
  const { t } = useTranslation();
  const fromClient = message.direction === 'client';
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      maw="min(88%, 640px)"
      ml={fromClient ? 0 : 'auto'}
      bg={fromClient ? undefined : 'var(--mantine-color-default-hover)'}
      data-testid="conversation-message"
      data-direction={message.direction}
      data-read={message.read ? 'true' : 'false'}
    >
      <Group justify="space-between" wrap="wrap" gap="xs" mb={4}>
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {message.created_by_name || (fromClient ? t('inbox.conversation.fromClient') : t('common.dash'))}
          </Text>
          {fromClient ? (
            <Badge size="xs" variant="outline">
              {t('inbox.conversation.fromClient')}
            </Badge>
          ) : null}
          <Text size="xs" c="dimmed">
            {formatDateTime(message.created_at, timeZone)}
          </Text>
        </Group>
        {fromClient ? (
          message.read ? null : (
            <Badge color="orange" variant="light" size="sm">
              {t('inbox.conversation.newFromClient')}
            </Badge>
          )
        ) : (
          <Badge
            color={message.read ? 'teal' : 'orange'}
            variant="light"
            size="sm"
            title={message.read ? t('inbox.conversation.readByClient') : t('inbox.conversation.unreadByClient')}
            data-testid="client-message-read"
          >
            {message.read ? t('tradingPlatform.messages.read') : t('tradingPlatform.messages.unread')}
          </Badge>
        )}
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {message.content}
      </Text>
    </Paper>
  );
}
