import { CLIENT_SORT_FIELDS, can, departmentOfRole, type StaffListItem } from '@brokerage/shared';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import {
  IconFileSpreadsheet,
  IconPlus,
  IconSortAscending,
  IconSortDescending,
  IconUserShare,
  IconX,
} from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, errorText } from '../../../lib/api';
import { formatCount } from '../../../lib/format';
import { STORAGE_KEYS, localStore } from '../../../lib/storage-keys';
import type { CurrentUser } from '../../auth/api/session';
import { useCurrentUser } from '../../auth/current-user';
import { useIsPhone } from '../../ui/media';
import { useStaffOptions } from '../../staff/api/staff';
import type { CompactOption } from '../../ui/CompactMultiSelect';
import { PageHeader } from '../../ui/PageHeader';
import { roleLabelKey } from '../../ui/role-label';
import { TablePager } from '../../ui/TablePager';
import { downloadFile, exportQuery, lookupClient, useClientFilterOptions, useClientsList } from '../api/clients';
import {
  DEFAULT_CLIENTS_LIST_STATE,
  UNASSIGNED,
  isPageSize,
  nextSort,
  parseClientsListState,
  serializeClientsListState,
  type ClientSortField,
  type ClientsListState,
} from '../list-state';
import { AddClientModal } from './AddClientModal';
import { BulkAssignModal } from './BulkAssignModal';
import { ClientsFilters } from './ClientsFilters';
import { ClientsTable, clientCardPath } from './ClientsTable';

/** The search box and the typed filters ask the server once the typing pauses. */
const TYPING_DEBOUNCE_MS = 300;

/** §2.5: an all-digits general search opens the card after this pause. */
const NUMERIC_SEARCH_DELAY_MS = 1000;

const SORT_LABEL_KEYS = {
  id: 'clients.columns.id',
  name: 'clients.columns.name',
  email: 'clients.columns.email',
  status: 'clients.columns.status',
  country: 'clients.columns.country',
  created_at: 'clients.columns.createdAt',
  total_deposits: 'clients.columns.balance',
  last_comment_date: 'clients.columns.lastComment',
  phone: 'clients.columns.phone',
  campaign: 'clients.columns.campaign',
  assigned_manager: 'clients.columns.manager',
} as const satisfies Record<Exclude<ClientSortField, 'ftd' | 'affiliate_id'>, string>;

const CLIENT_BASE_SORT_LABEL_KEYS = {
  ftd: 'list.columns.ftd',
  affiliate_id: 'list.columns.affiliate',
} as const;

function isSortField(value: string | null): value is ClientSortField {
  return value !== null && (CLIENT_SORT_FIELDS as readonly string[]).includes(value);
}

/**
 * The managers a role may filter by: a team lead sees the clients of its department's staff (D5), so it is offered
 * those; a superadmin everyone. 'Не назначен' comes first.
 */
function managerOptionsFor(user: CurrentUser, staff: StaffListItem[], t: TFunction): CompactOption[] {
  const department = user.role === 'superadmin' ? null : (user.department ?? departmentOfRole(user.role));
  const visible = department
    ? staff.filter((member) => (member.department ?? departmentOfRole(member.role)) === department)
    : staff;
  return [
    { value: UNASSIGNED, label: t('clients.unassigned') },
    ...visible.map((member) => ({
      value: member.id,
      label: `${member.full_name || member.name} (${t(roleLabelKey(member.role))})`,
    })),
  ];
}

