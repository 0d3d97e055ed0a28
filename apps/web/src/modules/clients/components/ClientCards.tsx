import { Group, Loader, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { Field } from '../../ui/Field';
import { ClientStatusBadge } from './ClientStatusBadge';
import { IdentityBadge } from './IdentityAlert';
import { clientCardPath, useManagerText, type ClientsViewProps } from './ClientsTable';

/** §2.5 on phones: each client as a card instead of the wide table. */
export function ClientCards({ items, loading, showManager, timeZone }: ClientsViewProps) {
  const { t } = useTranslation();
  const managerText = useManagerText();
  const navigate = useNavigate();
  const dash = t('common.dash');

  if (loading && items.length === 0) {
    return (
      <Group justify="center" gap="sm" py="md" role="status">
        <Loader size="sm" />
        <Text>{t('clients.loading')}</Text>
      </Group>
    );
  }
  if (items.length === 0) {
    return (
      <Text ta="center" c="dimmed" py="md" data-testid="clients-empty">
        {t('clients.empty')}
      </Text>
    );
  }
  return (
    <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="clients-cards">
      {items.map((client) => (
        <Paper
          component="li"
          key={client.id}
          withBorder
          radius="md"
          p="sm"
          data-testid="client-row"
          data-client-id={client.id}
          tabIndex={0}
          aria-label={t('clients.openCard', { name: client.name || client.id })}
          style={{ cursor: 'pointer' }}
          onClick={() => void navigate(clientCardPath(client.id))}
          onKeyDown={(event) => {
            if (event.key === 'Enter') void navigate(clientCardPath(client.id));
          }}
        >
          <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
            <div style={{ minWidth: 0 }}>
              <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                {client.name || dash}
              </Text>
              <Text size="xs" c="dimmed" ff="monospace">
                {t('clients.idLabel', { id: client.id })}
              </Text>
              <IdentityBadge client={client} />
            </div>
            <ClientStatusBadge status={client.status} />
          </Group>
          <SimpleGrid cols={2} spacing="xs" verticalSpacing={6}>
            <Field label={t('clients.columns.email')} wide>
              {client.email || dash}
            </Field>
            <Field label={t('clients.columns.phone')}>{client.phone || dash}</Field>
            <Field label={t('clients.columns.country')}>{client.country || dash}</Field>
            <Field label={t('clients.columns.campaign')}>{client.campaign || dash}</Field>
            <Field label={t('clients.columns.balance')}>{formatMoney(client.total_deposits)}</Field>
            {showManager ? <Field label={t('clients.columns.manager')}>{managerText(client)}</Field> : null}
            <Field label={t('clients.columns.createdAt')}>{formatDateTime(client.created_at, timeZone)}</Field>
            <Field label={t('clients.columns.lastComment')}>
              {client.last_comment_date ? formatDateTime(client.last_comment_date, timeZone) : dash}
            </Field>
          </SimpleGrid>
        </Paper>
      ))}
    </Stack>
  );
}
