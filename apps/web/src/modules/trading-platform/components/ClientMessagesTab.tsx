import { CLIENT_MESSAGE_MAX, can, type Client } from '@brokerage/shared';
import { Alert, Button, Divider, Group, Loader, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLock, IconSearch, IconSend } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { ConversationMessage } from '../../inbox/components/ConversationMessage';
import { roleLabelKey } from '../../ui/role-label';
import { useClientMessages, useClientSearch, useSendClientMessage } from '../api/trading-platform';

function clientOptionLabel(client: Client, t: TFunction): string {
  const dash = t('common.dash');
  return t('tradingPlatform.messages.clientOption', {
    id: client.id,
    name: client.name || dash,
    email: client.email || dash,
    phone: client.phone || dash,
  });
}

function MessagesDenied() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  return (
    <Alert color="red" variant="light" icon={<IconLock size={18} />} data-testid="messages-denied">
      <Text size="sm">
        <Text span fw={600}>
          {t('tradingPlatform.messages.deniedTitle')}
        </Text>{' '}
        {t('tradingPlatform.messages.deniedText')}
      </Text>
      <Text size="sm" mt={4}>
        {t('tradingPlatform.messages.yourRole', { role: t(roleLabelKey(user.role)) })}
      </Text>
    </Alert>
  );
}

function MessageHistory({ clientId, timeZone }: { clientId: number | null; timeZone: string }) {
  const { t } = useTranslation();
  const messages = useClientMessages(clientId);
  let body;
  if (clientId === null) {
    body = (
      <Text c="dimmed" size="sm">
        {t('tradingPlatform.messages.chooseClient')}
      </Text>
    );
  } else if (messages.isPending) {
    body = (
      <Group gap="sm" role="status">
        <Loader size="sm" />
        <Text size="sm">{t('tradingPlatform.messages.loading')}</Text>
      </Group>
    );
  } else if (!messages.data || messages.data.length === 0) {
    body = (
      <Text c="dimmed" size="sm" data-testid="messages-empty">
        {t('tradingPlatform.messages.historyEmpty')}
      </Text>
    );
  } else {
    body = (
      <Stack gap="sm">
        {messages.data.map((message) => (
          // Issue 22 §6: both directions, the client's messages marked as the client's.
          <div key={message.id} data-testid="client-message" data-direction={message.direction}>
            <ConversationMessage message={message} timeZone={timeZone} />
          </div>
        ))}
      </Stack>
    );
  }
  return (
    <Stack gap="sm">
      <Title order={5}>{t('tradingPlatform.messages.history')}</Title>
      {body}
    </Stack>
  );
}

function MessagesForm() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [clientId, setClientId] = useState<number | null>(null);
  const [chosen, setChosen] = useState<Client | null>(null);
  const [text, setText] = useState('');
  const clients = useClientSearch(search);
  const send = useSendClientMessage();

  // The chosen client stays offered while another search is shown.
  const found = clients.data ?? [];
  const options = [...(chosen && !found.some((c) => c.id === chosen.id) ? [chosen] : []), ...found];
  const runSearch = () => setSearch(searchText.trim());
  // §5: Send is disabled while sending or while the client or the text is missing, and says why.
  const missing = clientId === null || !text.trim();

  const submit = () => {
    const content = text.trim();
    if (clientId === null || !content) return;
    send.mutate(
      { client_id: clientId, content },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('tradingPlatform.messages.sent') });
          // Cleared only if it still holds what was sent: what the user has typed since is kept.
          setText((current) => (current.trim() === content ? '' : current));
        },
        onError: (error) => {
          console.error('Client message failed', error);
          notifications.show({ color: 'red', message: t('tradingPlatform.messages.sendError') });
        },
      },
    );
  };

  return (
    <Stack gap="md">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label={t('tradingPlatform.messages.search')}
          placeholder={t('tradingPlatform.messages.searchPlaceholder')}
          leftSection={<IconSearch size={16} />}
          value={searchText}
          maxLength={120}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setSearchText(value);
            // §2.15: an empty search resets the list.
            if (value.trim() === '') setSearch('');
          }}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              runSearch();
            }
          }}
          style={{ flex: '1 1 260px' }}
          data-testid="messages-client-search"
        />
        <Button variant="default" onClick={runSearch} loading={clients.isFetching} data-testid="messages-search-button">
          {t('tradingPlatform.messages.searchButton')}
        </Button>
      </Group>
      {clients.isError ? (
        <Alert color="red">{errorText(clients.error, t('tradingPlatform.messages.clientsError'))}</Alert>
      ) : null}
      <Select
        label={t('tradingPlatform.messages.client')}
        placeholder={
          clients.isPending
            ? t('tradingPlatform.messages.clientsLoading')
            : t('tradingPlatform.messages.clientPlaceholder')
        }
        data={options.map((client) => ({ value: String(client.id), label: clientOptionLabel(client, t) }))}
        value={clientId === null ? null : String(clientId)}
        onChange={(value) => {
          const id = value === null ? null : Number(value);
          setClientId(id);
          setChosen(options.find((c) => c.id === id) ?? null);
        }}
        nothingFoundMessage={t('tradingPlatform.messages.noClients')}
        searchable
        clearable
        maxDropdownHeight={320}
        comboboxProps={{ width: 'target' }}
        data-testid="messages-client-select"
      />
      <Textarea
        label={t('tradingPlatform.messages.message')}
        placeholder={t('tradingPlatform.messages.messagePlaceholder')}
        autosize
        maxRows={8}
        minRows={4}
        maxLength={CLIENT_MESSAGE_MAX}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        data-testid="messages-text"
      />
      <Group justify="flex-end" gap="sm">
        {missing ? (
          <Text size="sm" c="dimmed" data-testid="messages-required">
            {t('tradingPlatform.messages.required')}
          </Text>
        ) : null}
        <Button
          leftSection={<IconSend size={16} />}
          onClick={submit}
          loading={send.isPending}
          disabled={send.isPending || missing}
          data-testid="messages-send"
        >
          {t('tradingPlatform.messages.send')}
        </Button>
      </Group>
      <Divider />
      <MessageHistory clientId={clientId} timeZone={user.business_timezone} />
    </Stack>
  );
}

/** §2.15 tab 'Сообщения клиенту': superadmin, admin and team_lead_retention send; other roles read the refusal. */
export function ClientMessagesTab() {
  const user = useCurrentUser();
  if (!can(user.role, 'messages.send')) return <MessagesDenied />;
  return <MessagesForm />;
}
