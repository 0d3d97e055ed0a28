import { WITHDRAW_STATUSES, can, type StaffWithdrawRequest, type WithdrawStatus } from '@brokerage/shared';
import { Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconAlertCircle,
  IconCash,
  IconClock,
  IconFilterOff,
  IconListCheck,
  IconSearch,
  IconUsers,
} from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { useIsPhone } from '../../ui/media';
import { useStaffOptions } from '../../staff/api/staff';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { SummaryCards } from '../../ui/SummaryCards';
import { TablePager } from '../../ui/TablePager';
import { DataTable } from '../../ui/DataTable';
import { Field } from '../../ui/Field';
import {
  EMPTY_WITHDRAWAL_FILTERS,
  uniqueById,
  useWithdrawalRequests,
  type WithdrawalFilters,
} from '../api/withdrawal-requests';
import { useManualCredits } from '../api/manual-credits';
import { CardCell } from './CardCell';
import { Confirmations } from './Confirmations';
import { useVoidRequests } from '../../trading-admin/api/void-requests';
import { VoidRequests } from '../../trading-admin/components/VoidRequests';
import { ProcessWithdrawalModal, type WithdrawalAction } from './ProcessWithdrawalModal';

const STATUS_COLORS: Record<string, string> = {
  pending: 'yellow',
  awaiting_second_approval: 'orange',
  approved: 'green',
  rejected: 'red',
  completed: 'blue',
  processing: 'cyan',
};

/** §4: the known statuses by their label; any other value as it is, grey, with an alert icon. */
function WithdrawalStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation('clientBase');
  const known = status in STATUS_COLORS;
  return (
    <Badge
      color={STATUS_COLORS[status] ?? 'gray'}
      variant="light"
      leftSection={known ? undefined : <IconAlertCircle size={12} />}
      styles={{ root: { overflow: 'visible' }, label: { overflow: 'visible' } }}
      data-testid="withdrawal-status"
      data-status={status}
    >
      {known
        ? t(`withdrawals.statuses.${status as keyof typeof STATUS_COLORS}` as 'withdrawals.statuses.pending')
        : status}
    </Badge>
  );
}

/** §9: withdrawal totals in the ru-RU format as USD. */
const usdRu = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'USD' });

const grow = (basis: number) => ({ flex: `1 1 ${basis}px` });

type Target = { request: StaffWithdrawRequest; action: WithdrawalAction } | null;

/**
 * Approve and Reject as the server decided them for this viewer (D20, issue 20 finding 4): Approve only when they may
 * give it, otherwise why not in words (never a button that can only fail); Reject while the request is open.
 */
function RequestActions({ request, onAct }: { request: StaffWithdrawRequest; onAct: (target: Target) => void }) {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  if (!request.can_approve && !request.can_reject) {
    return (
      <Text size="sm" c="dimmed">
        {tr('common.dash')}
      </Text>
    );
  }
  const second = request.status === 'awaiting_second_approval';
  return (
    <Stack gap={4} align="flex-start">
      <Group gap={6} wrap="nowrap">
        {request.can_approve ? (
          <Button
            size="xs"
            color="green"
            onClick={() => onAct({ request, action: 'approve' })}
            data-testid="withdrawal-approve"
          >
            {t(second ? 'withdrawals.approveSecond' : 'withdrawals.approve')}
          </Button>
        ) : null}
        {request.can_reject ? (
          <Button
            size="xs"
            color="red"
            variant="light"
            onClick={() => onAct({ request, action: 'reject' })}
            data-testid="withdrawal-reject"
          >
            {t('withdrawals.reject')}
          </Button>
        ) : null}
      </Group>
      {request.approve_blocked ? (
        <Text
          size="xs"
          c="dimmed"
          maw={180}
          data-testid="withdrawal-approve-blocked"
          data-code={request.approve_blocked}
        >
          {t(`withdrawals.blocked.${request.approve_blocked}` as 'withdrawals.blocked.withdraw_no_second_approver')}
        </Text>
      ) : null}
    </Stack>
  );
}

