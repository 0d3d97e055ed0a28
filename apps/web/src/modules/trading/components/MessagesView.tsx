import { SUPPORT_MESSAGE_MAX, type ClientMessage } from '@brokerage/shared';
import { Alert, Badge, Box, Button, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { useSiteContacts } from '../../auth/api/email';
import { contactsLine } from '../../auth/contacts';
import { MessageComposer } from '../../ui/MessageComposer';
import { useMarkMessageRead, useMyMessages } from '../api';
import { supportErrorText, useSendSupportMessage } from '../support-api';
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

/** One message of the conversation: the client's own on the right, the broker's on the left. */
function MessageItem({ message, onRead }: { message: ClientMessage; onRead: () => void }) {
  const { t } = useTranslation('platform');
  const mine = message.direction === 'client';
  const unread = !mine && !message.is_read;
  const body = (
    <Paper
      withBorder
      p="sm"
      radius="md"
      maw="min(85%, 560px)"
      ml={mine ? 'auto' : 0}
      data-testid="my-message"
      data-direction={message.direction}
      data-read={message.is_read ? 'true' : 'false'}
      bg={mine ? 'var(--mantine-color-default-hover)' : unread ? 'var(--mantine-color-blue-light)' : undefined}
    >
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
        <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', flex: 1, minWidth: 0 }}>
          {message.content}
        </Text>
        {unread && (
          <Badge size="sm" style={{ flexShrink: 0 }}>
            {t('messages.new')}
          </Badge>
        )}
      </Group>
      <Group gap="xs" mt={4} justify={mine ? 'flex-end' : 'flex-start'}>
        <Text size="xs" c="dimmed">
          {mine ? t('messages.you') : (message.created_by_name ?? t('messages.support'))}
        </Text>
        <Text size="xs" c="dimmed">
          {messageTime(message.created_at)}
        </Text>
        {mine && (
          <Text size="xs" c={message.is_read ? 'teal' : 'dimmed'} data-testid="my-message-state">
            {message.is_read ? t('messages.readByStaff') : t('messages.delivered')}
          </Text>
        )}
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

/** The client's composer (the shared one): the text is trimmed, 1–4000 characters. */
function Composer() {
  const { t } = useTranslation('platform');
  const send = useSendSupportMessage();
  return (
    <MessageComposer
      max={SUPPORT_MESSAGE_MAX}
      texts={{
        label: t('messages.composerLabel'),
        placeholder: t('messages.composerPlaceholder'),
        keyboardHint: t('messages.keyboardHint'),
        send: t('messages.send'),
        blank: t('messages.errors.blank'),
        tooLong: t('messages.errors.tooLong', { max: SUPPORT_MESSAGE_MAX }),
        counter: (n) => t('messages.counter', { n, max: SUPPORT_MESSAGE_MAX }),
      }}
      pending={send.isPending}
      onSend={(text) =>
        send.mutateAsync({ text }).then(
          () => true,
          () => false,
        )
      }
      error={
        send.isError ? (
          <Alert color="red" role="alert" data-testid="support-error">
            {supportErrorText(send.error, t)}
          </Alert>
        ) : null
      }
      testIdPrefix="support"
    />
  );
}

/**
 * 'Поддержка' (issue 22 §6; §2.7, D10): the client's one conversation with the broker, oldest at the top, both
 * directions, live (message.new); the broker's messages are marked read by a click, the client's own say whether
 * staff read them. The site's contacts are offered too when the operator filled them.
 */
export function MessagesView({ onBack }: { onBack: () => void }) {
  const { t } = useTranslation('platform');
  const messages = useMyMessages(true);
  const markRead = useMarkMessageRead();
  const content = useSiteContacts();
  const contacts = contactsLine(content.data);
  const list = [...(messages.data ?? [])].reverse();
  const end = useRef<HTMLDivElement>(null);
  const newest = list.at(-1)?.id;
  useEffect(() => {
    if (newest !== undefined) end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [newest]);

  return (
    <Stack data-testid="messages-view">
      <Group justify="space-between">
        <Title order={3}>{t('messages.title')}</Title>
        <Button variant="default" onClick={onBack}>
          {t('history.back')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed" data-testid="support-intro">
        {t('messages.intro')}
        {contacts ? ` ${t('messages.contacts', { contacts })}` : null}
      </Text>
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
        <Box mah="55vh" style={{ overflowY: 'auto' }} data-testid="support-thread">
          <Stack gap="xs" p={2}>
            {list.map((m) => (
              <MessageItem key={m.id} message={m} onRead={() => markRead.mutate(m.id)} />
            ))}
            <div ref={end} />
          </Stack>
        </Box>
      )}
      <Composer />
    </Stack>
  );
}

/**
 * Issue 15 defect 10: how many staff messages the client has not read, for the badges on the account menu and its
 * messages entry. The same query as the messages view (refreshed by the live socket, polled while it is down). The
 * client's own messages to the broker never count.
 */
export function useUnreadMessages(enabled: boolean): number {
  const messages = useMyMessages(enabled);
  return enabled ? (messages.data ?? []).filter((m) => m.direction === 'staff' && !m.is_read).length : 0;
}