/** §2.5 Clients list: lookups, filters, the server-sorted and paged table (cards on phones), add, bulk assign, export. */
export function ClientsList() {
  const { t } = useTranslation();
  const { t: tc } = useTranslation('clientBase');
  const user = useCurrentUser();
  const navigate = useNavigate();
  const withManagers = can(user.role, 'clients.bulk_assign');
  const withAffiliates = can(user.role, 'clients.affiliate_filter');
  const mayExport = can(user.role, 'clients.export');
  const sortLabel = (field: ClientSortField) =>
    field === 'ftd' || field === 'affiliate_id' ? tc(CLIENT_BASE_SORT_LABEL_KEYS[field]) : t(SORT_LABEL_KEYS[field]);
  const isPhone = useIsPhone();

  const [stored, setStored] = useState<ClientsListState>(() =>
    parseClientsListState(localStore.get(STORAGE_KEYS.clientsPageFilters)),
  );
  const [search, setSearch] = useState('');
  const [idText, setIdText] = useState('');
  const [page, setPageState] = useState(1);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [adding, setAdding] = useState(false);
  const [assigning, setAssigning] = useState(false);
  const [exporting, setExporting] = useState(false);
  const openTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (openTimer.current && clearTimeout(openTimer.current)), []);
  // §2.5: changing page (or what the pages hold) clears the selection.
  const setPage = (next: number) => {
    setPageState(next);
    setSelected(new Set());
  };

  const staff = useStaffOptions({ enabled: withManagers });
  // §2.5 Country, Campaigns and Affiliates, and the add-client lists: the values of the caller's own clients (D5).
  const filterOptions = useClientFilterOptions();
  // Without the staff list (it failed to load) the filter still offers 'Не назначен'.
  const managerOptions = !withManagers
    ? null
    : staff.data
      ? managerOptionsFor(user, staff.data, t)
      : staff.isError
        ? managerOptionsFor(user, [], t)
        : null;
  // A stored manager that is no longer offered (deleted, another department, another user's choice) is dropped.
  const managers = !withManagers
    ? []
    : managerOptions
      ? stored.managers.filter((id) => managerOptions.some((option) => option.value === id))
      : stored.managers;
  const state: ClientsListState = { ...stored, managers };

  const [debouncedSearch] = useDebouncedValue(search, TYPING_DEBOUNCE_MS);
  const [debouncedSource] = useDebouncedValue(state.source, TYPING_DEBOUNCE_MS);
  const clients = useClientsList({
    state: { ...state, source: debouncedSource },
    search: debouncedSearch,
    page,
    withManagers,
    withAffiliates,
  });

  const save = (next: ClientsListState) => {
    setStored(next);
    localStore.set(STORAGE_KEYS.clientsPageFilters, serializeClientsListState(next));
  };
  const update = (patch: Partial<ClientsListState>) => {
    save({ ...state, ...patch });
    setPage(1);
  };
  const reset = () => {
    // 'Сбросить' clears the filters and the search; the sort and the page size are kept.
    save({ ...DEFAULT_CLIENTS_LIST_STATE, sort: state.sort, order: state.order, perPage: state.perPage });
    setSearch('');
    setIdText('');
    setPage(1);
  };

  const failAlert = (message: string) => notifications.show({ color: 'red', message });

  /** §2.5 ID lookup: the card opens when the client exists in the caller's scope, else the §8 alert. */
  const lookup = async (text: string, delayMs = 0) => {
    const trimmed = text.trim();
    if (!/^\d{1,15}$/.test(trimmed) || Number(trimmed) <= 0) {
      failAlert(tc('list.idInvalid'));
      return;
    }
    const id = Number(trimmed);
    try {
      await lookupClient(id);
    } catch (error) {
      failAlert(error instanceof ApiError && error.status === 404 ? tc('list.idNotFound', { id }) : tc('list.idError'));
      return;
    }
    if (delayMs === 0) {
      void navigate(clientCardPath(id));
      return;
    }
    notifications.show({ message: tc('list.idOpening', { id }), autoClose: delayMs });
    if (openTimer.current) clearTimeout(openTimer.current);
    openTimer.current = setTimeout(() => void navigate(clientCardPath(id)), delayMs);
  };

  const runExport = async () => {
    setExporting(true);
    const failure = await downloadFile(
      '/api/clients/export/excel',
      exportQuery({ state, search, page, withManagers, withAffiliates }),
      'clients_export.xlsx',
    );
    setExporting(false);
    if (failure) failAlert(tc(failure === 'server' ? 'list.exportErrorServer' : 'list.exportErrorNetwork'));
  };
  const sortBy = (field: ClientSortField) => update(nextSort(state, field));

  // Nothing to show but the error (a failed refetch keeps the rows it had).
  const failed = clients.isError && !clients.data;
  const items = clients.data?.items ?? [];
  const total = clients.data?.total;
  // Above 10,000 matches of a search-like filter the server stops counting and says so (decisions.md).
  const capped = clients.data?.total_capped ?? false;
  const view = { items, loading: clients.isPending, showManager: withManagers, timeZone: user.business_timezone };
  const assignable = (managerOptions ?? []).filter((option) => option.value !== UNASSIGNED);
  const selection = withManagers
    ? {
        selected,
        onToggle: (id: number) =>
          setSelected((current) => {
            const next = new Set(current);
            if (!next.delete(id)) next.add(id);
            return next;
          }),
        onToggleAll: (ids: number[], select: boolean) => setSelected(select ? new Set(ids) : new Set()),
      }
    : undefined;
  const from = total ? (page - 1) * state.perPage + 1 : 0;
  const to = total ? Math.min(total, page * state.perPage) : 0;

  return (
    <>
      <PageHeader
        title={t('clients.title')}
        titleAside={
          total === undefined ? null : (
            <Badge size="lg" variant="light" radius="sm" data-testid="clients-total" data-total={total}>
              <VisuallyHidden>{t('clients.totalLabel')} </VisuallyHidden>
              {capped ? tc('list.totalCapped', { count: formatCount(total) }) : formatCount(total)}
            </Badge>
          )
        }
        actions={
          <>
            {mayExport ? (
              <Button
                variant="default"
                leftSection={<IconFileSpreadsheet size={16} />}
                loading={exporting}
                onClick={() => void runExport()}
                data-testid="clients-export"
              >
                {tc('list.excel')}
              </Button>
            ) : null}
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)} data-testid="clients-add">
              {tc('list.add')}
            </Button>
          </>
        }
      />
      <AddClientModal
        opened={adding}
        countries={filterOptions.data?.countries ?? []}
        campaigns={filterOptions.data?.campaigns ?? []}
        onClose={() => setAdding(false)}
      />
      {withManagers ? (
        <BulkAssignModal
          opened={assigning}
          clientIds={[...selected]}
          managers={assignable}
          onClose={() => setAssigning(false)}
          onDone={() => {
            setAssigning(false);
            setSelected(new Set());
          }}
        />
      ) : null}
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <ClientsFilters
          state={state}
          search={search}
          managerOptions={managerOptions}
          filterOptions={filterOptions.data}
          showAffiliates={withAffiliates}
          compact={isPhone}
          idLookup={idText}
          onIdLookupChange={setIdText}
          onIdLookup={() => void lookup(idText)}
          onSearchChange={(value) => {
            setSearch(value);
            setPage(1);
          }}
          onSearchSubmit={() => {
            if (/^\d+$/.test(search.trim())) void lookup(search, NUMERIC_SEARCH_DELAY_MS);
          }}
          onChange={update}
          onReset={reset}
        />

        {clients.isError ? (
          <Alert color="red" mb="md" title={t('clients.listError')} data-testid="clients-error">
            <Stack gap="xs" align="flex-start">
              {errorText(clients.error, '') ? <Text size="sm">{errorText(clients.error, '')}</Text> : null}
              <Button size="xs" variant="light" color="red" onClick={() => void clients.refetch()}>
                {t('common.retry')}
              </Button>
            </Stack>
          </Alert>
        ) : null}

        {isPhone ? (
          <Group gap="xs" mb="sm" align="flex-end" wrap="nowrap">
            <Select
              label={t('clients.sortLabel')}
              data={CLIENT_SORT_FIELDS.map((value) => ({ value, label: sortLabel(value) }))}
              value={state.sort}
              onChange={(value) => isSortField(value) && update({ sort: value })}
              allowDeselect={false}
              style={{ flex: 1 }}
              data-testid="clients-sort-select"
            />
            <Tooltip label={state.order === 'asc' ? t('clients.sortAsc') : t('clients.sortDesc')}>
              <ActionIcon
                variant="default"
                size="input-sm"
                aria-label={state.order === 'asc' ? t('clients.sortAsc') : t('clients.sortDesc')}
                onClick={() => update({ order: state.order === 'asc' ? 'desc' : 'asc' })}
                data-testid="clients-sort-order"
              >
                {state.order === 'asc' ? <IconSortAscending size={18} /> : <IconSortDescending size={18} />}
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}

        {selected.size > 0 ? (
          <Paper withBorder radius="sm" p="xs" mb="sm" bg="var(--mantine-color-blue-light)" data-testid="clients-bulk">
            <Group justify="space-between" gap="sm">
              <Text fw={500} data-testid="clients-selected-count" data-count={selected.size}>
                {tc('list.selected', { count: selected.size })}
              </Text>
              <Group gap="xs">
                <Button
                  size="xs"
                  leftSection={<IconUserShare size={14} />}
                  onClick={() => setAssigning(true)}
                  data-testid="clients-bulk-assign"
                >
                  {tc('list.assignManager')}
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  leftSection={<IconX size={14} />}
                  onClick={() => setSelected(new Set())}
                  data-testid="clients-clear-selection"
                >
                  {tc('list.clearSelection')}
                </Button>
              </Group>
            </Group>
          </Paper>
        ) : null}

        {failed ? null : (
          <>
            <div style={{ opacity: clients.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}>
              <ClientsTable {...view} sort={state.sort} order={state.order} onSort={sortBy} selection={selection} />
            </div>
            {total ? (
              <Text size="sm" c="dimmed" mt="sm" data-testid="clients-shown">
                {capped
                  ? tc('list.shownCapped', { from, to, total: formatCount(total) })
                  : tc('list.shown', { from, to, total })}
              </Text>
            ) : null}
            <TablePager
              page={page}
              perPage={state.perPage}
              total={total ?? 0}
              capped={capped}
              onPageChange={setPage}
              onPerPageChange={(perPage) => isPageSize(perPage) && update({ perPage })}
            />
          </>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('clients.timeZone', { zone: user.business_timezone })}
        </Text>
      </Paper>
    </>
  );
}
