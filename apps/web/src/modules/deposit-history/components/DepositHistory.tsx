import { DEPOSIT_TYPES, can, type DepositType, type StaffListItem } from '@brokerage/shared';
import { Anchor, Badge, Button, Group, Paper, Text, TextInput } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { notifications } from '@mantine/notifications';
import {
  IconCash,
  IconCheck,
  IconFileSpreadsheet,
  IconFilterOff,
  IconListNumbers,
  IconRefresh,
} from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TruncatedText } from '../../ui/TruncatedText';
import { useNavigate } from 'react-router';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { downloadFile } from '../../clients/api/clients';
import { useStaffOptions } from '../../staff/api/staff';
import { CompactMultiSelect } from '../../ui/CompactMultiSelect';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { roleLabelKey } from '../../ui/role-label';
import { SummaryCards } from '../../ui/SummaryCards';
import { TablePager } from '../../ui/TablePager';
import { DataTable } from '../../ui/DataTable';
import {
  EMPTY_DEPOSIT_FILTERS,
  depositFilterQuery,
  useDepositHistory,
  type DepositHistoryFilters,
} from '../api/deposit-history';

/** §6: the deposits page's manager list is limited to these roles. */
const CREATOR_ROLES: readonly string[] = [
  'sales_manager',
  'retention_manager',
  'team_lead_sales',
  'team_lead_retention',
  'admin',
  'superadmin',
];

const TYPE_COLORS: Record<string, string> = { ftd: 'green', reload: 'blue' };

const grow = (basis: number) => ({ flex: `1 1 ${basis}px` });

function isDepositType(value: string): value is DepositType {
  return (DEPOSIT_TYPES as readonly string[]).includes(value);
}

/**
 * §2.10 Deposit history: filters applied with 'Применить', the summary cards, the table (a deleted creator keeps the
 * name stored with the deposit), and 'Экспорт' downloading the filtered deposits as XLSX.
 */
