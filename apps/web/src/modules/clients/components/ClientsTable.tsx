import { clientAffiliate, displayPhone, type ClientListItem } from '@brokerage/shared';
import { Checkbox, Group, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import type { KeyboardEvent, MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatDate, formatDateTime, formatMoney, formatTime } from '../../../lib/format';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import type { ClientSortField, SortOrder } from '../list-state';
import { ClientStatusBadge } from './ClientStatusBadge';
import { TruncatedText } from '../../ui/TruncatedText';
import { IdentityBadge } from './IdentityAlert';

export interface ClientsViewProps {
  items: ClientListItem[];
  loading: boolean;
  showManager: boolean;
  timeZone: string;
}

/** The row checkboxes (§2.5, roles with clients.bulk_assign): the selected ids of the current page. */
export interface SelectionProps {
  selected: ReadonlySet<number>;
  onToggle: (id: number) => void;
  /** The header checkbox: select every row of the page, or clear them all. */
  onToggleAll: (ids: number[], select: boolean) => void;
}

export interface SortProps {
  sort: ClientSortField;
  order: SortOrder;
  onSort: (field: ClientSortField) => void;
}

/** The client card of §2.6, opened by a click on a list row or Enter on a focused one. */
export function clientCardPath(id: number): string {
  return `/crm/clients/${id}`;
}

/** A client's manager as the list shows it (§2.5): the name, else 'Не назначен'. */
export function useManagerText() {
  const { t } = useTranslation();
  return (client: Pick<ClientListItem, 'assigned_manager' | 'assigned_manager_name'>) =>
    client.assigned_manager === null ? t('clients.unassigned') : client.assigned_manager_name || t('common.dash');
}

/** A sortable column's header: the button that sorts by it, with an arrow showing the current sort. */
function SortHeader({
  field,
  label,
  sort,
  order,
  onSort,
  align,
}: SortProps & { field: ClientSortField; label: string; align?: 'right' }) {
  const { t } = useTranslation();
  const active = sort === field;
  const Icon = !active ? IconArrowsSort : order === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <UnstyledButton
      onClick={() => onSort(field)}
      title={t('clients.sortBy', { column: label })}
      data-testid={`clients-sort-${field}`}
    >
      <Group gap={4} wrap="nowrap" justify={align === 'right' ? 'flex-end' : undefined}>
        <Text span fw={700} size="sm">
          {label}
        </Text>
        <Icon
          size={14}
          aria-hidden
          style={{ flex: 'none', opacity: active ? 1 : 0.35 }}
          color={active ? 'var(--mantine-color-blue-filled)' : undefined}
        />
      </Group>
    </UnstyledButton>
  );
}

/** A moment in the business time zone as two short lines, the day over the time, so the wide table stays narrow. */
function DateTime({ value, timeZone }: { value: string | null; timeZone: string }) {
  const { t } = useTranslation();
  if (!value) return <Text size="sm">{t('common.dash')}</Text>;
  return (
    <>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatDate(value, timeZone)}
      </Text>
      <Text size="xs" c="dimmed">
        {formatTime(new Date(value), timeZone)}
      </Text>
    </>
  );
}

/**
 * §2.5 list: the table on wider screens, a card per client on phones. Sorting is the server's; the table's header
 * shows the current sort with an arrow (phones sort with the list's own select).
 */
