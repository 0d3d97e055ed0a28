import { WITHDRAW_STATUSES, can, type StaffWithdrawRequest, type WithdrawStatus } from '@brokerage/shared';
import { Badge, Button, Group, Paper, Select, Table, Text, TextInput } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useDebouncedValue } from '@mantine/hooks';
import { IconAlertCircle, IconCash, IconClock, IconFilterOff, IconListCheck, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { useStaffOptions } from '../../staff/api/staff';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { SummaryCards } from '../../ui/SummaryCards';
import { TablePager } from '../../ui/TablePager';
import { TableStateRows } from '../../ui/TableStateRows';
import {
  EMPTY_WITHDRAWAL_FILTERS,
  uniqueById,
  useWithdrawalRequests,
  type WithdrawalFilters,
} from '../api/withdrawal-requests';
import { CardCell } from './CardCell';
import { ProcessWithdrawalModal, type WithdrawalAction } from './ProcessWithdrawalModal';

const STATUS_COLORS: Record<string, string> = {
  pending: 'yellow',
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

/** §2.9 Withdrawal requests: filters, summary cards, the table with the masked card, approve and reject. */
export function WithdrawalRequests() {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const [filters, setFilters] = useState<WithdrawalFilters>(EMPTY_WITHDRAWAL_FILTERS);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [target, setTarget] = useState<{ request: StaffWithdrawRequest; action: WithdrawalAction } | null>(null);
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
      <PageHeader title={t('withdrawals.title')} subtitle={t('withdrawals.subtitle')} />
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
        <Table.ScrollContainer minWidth={960}>
          <Table striped highlightOnHover verticalSpacing="sm" data-testid="withdrawal-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('withdrawals.columns.client')}</Table.Th>
                <Table.Th ta="right">{t('withdrawals.columns.amount')}</Table.Th>
                <Table.Th>{t('withdrawals.columns.card')}</Table.Th>
                <Table.Th>{t('withdrawals.columns.status')}</Table.Th>
                <Table.Th>{t('withdrawals.columns.processedBy')}</Table.Th>
                <Table.Th>{t('withdrawals.columns.createdAt')}</Table.Th>
                <Table.Th>{t('withdrawals.columns.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              <TableStateRows
                colSpan={7}
                loading={requests.isPending}
                loadingText={t('withdrawals.loading')}
                empty={!requests.isPending && !requests.isError && items.length === 0}
                emptyText={t('withdrawals.empty')}
                emptyTestId="withdrawal-empty"
              />
              {items.map((request) => (
                <Table.Tr key={request.id} data-testid="withdrawal-row" data-request-id={request.id}>
                  <Table.Td>
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
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                      {formatMoney(request.amount)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <CardCell request={request} mayReveal={mayProcess} />
                  </Table.Td>
                  <Table.Td>
                    <WithdrawalStatusBadge status={request.status} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{request.processed_by_name ?? tr('common.dash')}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                      {formatDateTime(request.created_at, user.business_timezone)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {request.status === 'pending' && mayProcess ? (
                      <Group gap={6} wrap="nowrap">
                        <Button
                          size="xs"
                          color="green"
                          onClick={() => setTarget({ request, action: 'approve' })}
                          data-testid="withdrawal-approve"
                        >
                          {t('withdrawals.approve')}
                        </Button>
                        <Button
                          size="xs"
                          color="red"
                          variant="light"
                          onClick={() => setTarget({ request, action: 'reject' })}
                          data-testid="withdrawal-reject"
                        >
                          {t('withdrawals.reject')}
                        </Button>
                      </Group>
                    ) : (
                      <Text size="sm" c="dimmed">
                        {tr('common.dash')}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
