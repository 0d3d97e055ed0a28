import { can, CLIENT_MESSAGE_MAX, staffClientMessagesResponseSchema, type Client } from '@brokerage/shared';
import { Box, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { apiCall, errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { useSendClientMessage } from '../../trading-platform/api/trading-platform';
import { ErrorBox } from '../../ui/ErrorBox';
import { MessageComposer } from '../../ui/MessageComposer';
import { ConversationMessage } from './ConversationMessage';
import { useClientMessageLiveRefresh, useMarkConversationRead } from '../api/inbox';
import { inboxKeys } from '../keys';

/** The conversation, oldest first (under the prefix the trading platform's send makes stale). */
function useConversation(clientId: number, enabled: boolean) {
  return useQuery({
    queryKey: inboxKeys.conversation(clientId),
    queryFn: ({ signal }) =>
      apiCall(staffClientMessagesResponseSchema, `/api/client-messages/${clientId}?limit=200`, { signal }),
    select: (items) => [...items].reverse(),
    enabled,
  });
}

/** The staff's reply (the shared composer): 1–2000 characters; a reply marks the client's messages read. */
function ReplyBox({ clientId }: { clientId: number }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const send = useSendClientMessage();
  return (
    <MessageComposer
      max={CLIENT_MESSAGE_MAX}
      texts={{
        label: t('inbox.conversation.reply'),
        placeholder: t('inbox.conversation.replyPlaceholder'),
        keyboardHint: t('inbox.conversation.keyboardHint'),
        send: t('inbox.conversation.send'),
        blank: t('inbox.conversation.blank'),
        tooLong: t('inbox.conversation.tooLong', { max: CLIENT_MESSAGE_MAX }),
        counter: (n) => t('inbox.conversation.counter', { n, max: CLIENT_MESSAGE_MAX }),
      }}
      pending={send.isPending}
      onSend={(content) =>
        send.mutateAsync({ client_id: clientId, content }).then(
          () => {
            notifications.show({ color: 'green', message: t('inbox.conversation.sent') });
            void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
            return true;
          },
          () => false,
        )
      }
      error={send.isError ? <ErrorBox message={errorText(send.error, t('inbox.conversation.sendError'))} /> : null}
      testIdPrefix="conversation"
    />
  );
}

/**
 * The client card's conversation (issue 22 §6): both directions, oldest first; opening it marks the client's messages
 * read; the client's manager, and messages.send's roles, reply (§2.15; also e-mailed to the client by the server).
 */
export function ConversationCard({ client, timeZone }: { client: Client; timeZone: string }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const allowed = can(user.role, 'messages.send') || client.assigned_manager === user.id;
  const registered = client.user_id !== null;
  const conversation = useConversation(client.id, allowed && registered);
  const markRead = useMarkConversationRead();
  useClientMessageLiveRefresh();
  const items = conversation.data ?? [];
  const unread = items.some((m) => m.direction === 'client' && !m.read);
  const { mutate: markConversationRead } = markRead;
  useEffect(() => {
    if (unread) markConversationRead(client.id);
  }, [unread, client.id, markConversationRead]);
  const end = useRef<HTMLDivElement>(null);
  const card = useRef<HTMLDivElement>(null);
  const newest = items.at(-1)?.id;
  useEffect(() => {
    if (newest !== undefined) end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [newest]);
  // Opened from the inbox (…#conversation): the card is brought into view once it has its messages.
  const { hash } = useLocation();
  const loaded = !conversation.isPending;
  useEffect(() => {
    if (hash === '#conversation' && loaded) card.current?.scrollIntoView?.({ block: 'start' });
  }, [hash, loaded]);

  let body;
  if (!registered) {
    body = <Text c="dimmed">{t('inbox.conversation.notRegistered')}</Text>;
  } else if (!allowed) {
    body = <Text c="dimmed">{t('inbox.conversation.denied')}</Text>;
  } else if (conversation.isError) {
    body = <ErrorBox message={errorText(conversation.error, t('inbox.conversation.loadError'))} />;
  } else if (conversation.isPending) {
    body = (
      <Group gap="sm" role="status">
        <Loader size="sm" />
        <Text size="sm">{t('inbox.conversation.loading')}</Text>
      </Group>
    );
  } else {
    body = (
      <Stack gap="sm">
        {items.length === 0 ? (
          <Text c="dimmed" size="sm" data-testid="conversation-empty">
            {t('inbox.conversation.empty')}
          </Text>
        ) : (
          <Box mah={440} style={{ overflowY: 'auto' }} data-testid="conversation-thread">
            <Stack gap="xs" p={2}>
              {items.map((m) => (
                <ConversationMessage key={m.id} message={m} timeZone={timeZone} />
              ))}
              <div ref={end} />
            </Stack>
          </Box>
        )}
        <ReplyBox clientId={client.id} />
      </Stack>
    );
  }
  return (
    <Paper withBorder p="md" id="conversation" ref={card} data-testid="conversation-card">
      <Stack gap="sm">
        <div>
          <Title order={4}>{t('inbox.conversation.title')}</Title>
          <Text size="sm" c="dimmed">
            {t('inbox.conversation.hint')}
          </Text>
        </div>
        {body}
      </Stack>
    </Paper>
  );
}