export function ClientsTable({
  items,
  loading,
  showManager,
  timeZone,
  sort,
  order,
  onSort,
  selection,
}: ClientsViewProps & SortProps & { selection?: SelectionProps }) {
  const { t } = useTranslation();
  const { t: tc } = useTranslation('clientBase');
  const managerText = useManagerText();
  const pageIds = items.map((client) => client.id);
  const selectedOnPage = selection ? pageIds.filter((id) => selection.selected.has(id)).length : 0;
  const dash = t('common.dash');
  const navigate = useNavigate();

  /** A column sorted by the server on a click of its header. */
  const sortable = (
    field: ClientSortField,
    label: string,
    column: Omit<DataColumn<ClientListItem>, 'key' | 'header'>,
    testId?: string,
  ): DataColumn<ClientListItem> => {
    const active = sort === field;
    return {
      key: field,
      header: <SortHeader field={field} label={label} sort={sort} order={order} onSort={onSort} align={column.align} />,
      headerProps: {
        'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : undefined,
        'data-sorted': active ? order : undefined,
        'data-testid': testId,
      },
      cardLabel: label,
      ...column,
    };
  };
  const truncated = (value: (client: ClientListItem) => string) => (client: ClientListItem) => (
    <TruncatedText value={value(client)} />
  );

  const columns: DataColumn<ClientListItem>[] = [
    ...(selection
      ? [
          {
            key: 'select',
            header: (
              <Checkbox
                aria-label={tc('list.selectAll')}
                checked={pageIds.length > 0 && selectedOnPage === pageIds.length}
                indeterminate={selectedOnPage > 0 && selectedOnPage < pageIds.length}
                disabled={pageIds.length === 0}
                onChange={() => selection.onToggleAll(pageIds, selectedOnPage < pageIds.length)}
                data-testid="clients-select-all"
              />
            ),
            headerProps: { w: 40 },
            cellProps: {
              onClick: (event: MouseEvent) => event.stopPropagation(),
              onKeyDown: (event: KeyboardEvent) => event.stopPropagation(),
            },
            card: 'hidden',
            cell: (client: ClientListItem) => (
              <Checkbox
                aria-label={tc('list.selectOne', { name: client.name || client.id })}
                checked={selection.selected.has(client.id)}
                onChange={() => selection.onToggle(client.id)}
                data-testid="client-select"
              />
            ),
          } satisfies DataColumn<ClientListItem>,
        ]
      : []),
    sortable('id', t('clients.columns.id'), {
      card: 'hidden',
      cell: (client) => (
        <Text size="sm" ff="monospace" c="dimmed">
          {client.id}
        </Text>
      ),
    }),
    sortable('name', t('clients.columns.name'), {
      card: 'title',
      cell: (client) => (
        <Group gap={6} wrap="nowrap">
          <TruncatedText value={client.name || dash} fw={500} data-testid="client-name" />
          <IdentityBadge client={client} />
        </Group>
      ),
      cardCell: (client) => (
        <>
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {client.name || dash}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {t('clients.idLabel', { id: client.id })}
          </Text>
          <IdentityBadge client={client} />
        </>
      ),
    }),
    sortable('email', t('clients.columns.email'), {
      card: 'wide',
      cell: truncated((client) => client.email || dash),
      cardCell: (client) => client.email || dash,
    }),
    // Issue 27 item 8: one international format from the E.164 form (as typed when it never parsed).
    sortable('phone', t('clients.columns.phone'), {
      cell: truncated((client) => displayPhone(client.phone, client.phone_e164) || dash),
      cardCell: (client) => displayPhone(client.phone, client.phone_e164) || dash,
    }),
    sortable('country', t('clients.columns.country'), {
      cell: truncated((client) => client.country || dash),
      cardCell: (client) => client.country || dash,
    }),
    sortable('status', t('clients.columns.status'), {
      card: 'aside',
      cell: (client) => <ClientStatusBadge status={client.status} />,
    }),
    sortable('campaign', t('clients.columns.campaign'), {
      cell: truncated((client) => client.campaign || dash),
      cardCell: (client) => client.campaign || dash,
    }),
    sortable('affiliate_id', tc('list.columns.affiliate'), {
      card: 'hidden',
      cell: truncated((client) => clientAffiliate(client) ?? dash),
    }),
    sortable('total_deposits', t('clients.columns.balance'), {
      align: 'right',
      cell: (client) => (
        <Text size="sm" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
          {formatMoney(client.total_deposits)}
        </Text>
      ),
      cardCell: (client) => formatMoney(client.total_deposits),
    }),
    sortable('ftd', tc('list.columns.ftd'), {
      card: 'hidden',
      cell: (client) => <Text size="sm">{client.ftd ? tc('list.yes') : tc('list.no')}</Text>,
    }),
    ...(showManager
      ? [
          sortable(
            'assigned_manager',
            t('clients.columns.manager'),
            {
              cell: (client) => (
                <TruncatedText
                  value={managerText(client)}
                  c={client.assigned_manager === null ? 'dimmed' : undefined}
                />
              ),
              cardCell: (client) => managerText(client),
            },
            'clients-manager-column',
          ),
        ]
      : []),
    sortable('created_at', t('clients.columns.createdAt'), {
      cell: (client) => <DateTime value={client.created_at} timeZone={timeZone} />,
      cardCell: (client) => formatDateTime(client.created_at, timeZone),
    }),
    sortable('last_comment_date', t('clients.columns.lastComment'), {
      cell: (client) => <DateTime value={client.last_comment_date} timeZone={timeZone} />,
      cardCell: (client) => (client.last_comment_date ? formatDateTime(client.last_comment_date, timeZone) : dash),
    }),
  ];

  return (
    <DataTable
      items={items}
      columns={columns}
      rowKey={(client) => client.id}
      rowProps={(client) => ({
        'data-testid': 'client-row',
        'data-client-id': client.id,
        tabIndex: 0,
        'aria-label': t('clients.openCard', { name: client.name || client.id }),
        style: { cursor: 'pointer' },
        onClick: () => void navigate(clientCardPath(client.id)),
        onKeyDown: (event: KeyboardEvent) => {
          if (event.key === 'Enter') void navigate(clientCardPath(client.id));
        },
      })}
      minWidth={1240}
      testId="clients-table"
      cards
      cardsTestId="clients-cards"
      loading={loading && items.length === 0}
      loadingText={t('clients.loading')}
      empty={!loading && items.length === 0}
      emptyText={t('clients.empty')}
      emptyTestId="clients-empty"
    />
  );
}