/** Who processed the request, and (four-eyes) who gave its first approval and when. */
function ProcessedBy({ request }: { request: StaffWithdrawRequest }) {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const user = useCurrentUser();
  return (
    <>
      {request.first_approved_by ? (
        <Text size="xs" c="dimmed" data-testid="withdrawal-first-approval">
          {t('withdrawals.firstApproval', {
            name: request.first_approved_by_name ?? tr('common.dash'),
            at: request.first_approved_at ? formatDateTime(request.first_approved_at, user.business_timezone) : '',
          })}
        </Text>
      ) : null}
      <Text size="sm">{request.processed_by_name ?? (request.first_approved_by ? '' : tr('common.dash'))}</Text>
    </>
  );
}

/** The status badge, and the reason of a rejection (issue 15 defect 15: staff see it in their list). */
function StatusWithReason({ request }: { request: StaffWithdrawRequest }) {
  const { t } = useTranslation('clientBase');
  return (
    <>
      <WithdrawalStatusBadge status={request.status} />
      {request.no_eligible_approver ? (
        <Text size="xs" c="orange.8" fw={500} mt={4} maw={260} data-testid="withdrawal-no-approver">
          {t('withdrawals.noEligibleApprover')}
        </Text>
      ) : null}
      {request.status === 'rejected' && request.reject_reason ? (
        <Text
          size="xs"
          c="dimmed"
          mt={4}
          style={{ overflowWrap: 'anywhere' }}
          data-testid="withdrawal-reject-reason-text"
        >
          {t('withdrawals.rejectReasonLine', { reason: request.reject_reason })}
        </Text>
      ) : null}
    </>
  );
}

