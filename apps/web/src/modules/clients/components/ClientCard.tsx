import { can, displayPhone, type Client } from '@brokerage/shared';
import { Anchor, Button, Grid, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconChartCandle, IconEdit, IconKey, IconUserPlus } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { ConversationCard } from '../../inbox/components/ConversationCard';
import { ErrorBox } from '../../ui/ErrorBox';
import { Field } from '../../ui/Field';
import { PageHeader } from '../../ui/PageHeader';
import { useClient, useClientSummary } from '../api/client-card';
import { ChangePasswordModal, RegisterUserModal } from './ClientAccountModals';
import { ClientSourceCard } from './ClientSourceCard';
import { ClientStatsCard, ClientWithdrawalsCard } from './ClientStatsCard';
import { useManagerText } from './ClientsTable';
import { ClientStatusBadge } from './ClientStatusBadge';
import { CommentsCard } from './CommentsCard';
import { DepositsCard } from './DepositsCard';
import { DepositIntentsCard } from './DepositIntentsCard';
import { EditClientModal, useErrorWithDetail } from './EditClientModal';
import { IdentityAlert } from './IdentityAlert';
import { RemindersCard } from './RemindersCard';

const LIST_PATH = '/crm/clients';

function MainInfoCard({ client, timeZone }: { client: Client; timeZone: string }) {
  const { t } = useTranslation();
  const managerText = useManagerText();
  const dash = t('common.dash');
  return (
    <Paper withBorder radius="md" p="md" data-testid="client-main-info">
      <Title order={4} mb="md">
        {t('clients.card.mainInfo')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        <Field label={t('clients.card.fields.name')} testId="client-field-name">
          {client.name || dash}
        </Field>
        <Field label={t('clients.card.fields.email')} testId="client-field-email">
          {client.email || dash}
        </Field>
        <Field label={t('clients.card.fields.phone')} testId="client-field-phone">
          {/* Issue 27 item 8: the international form; what was typed is in the edit form. */}
          {displayPhone(client.phone, client.phone_e164) || dash}
        </Field>
        <Field label={t('clients.card.fields.country')} testId="client-field-country">
          {client.country || dash}
        </Field>
        <Field label={t('clients.card.fields.status')} testId="client-field-status">
          <ClientStatusBadge status={client.status} />
        </Field>
        <Field label={t('clients.card.fields.manager')} testId="client-field-manager">
          {managerText(client)}
        </Field>
        <Field label={t('clients.card.fields.campaign')} testId="client-field-campaign">
          {client.campaign || dash}
        </Field>
        <Field label={t('clients.card.fields.source')} testId="client-field-source">
          {client.source || dash}
        </Field>
        <Field label={t('clients.card.fields.createdAt')} testId="client-field-created">
          {formatDateTime(client.created_at, timeZone)}
        </Field>
        <Field label={t('clients.card.fields.updatedAt')} testId="client-field-updated">
          {formatDateTime(client.updated_at, timeZone)}
        </Field>
      </SimpleGrid>
      <Stack mt="md" gap={0}>
        <Field label={t('clients.card.fields.notes')} testId="client-field-notes" multiline>
          {client.notes || dash}
        </Field>
      </Stack>
    </Paper>
  );
}

function BackLink() {
  const { t } = useTranslation();
  return (
    <Anchor component={Link} to={LIST_PATH} size="sm" data-testid="client-back">
      <Group gap={4} component="span">
        <IconArrowLeft size={14} />
        {t('clients.card.backToList')}
      </Group>
    </Anchor>
  );
}

/**
 * §2.6 client card: header actions (trading account, change password or register user, edit), the main information,
 * deposits, comments, reminders, the withdrawal requests and the statistics sidebar.
 */
export function ClientCard() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const params = useParams();
  const id = Number(params.id);
  const validId = Number.isSafeInteger(id) && id > 0;
  const client = useClient(validId ? id : 0);
  const withDetail = useErrorWithDetail();
  const [editing, setEditing] = useState(false);
  const [modal, setModal] = useState<'register' | 'password' | null>(null);
  const summary = useClientSummary(validId ? id : 0);
  const navigate = useNavigate();
  const { t: tn } = useTranslation('notify');

  const notFound = !validId || (client.error instanceof ApiError && client.error.status === 404);
  if (notFound) {
    return (
      <Stack align="center" py="xl" data-testid="client-not-found">
        <Title order={3}>{t('clients.card.notFound')}</Title>
        <Button component={Link} to={LIST_PATH} variant="light" leftSection={<IconArrowLeft size={16} />}>
          {t('clients.card.backToList')}
        </Button>
      </Stack>
    );
  }
  if (client.isPending) {
    return (
      <Group justify="center" py="xl" role="status">
        <Loader size="sm" />
        <Text>{t('common.loading')}</Text>
      </Group>
    );
  }
  if (client.isError) {
    return (
      <Stack>
        <BackLink />
        <ErrorBox message={withDetail(client.error, t('clients.card.loadError'))} />
        <Group>
          <Button variant="light" onClick={() => void client.refetch()}>
            {t('common.retry')}
          </Button>
        </Group>
      </Stack>
    );
  }

  const data = client.data;
  // §2.6 'Trading account': the client's account, an alert when it has none, the accounts list when the lookup fails.
  const openTradingAccount = () => {
    if (summary.isError) return void navigate('/crm/trading-accounts');
    const accountId = summary.data?.trading_account_id;
    if (accountId) return void navigate(`/crm/trading-accounts/${accountId}`);
    notifications.show({ color: 'yellow', message: tn('card.noTradingAccount') });
  };
  return (
    <Stack gap="md" data-testid="client-card" data-client-id={data.id}>
      <BackLink />
      <PageHeader
        title={data.name || t('common.dash')}
        subtitle={t('clients.card.clientId', { id: data.id })}
        actions={
          <Group gap="xs">
            {can(user.role, 'trading.manage') ? (
              <Button
                variant="light"
                leftSection={<IconChartCandle size={16} />}
                onClick={openTradingAccount}
                disabled={summary.isPending}
                data-testid="client-trading-account"
              >
                {tn('card.tradingAccount')}
              </Button>
            ) : null}
            {data.user_id ? (
              <Button
                variant="light"
                leftSection={<IconKey size={16} />}
                onClick={() => setModal('password')}
                data-testid="client-change-password"
              >
                {tn('card.changePassword')}
              </Button>
            ) : (
              <Button
                variant="light"
                color="teal"
                leftSection={<IconUserPlus size={16} />}
                onClick={() => setModal('register')}
                data-testid="client-register-user"
              >
                {tn('card.registerUser')}
              </Button>
            )}
            <Button leftSection={<IconEdit size={16} />} onClick={() => setEditing(true)} data-testid="client-edit">
              {t('clients.card.edit')}
            </Button>
          </Group>
        }
      />
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Stack gap="md">
            <IdentityAlert client={data} />
            <MainInfoCard client={data} timeZone={user.business_timezone} />
            <DepositsCard clientId={data.id} timeZone={user.business_timezone} />
            <DepositIntentsCard clientId={data.id} timeZone={user.business_timezone} />
            <SimpleGrid cols={{ base: 1, xl: 2 }} spacing="md">
              <CommentsCard clientId={data.id} timeZone={user.business_timezone} />
              <RemindersCard clientId={data.id} timeZone={user.business_timezone} />
            </SimpleGrid>
            <ConversationCard client={data} timeZone={user.business_timezone} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Stack gap="md">
            <ClientStatsCard summary={summary.data} loading={summary.isPending} failed={summary.isError} />
            <ClientSourceCard client={data} />
            <ClientWithdrawalsCard
              summary={summary.data}
              timeZone={user.business_timezone}
              canOpenAll={can(user.role, 'finance.view')}
            />
          </Stack>
        </Grid.Col>
      </Grid>
      <RegisterUserModal client={data} opened={modal === 'register'} onClose={() => setModal(null)} />
      {data.user_id ? (
        <ChangePasswordModal clientId={data.id} opened={modal === 'password'} onClose={() => setModal(null)} />
      ) : null}
      <EditClientModal
        client={data}
        opened={editing}
        canChangeManager={can(user.role, 'clients.change_manager')}
        onClose={() => setEditing(false)}
      />
    </Stack>
  );
}
