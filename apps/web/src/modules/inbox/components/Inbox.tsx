import type { InboxConversation } from '@brokerage/shared';
import { Anchor, Badge, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { DataTable } from '../../ui/DataTable';
import { PageHeader } from '../../ui/PageHeader';
import { useClientMessageLiveRefresh, useInbox } from '../api/inbox';

const conversationPath = (c: InboxConversation) => `/crm/clients/${c.client_id}#conversation`;

/**
 * 'Входящие' (/crm/inbox, issue 22 §6): the conversations of the clients in the viewer's scope (D5) with messages no
 * staff member has read, newest first, with the client's manager. A row opens the client card's conversation; new
 * client messages arrive live (the bell's notification).
 */
export function Inbox() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const inbox = useInbox();
  useClientMessageLiveRefresh();
  const items = inbox.data ?? [];
  const zone = user.business_timezone;
  return (
    <>
      <PageHeader
        title={t('inbox.title')}
        subtitle={t('inbox.subtitle')}
        titleAside={
          items.length > 0 ? (
            <Badge color="red" variant="filled" data-testid="inbox-count">
              {items.length}
            </Badge>
          ) : null
        }
      />
      <Paper withBorder p="md">
        <DataTable
          items={items}
          rowKey={(c) => c.client_id}
          rowProps={(c) => ({
            'data-testid': 'inbox-row',
            'data-client-id': c.client_id,
            style: { cursor: 'pointer' },
            onClick: () => void navigate(conversationPath(c)),
          })}
          minWidth={760}
          testId="inbox-table"
          loading={inbox.isPending}
          loadingText={t('inbox.loading')}
          empty={!inbox.isPending && !inbox.isError && items.length === 0}
          emptyText={t('inbox.empty')}
          emptyTestId="inbox-empty"
          error={
            inbox.isError
              ? {
                  title: t('inbox.loadError'),
                  error: inbox.error,
                  onRetry: () => void inbox.refetch(),
                  testId: 'inbox-error',
                }
              : null
          }
          cards
          cardsTestId="inbox-cards"
          columns={[
            {
              key: 'client',
              header: t('inbox.columns.client'),
              card: 'title',
              cell: (c) => (
                <Anchor
                  component={Link}
                  to={conversationPath(c)}
                  fw={600}
                  aria-label={t('inbox.open', { client: c.client_name })}
                  onClick={(event) => event.stopPropagation()}
                >
                  {c.client_name}
                </Anchor>
              ),
            },
            {
              key: 'unread',
              header: t('inbox.columns.unread'),
              card: 'aside',
              cell: (c) => (
                <Badge color="orange" variant="light" data-testid="inbox-unread">
                  {c.unread_count}
                </Badge>
              ),
            },
            {
              key: 'last',
              header: t('inbox.columns.last'),
              card: 'wide',
              cell: (c) => (
                <Text size="sm" lineClamp={2} maw={420} style={{ overflowWrap: 'anywhere' }}>
                  {c.last_text}
                </Text>
              ),
            },
            {
              key: 'manager',
              header: t('inbox.columns.manager'),
              cell: (c) =>
                c.manager_id ? (
                  (c.manager_name ?? t('common.dash'))
                ) : (
                  <Text size="sm" c="dimmed">
                    {t('inbox.noManager')}
                  </Text>
                ),
            },
            {
              key: 'at',
              header: t('inbox.columns.lastAt', { zone }),
              cardLabel: t('inbox.columns.lastAt', { zone }),
              cell: (c) => formatDateTime(c.last_message_at, zone),
            },
          ]}
        />
      </Paper>
    </>
  );
}