export function DepositHistory() {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const superadmin = can(user.role, 'deposits.manager_filter');
  const [draft, setDraft] = useState<DepositHistoryFilters>(EMPTY_DEPOSIT_FILTERS);
  const [applied, setApplied] = useState<DepositHistoryFilters>(EMPTY_DEPOSIT_FILTERS);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [exporting, setExporting] = useState(false);
  const staff = useStaffOptions({ enabled: superadmin });
  const history = useDepositHistory(applied, superadmin, page, perPage);

  const creatorOptions = (staff.data ?? [])
    .filter((member: StaffListItem) => CREATOR_ROLES.includes(member.role))
    .map((member) => ({
      value: member.id,
      label: `${member.full_name || member.name} (${tr(roleLabelKey(member.role))})`,
    }));
  const apply = (next: DepositHistoryFilters) => {
    setDraft(next);
    setApplied(next);
    setPage(1);
    // 'Применить' re-fetches even when nothing changed (§2.10).
    if (JSON.stringify(next) === JSON.stringify(applied)) void history.refetch();
  };
  const runExport = async () => {
    setExporting(true);
    const failure = await downloadFile(
      '/api/deposits/export/excel',
      depositFilterQuery(applied, superadmin),
      'deposits_export.xlsx',
    );
    setExporting(false);
    if (failure) {
      notifications.show({
        color: 'red',
        message: t(failure === 'server' ? 'list.exportErrorServer' : 'list.exportErrorNetwork'),
      });
    }
  };

  const summary = history.data?.summary;
  const items = history.data?.items ?? [];
  const openClient = (id: number) => void navigate(`/crm/clients/${id}`);

  return (
    <>
      <PageHeader
        title={t('history.title')}
        subtitle={t('history.subtitle')}
        actions={
          <Button
            variant="default"
            leftSection={<IconFileSpreadsheet size={16} />}
            loading={exporting}
            onClick={() => void runExport()}
            data-testid="history-export"
          >
            {t('history.export')}
          </Button>
        }
      />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} mb="md">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            apply(draft);
          }}
        >
          <Group gap="sm" align="flex-end" wrap="wrap" data-testid="history-filters">
            <CompactMultiSelect
              label={t('history.type')}
              placeholder={t('history.allTypes')}
              data={DEPOSIT_TYPES.map((value) => ({ value, label: t(`history.types.${value}`) }))}
              value={draft.types}
              onChange={(values) => setDraft({ ...draft, types: values.filter(isDepositType) })}
              style={grow(160)}
              testId="history-type-filter"
            />
            {superadmin ? (
              <CompactMultiSelect
                label={t('history.manager')}
                placeholder={t('history.allManagers')}
                data={creatorOptions}
                value={draft.creators}
                onChange={(creators) => setDraft({ ...draft, creators })}
                searchable
                searchPlaceholder={tr('clients.filters.findManager')}
                nothingFound={tr('clients.filters.noManagers')}
                style={grow(200)}
                testId="history-manager-filter"
              />
            ) : null}
            <TextInput
              label={t('history.search')}
              placeholder={t('history.searchPlaceholder')}
              value={draft.search}
              maxLength={120}
              onChange={(event) => setDraft({ ...draft, search: event.currentTarget.value })}
              style={grow(160)}
              data-testid="history-search"
            />
            <DateInput
              label={t('history.dateFrom')}
              value={draft.dateFrom}
              onChange={(dateFrom) => setDraft({ ...draft, dateFrom })}
              maxDate={draft.dateTo ?? undefined}
              valueFormat="DD.MM.YYYY"
              placeholder={tr('clients.filters.datePlaceholder')}
              clearable
              style={grow(130)}
              data-testid="history-date-from"
            />
            <DateInput
              label={t('history.dateTo')}
              value={draft.dateTo}
              onChange={(dateTo) => setDraft({ ...draft, dateTo })}
              minDate={draft.dateFrom ?? undefined}
              valueFormat="DD.MM.YYYY"
              placeholder={tr('clients.filters.datePlaceholder')}
              clearable
              style={grow(130)}
              data-testid="history-date-to"
            />
            <Group gap="xs">
              <Button type="submit" leftSection={<IconRefresh size={16} />} data-testid="history-apply">
                {t('history.apply')}
              </Button>
              <Button
                variant="default"
                leftSection={<IconFilterOff size={16} />}
                onClick={() => apply(EMPTY_DEPOSIT_FILTERS)}
                data-testid="history-clear"
              >
                {t('history.clear')}
              </Button>
            </Group>
          </Group>
        </form>
      </Paper>

      <SummaryCards
        cards={[
          {
            label: t('history.cards.total'),
            value: summary ? formatCount(summary.count) : '…',
            icon: <IconListNumbers size={18} />,
            testId: 'history-card-total',
          },
          {
            label: t('history.cards.ftd'),
            value: summary ? formatCount(summary.ftd_count) : '…',
            icon: <IconCheck size={18} />,
            color: 'green',
            testId: 'history-card-ftd',
          },
          {
            label: t('history.cards.reload'),
            value: summary ? formatCount(summary.reload_count) : '…',
            icon: <IconRefresh size={18} />,
            testId: 'history-card-reload',
          },
          {
            label: t('history.cards.amount'),
            value: summary ? formatMoney(summary.total_amount) : '…',
            icon: <IconCash size={18} />,
            color: 'teal',
            testId: 'history-card-amount',
          },
        ]}
      />

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        {history.isError ? (
          <LoadErrorAlert
            title={t('history.loadError')}
            error={history.error}
            onRetry={() => void history.refetch()}
            testId="history-error"
          />
        ) : null}
        <DataTable
          items={items}
          rowKey={(deposit) => deposit.id}
          rowProps={(deposit) => ({
            'data-testid': 'history-row',
            'data-deposit-id': deposit.id,
            tabIndex: 0,
            style: { cursor: 'pointer' },
            onClick: () => openClient(deposit.client_id),
            onKeyDown: (event: { key: string }) => {
              if (event.key === 'Enter') openClient(deposit.client_id);
            },
          })}
          minWidth={760}
          testId="history-table"
          loading={history.isPending}
          loadingText={t('history.loading')}
          empty={!history.isPending && !history.isError && items.length === 0}
          emptyText={t('history.empty')}
          emptyTestId="history-empty"
          columns={[
            {
              key: 'client',
              header: t('history.columns.client'),
              cell: (deposit) => (
                <>
                  <Anchor
                    size="sm"
                    href={`/crm/clients/${deposit.client_id}`}
                    onClick={(event) => {
                      event.preventDefault();
                      event.stopPropagation();
                      openClient(deposit.client_id);
                    }}
                  >
                    {t('history.clientId', { id: deposit.client_id })}
                  </Anchor>
                  <TruncatedText value={deposit.client_name || t('history.clientName', { id: deposit.client_id })} />
                </>
              ),
            },
            {
              key: 'type',
              header: t('history.columns.type'),
              cell: (deposit) => (
                <Badge color={TYPE_COLORS[deposit.deposit_type] ?? 'gray'} variant="light">
                  {t(`history.types.${isDepositType(deposit.deposit_type) ? deposit.deposit_type : 'other'}`)}
                </Badge>
              ),
            },
            {
              key: 'amount',
              header: t('history.columns.amount'),
              align: 'right',
              cell: (deposit) => (
                <Text size="sm" fw={600} c="green" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                  +{formatMoney(deposit.amount)}
                </Text>
              ),
            },
            {
              key: 'date',
              header: t('history.columns.date'),
              cell: (deposit) => (
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  {formatDateTime(deposit.created_at, user.business_timezone)}
                </Text>
              ),
            },
            {
              key: 'creator',
              header: t('history.columns.creator'),
              cell: (deposit) => (
                <TruncatedText value={deposit.created_by_name || t('history.unknown')} data-testid="history-creator" />
              ),
            },
            ...(superadmin
              ? [
                  {
                    key: 'manager',
                    header: t('history.columns.manager'),
                    headerProps: { 'data-testid': 'history-manager-column' },
                    cell: (deposit: (typeof items)[number]) => (
                      <Text size="sm" c={deposit.assigned_manager === null ? 'dimmed' : undefined}>
                        {deposit.assigned_manager === null
                          ? t('history.unassigned')
                          : (deposit.assigned_manager_name ?? tr('common.dash'))}
                      </Text>
                    ),
                  },
                ]
              : []),
          ]}
        />
        <TablePager
          page={page}
          perPage={perPage}
          total={history.data?.total ?? 0}
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
    </>
  );
}
