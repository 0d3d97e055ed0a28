import { can, type TradeVoidRequest } from '@brokerage/shared';
import { Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatAge, formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { DataTable } from '../../ui/DataTable';
import { Field } from '../../ui/Field';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { TablePager } from '../../ui/TablePager';
import { useVoidRequests } from '../api/void-requests';
import { useIsPhone } from '../../ui/media';
import { TradeDirection } from './TradeDirection';
import { VoidRequestActionModal, type VoidTarget } from './VoidRequestActionModal';

/**
 * Confirm for finance.approve users who did not ask, Reject for them too; the requester's own waiting request offers
 * Withdraw instead (trading.manage, which asking took).
 */
function VoidActions({ request, onAct }: { request: TradeVoidRequest; onAct: (target: VoidTarget) => void }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  // Whether this person may be the second one is the server's answer (D20), not restated here.
  const own = request.confirm_blocked === 'void_request_own';
  if (own && can(user.role, 'trading.manage')) {
    return (
      <Group gap={6} wrap="nowrap">
        <Text size="xs" c="dimmed" data-testid="void-request-own">
          {t('voids.own')}
        </Text>
        <Button
          size="xs"
          color="red"
          variant="light"
          onClick={() => onAct({ request, action: 'withdraw' })}
          data-testid="void-request-withdraw"
        >
          {t('voids.withdraw')}
        </Button>
      </Group>
    );
  }
  if (!can(user.role, 'finance.approve')) return <Text size="sm">{t('common.dash')}</Text>;
  return (
    <Group gap={6} wrap="nowrap">
      {own ? (
        <Text size="xs" c="dimmed" data-testid="void-request-own">
          {t('voids.own')}
        </Text>
      ) : (
        <Button
          size="xs"
          color="green"
          onClick={() => onAct({ request, action: 'confirm' })}
          data-testid="void-request-confirm"
        >
          {t('voids.confirm')}
        </Button>
      )}
      <Button
        size="xs"
        color="red"
        variant="light"
        onClick={() => onAct({ request, action: 'reject' })}
        data-testid="void-request-reject"
      >
        {t('voids.reject')}
      </Button>
    </Group>
  );
}

/**
 * Issue 20 finding 11, in the 'Подтверждения' tab beside the manual credits: the voids of open trades of the clients in
 * scope that wait for a second staff member, oldest first — client, trade, stake, the requester's reason, who asked and
 * how long ago; Confirm (after a dialog) and Reject (with a reason), or Withdraw for its requester. Cards on phones.
 */
export function VoidRequests() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const isPhone = useIsPhone();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [target, setTarget] = useState<VoidTarget>(null);
  const voids = useVoidRequests({ status: 'pending', page, perPage });
  const items = voids.data?.items ?? [];
  const dash = t('common.dash');
  const clientLink = (request: TradeVoidRequest) => (
    <Text size="sm" fw={500} component={Link} to={`/crm/clients/${request.client_id}`}>
      {request.client_name || dash}
    </Text>
  );
  const trade = (request: TradeVoidRequest) => (
    <>
      <Group gap="xs" wrap="nowrap">
        <Text size="sm" fw={600} component={Link} to={`/crm/trading-accounts/${request.account_id}`}>
          {t('voids.tradeLine', { id: request.trade_id, asset: request.asset })}
        </Text>
        <TradeDirection direction={request.direction} />
      </Group>
      <Text size="xs" c="dimmed">
        {t('voids.expires', { time: formatDateTime(request.expires_at, user.business_timezone, { seconds: true }) })}
      </Text>
    </>
  );
  const age = (request: TradeVoidRequest) => (
    <Text size="sm" title={formatDateTime(request.requested_at, user.business_timezone)}>
      {formatAge(request.age_seconds, t)}
    </Text>
  );

  return (
    <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} data-testid="void-requests">
      <Title order={4} mb={4}>
        {t('voids.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('voids.intro')}
      </Text>
      {voids.isError ? (
        <LoadErrorAlert
          title={t('voids.loadError')}
          error={voids.error}
          onRetry={() => void voids.refetch()}
          testId="voids-error"
        />
      ) : null}
      {isPhone ? (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="void-request-cards">
          {voids.isPending ? <Text ta="center">{t('voids.loading')}</Text> : null}
          {!voids.isPending && !voids.isError && items.length === 0 ? (
            <Text ta="center" c="dimmed" py="md" data-testid="voids-empty">
              {t('voids.empty')}
            </Text>
          ) : null}
          {items.map((request) => (
            <Paper
              component="li"
              key={request.id}
              withBorder
              radius="md"
              p="sm"
              data-testid="void-request-row"
              data-void-request-id={request.id}
            >
              <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
                <div style={{ minWidth: 0 }}>
                  {clientLink(request)}
                  {trade(request)}
                </div>
                <Text fw={700} style={{ whiteSpace: 'nowrap' }} data-testid="void-request-amount">
                  {formatMoney(request.amount)}
                </Text>
              </Group>
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} mb="sm">
                <Field label={t('voids.columns.requester')}>{request.requested_by_name}</Field>
                <Field label={t('voids.columns.age')}>{age(request)}</Field>
                <Field label={t('voids.columns.reason')} wide>
                  {request.reason}
                </Field>
              </SimpleGrid>
              <VoidActions request={request} onAct={setTarget} />
            </Paper>
          ))}
        </Stack>
      ) : (
        <DataTable
          items={items}
          rowKey={(request) => request.id}
          rowProps={(request) => ({ 'data-testid': 'void-request-row', 'data-void-request-id': request.id })}
          minWidth={900}
          testId="void-request-table"
          loading={voids.isPending}
          loadingText={t('voids.loading')}
          empty={!voids.isPending && !voids.isError && items.length === 0}
          emptyText={t('voids.empty')}
          emptyTestId="voids-empty"
          columns={[
            { key: 'client', header: t('voids.columns.client'), cell: clientLink },
            { key: 'trade', header: t('voids.columns.trade'), cell: trade },
            {
              key: 'amount',
              header: t('voids.columns.amount'),
              align: 'right',
              cell: (request) => (
                <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }} data-testid="void-request-amount">
                  {formatMoney(request.amount)}
                </Text>
              ),
            },
            {
              key: 'reason',
              header: t('voids.columns.reason'),
              cell: (request) => (
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {request.reason}
                </Text>
              ),
            },
            {
              key: 'requester',
              header: t('voids.columns.requester'),
              cell: (request) => <Text size="sm">{request.requested_by_name}</Text>,
            },
            { key: 'age', header: t('voids.columns.age'), cell: age },
            {
              key: 'actions',
              header: t('voids.columns.actions'),
              cell: (request) => <VoidActions request={request} onAct={setTarget} />,
            },
          ]}
        />
      )}
      {/* A second pager on the tab only when the voids need one. */}
      {(voids.data?.total ?? 0) > perPage || page > 1 ? (
        <TablePager
          page={page}
          perPage={perPage}
          total={voids.data?.total ?? 0}
          onPageChange={setPage}
          onPerPageChange={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
      ) : null}
      <VoidRequestActionModal target={target} onClose={() => setTarget(null)} />
    </Paper>
  );
}