/** /crm/applications: the withdrawal requests, and (D20) the 'Подтверждения' tab of manual credits and voids waiting. */
export function WithdrawalRequests() {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'confirmations' ? 'confirmations' : 'requests';
  const credits = useManualCredits({ status: 'pending', perPage: 1 });
  // Issue 20 finding 11: the voids waiting for a second person are confirmed in the same tab.
  const voids = useVoidRequests({ status: 'pending', perPage: 1 });
  const pendingCredits = (credits.data?.pending_count ?? 0) + (voids.data?.pending_count ?? 0);
  return (
    <>
      <PageHeader title={t('withdrawals.title')} subtitle={t('withdrawals.subtitle')} />
      <Tabs
        value={tab}
        onChange={(value) => {
          const next = new URLSearchParams(params);
          if (value === 'confirmations') next.set('tab', 'confirmations');
          else next.delete('tab');
          setParams(next, { replace: true });
        }}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="requests" data-testid="tab-requests">
            {t('withdrawals.tabs.requests')}
          </Tabs.Tab>
          <Tabs.Tab
            value="confirmations"
            data-testid="tab-confirmations"
            rightSection={
              pendingCredits > 0 ? (
                <Badge size="sm" color="orange" variant="filled" data-testid="confirmations-count">
                  {pendingCredits}
                </Badge>
              ) : null
            }
          >
            {tr('credits.tab')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="requests">
          <RequestsTab />
        </Tabs.Panel>
        <Tabs.Panel value="confirmations">
          <Stack gap="lg">
            <Confirmations />
            <VoidRequests />
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

/** §2.9 Withdrawal requests: filters, summary cards, the table (cards on phones) with the masked card, approve and reject. */
function RequestsTab() {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const [filters, setFilters] = useState<WithdrawalFilters>(EMPTY_WITHDRAWAL_FILTERS);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [target, setTarget] = useState<Target>(null);
  const isPhone = useIsPhone();
  const [debouncedSearch] = useDebouncedValue(filters.search, 300);
  const staff = useStaffOptions();
  const requests = useWithdrawalRequests({ ...filters, search: debouncedSearch }, page, perPage);
  const mayProcess = can(user.role, 'finance.view');

  const update = (patch: Partial<WithdrawalFilters>) => {
    setFilters((current) => ({ ...current, ...patch }));
    setPage(1);
  };
  const items = uniqueById(requests.data?.items ?? []);
  const summary = requests.data?.summary;
  const dirty = JSON.stringify(filters) !== JSON.stringify(EMPTY_WITHDRAWAL_FILTERS);
  const openClient = (id: number) => void navigate(`/crm/clients/${id}`);

  return (
    <>
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} mb="md">
        <Group gap="sm" align="flex-end" wrap="wrap" data-testid="withdrawal-filters">
          <TextInput
            label={t('withdrawals.search')}
            placeholder={t('withdrawals.searchPlaceholder')}
            leftSection={<IconSearch size={16} />}
            value={filters.search}
            maxLength={120}
            onChange={(event) => update({ search: event.currentTarget.value })}
            style={grow(220)}
            data-testid="withdrawal-search"
          />
          <Select
            label={t('withdrawals.status')}
            placeholder={t('withdrawals.allStatuses')}
            data={WITHDRAW_STATUSES.map((value) => ({ value, label: t(`withdrawals.statuses.${value}`) }))}
            value={filters.status}
            onChange={(value) => update({ status: (value as WithdrawStatus | null) ?? null })}
            clearable
            style={grow(150)}
            data-testid="withdrawal-status-filter"
          />
          <Select
            label={t('withdrawals.manager')}
            placeholder={t('withdrawals.allManagers')}
            data={(staff.data ?? []).map((member) => ({ value: member.id, label: member.full_name || member.name }))}
            value={filters.processedBy}
            onChange={(processedBy) => update({ processedBy })}
            clearable
            searchable
            style={grow(180)}
            data-testid="withdrawal-manager-filter"
          />
          <DateInput
            label={t('withdrawals.dateFrom')}
            value={filters.dateFrom}
            onChange={(dateFrom) => update({ dateFrom })}
            maxDate={filters.dateTo ?? undefined}
            valueFormat="DD.MM.YYYY"
            placeholder={tr('clients.filters.datePlaceholder')}
            clearable
            style={grow(130)}
            data-testid="withdrawal-date-from"
          />
          <DateInput
            label={t('withdrawals.dateTo')}
            value={filters.dateTo}
            onChange={(dateTo) => update({ dateTo })}
            minDate={filters.dateFrom ?? undefined}
            valueFormat="DD.MM.YYYY"
            placeholder={tr('clients.filters.datePlaceholder')}
            clearable
            style={grow(130)}
            data-testid="withdrawal-date-to"
          />
          <Button
            variant="default"
            leftSection={<IconFilterOff size={16} />}
            disabled={!dirty}
            onClick={() => update(EMPTY_WITHDRAWAL_FILTERS)}
            data-testid="withdrawal-clear"
          >
            {t('withdrawals.clear')}
          </Button>
        </Group>
      </Paper>

      <SummaryCards
        cards={[
          {
            label: t('withdrawals.cards.total'),
            value: summary ? summary.total_count : '…',
            icon: <IconListCheck size={18} />,
            testId: 'withdrawal-card-total',
          },
          {
            label: t('withdrawals.cards.pending'),
            value: summary ? summary.pending_count : '…',
            icon: <IconClock size={18} />,
            color: 'yellow',
            testId: 'withdrawal-card-pending',
          },
          {
            label: t('withdrawals.cards.awaitingSecond'),
            value: summary ? summary.awaiting_second_approval_count : '…',
            icon: <IconUsers size={18} />,
            color: 'orange',
            testId: 'withdrawal-card-awaiting',
          },
          {
            label: t('withdrawals.cards.approved'),
            value: summary ? summary.approved_count : '…',
            icon: <IconListCheck size={18} />,
            color: 'green',
            testId: 'withdrawal-card-approved',
          },
          {
            label: t('withdrawals.cards.amount'),
            value: summary ? usdRu.format(summary.total_amount) : '…',
            icon: <IconCash size={18} />,
            color: 'teal',
            testId: 'withdrawal-card-amount',
          },
        ]}
      />

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        {requests.isError ? (
          <LoadErrorAlert
            title={t('withdrawals.loadError')}
            error={requests.error}
            onRetry={() => void requests.refetch()}
            testId="withdrawal-error"
          />
        ) : null}
        {isPhone ? (
          <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="withdrawal-cards">
            {requests.isPending ? <Text ta="center">{t('withdrawals.loading')}</Text> : null}
            {!requests.isPending && !requests.isError && items.length === 0 ? (
              <Text ta="center" c="dimmed" py="md" data-testid="withdrawal-empty">
                {t('withdrawals.empty')}
              </Text>
            ) : null}
            {items.map((request) => (
              <Paper
                component="li"
                key={request.id}
                withBorder
                radius="md"
                p="sm"
                data-testid="withdrawal-row"
                data-request-id={request.id}
              >
                <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
                  <div style={{ minWidth: 0 }}>
                    <Text
                      fw={600}
                      component="a"
                      href={`/crm/clients/${request.client_id}`}
                      onClick={(event) => {
                        event.preventDefault();
                        openClient(request.client_id);
                      }}
                      style={{ overflowWrap: 'anywhere' }}
                    >
                      {request.client_name || tr('common.dash')}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {t('withdrawals.clientId', { id: request.client_id })}
                    </Text>
                  </div>
                  <Text fw={700} style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                    {formatMoney(request.amount)}
                  </Text>
                </Group>
                <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} mb="sm">
                  <Field label={t('withdrawals.columns.status')} wide>
                    <StatusWithReason request={request} />
                  </Field>
                  <Field label={t('withdrawals.columns.card')} wide>
                    <CardCell request={request} mayReveal={mayProcess} />
                  </Field>
                  <Field label={t('withdrawals.columns.processedBy')}>
                    <ProcessedBy request={request} />
                  </Field>
                  <Field label={t('withdrawals.columns.createdAt')}>
                    <Text size="sm">{formatDateTime(request.created_at, user.business_timezone)}</Text>
                  </Field>
                </SimpleGrid>
                <RequestActions request={request} onAct={setTarget} />
              </Paper>
            ))}
          </Stack>
        ) : (
          <DataTable
            items={items}
            rowKey={(request) => request.id}
            rowProps={(request) => ({ 'data-testid': 'withdrawal-row', 'data-request-id': request.id })}
            minWidth={960}
            testId="withdrawal-table"
            loading={requests.isPending}
            loadingText={t('withdrawals.loading')}
            empty={!requests.isPending && !requests.isError && items.length === 0}
            emptyText={t('withdrawals.empty')}
            emptyTestId="withdrawal-empty"
            columns={[
              {
                key: 'client',
                header: t('withdrawals.columns.client'),
                cell: (request) => (
                  <>
                    <Text
                      size="sm"
                      fw={500}
                      style={{ whiteSpace: 'nowrap' }}
                      component="a"
                      href={`/crm/clients/${request.client_id}`}
                      onClick={(event) => {
                        event.preventDefault();
                        openClient(request.client_id);
                      }}
                    >
                      {request.client_name || tr('common.dash')}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {t('withdrawals.clientId', { id: request.client_id })}
                    </Text>
                  </>
                ),
              },
              {
                key: 'amount',
                header: t('withdrawals.columns.amount'),
                align: 'right',
                cell: (request) => (
                  <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                    {formatMoney(request.amount)}
                  </Text>
                ),
              },
              {
                key: 'card',
                header: t('withdrawals.columns.card'),
                cell: (request) => <CardCell request={request} mayReveal={mayProcess} />,
              },
              {
                key: 'status',
                header: t('withdrawals.columns.status'),
                cell: (request) => <StatusWithReason request={request} />,
              },
              {
                key: 'processedBy',
                header: t('withdrawals.columns.processedBy'),
                cell: (request) => <ProcessedBy request={request} />,
              },
              {
                key: 'createdAt',
                header: t('withdrawals.columns.createdAt'),
                cell: (request) => (
                  <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                    {formatDateTime(request.created_at, user.business_timezone)}
                  </Text>
                ),
              },
              {
                key: 'actions',
                header: t('withdrawals.columns.actions'),
                cell: (request) => <RequestActions request={request} onAct={setTarget} />,
              },
            ]}
          />
        )}
        <TablePager
          page={page}
          perPage={perPage}
          total={requests.data?.total ?? 0}
          onPageChange={setPage}
          onPerPageChange={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
        <Text size="xs" c="dimmed" mt="xs">
          {tr('clients.timeZone', { zone: user.business_timezone })}
        </Text>
      </Paper>
      <ProcessWithdrawalModal target={target} onClose={() => setTarget(null)} />
    </>
  );
}
