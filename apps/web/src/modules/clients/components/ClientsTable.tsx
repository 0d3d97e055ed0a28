import type { Client } from '@brokerage/shared';
import { Checkbox, Group, Loader, Table, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatDate, formatMoney, formatTime } from '../../../lib/format';
import type { ClientSortField, SortOrder } from '../list-state';
import { ClientStatusBadge } from './ClientStatusBadge';
import { TruncatedCell, TruncatedText } from '../../ui/TruncatedText';
import { IdentityBadge } from './IdentityAlert';

export interface ClientsViewProps {
  items: Client[];
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

/** The affiliate of a client (§3): the last ' - ' segment of its campaign, or null. */
export function affiliateOf(campaign: string): string | null {
  const at = campaign.lastIndexOf(' - ');
  return at < 0 ? null : campaign.slice(at + 3).trim() || null;
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
  return (client: Client) =>
    client.assigned_manager === null ? t('clients.unassigned') : client.assigned_manager_name || t('common.dash');
}

function SortableTh({
  field,
  label,
  sort,
  order,
  onSort,
  align,
  thTestId,
}: SortProps & { field: ClientSortField; label: string; align?: 'right'; thTestId?: string }) {
  const { t } = useTranslation();
  const active = sort === field;
  const Icon = !active ? IconArrowsSort : order === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <Table.Th
      aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined}
      data-sorted={active ? order : undefined}
      data-testid={thTestId}
      ta={align}
    >
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
    </Table.Th>
  );
}

/** A moment in the business time zone as two short lines, the day over the time, so the wide table stays narrow. */
function DateTimeCell({ value, timeZone }: { value: string | null; timeZone: string }) {
  const { t } = useTranslation();
  if (!value) return <Cell>{t('common.dash')}</Cell>;
  return (
    <Table.Td>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatDate(value, timeZone)}
      </Text>
      <Text size="xs" c="dimmed">
        {formatTime(new Date(value), timeZone)}
      </Text>
    </Table.Td>
  );
}

function Cell({ children, nowrap }: { children: ReactNode; nowrap?: boolean }) {
  return (
    <Table.Td>
      <Text size="sm" style={nowrap ? { whiteSpace: 'nowrap' } : undefined}>
        {children}
      </Text>
    </Table.Td>
  );
}

/** §2.5 table on wider screens. Sorting is the server's; the header shows the current sort with an arrow. */
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
  const sortProps = { sort, order, onSort };
  const columns = 12 + (showManager ? 1 : 0) + (selection ? 1 : 0);
  const pageIds = items.map((client) => client.id);
  const selectedOnPage = selection ? pageIds.filter((id) => selection.selected.has(id)).length : 0;
  const dash = t('common.dash');
  const navigate = useNavigate();
  return (
    <Table.ScrollContainer minWidth={1240}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid="clients-table">
        <Table.Thead>
          <Table.Tr>
            {selection ? (
              <Table.Th w={40}>
                <Checkbox
                  aria-label={tc('list.selectAll')}
                  checked={pageIds.length > 0 && selectedOnPage === pageIds.length}
                  indeterminate={selectedOnPage > 0 && selectedOnPage < pageIds.length}
                  disabled={pageIds.length === 0}
                  onChange={() => selection.onToggleAll(pageIds, selectedOnPage < pageIds.length)}
                  data-testid="clients-select-all"
                />
              </Table.Th>
            ) : null}
            <SortableTh field="id" label={t('clients.columns.id')} {...sortProps} />
            <SortableTh field="name" label={t('clients.columns.name')} {...sortProps} />
            <SortableTh field="email" label={t('clients.columns.email')} {...sortProps} />
            <SortableTh field="phone" label={t('clients.columns.phone')} {...sortProps} />
            <SortableTh field="country" label={t('clients.columns.country')} {...sortProps} />
            <SortableTh field="status" label={t('clients.columns.status')} {...sortProps} />
            <SortableTh field="campaign" label={t('clients.columns.campaign')} {...sortProps} />
            <SortableTh field="affiliate_id" label={tc('list.columns.affiliate')} {...sortProps} />
            <SortableTh field="total_deposits" label={t('clients.columns.balance')} align="right" {...sortProps} />
            <SortableTh field="ftd" label={tc('list.columns.ftd')} {...sortProps} />
            {showManager ? (
              <SortableTh
                field="assigned_manager"
                label={t('clients.columns.manager')}
                thTestId="clients-manager-column"
                {...sortProps}
              />
            ) : null}
            <SortableTh field="created_at" label={t('clients.columns.createdAt')} {...sortProps} />
            <SortableTh field="last_comment_date" label={t('clients.columns.lastComment')} {...sortProps} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {loading && items.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns}>
                <Group justify="center" gap="sm" py="md" role="status">
                  <Loader size="sm" />
                  <Text>{t('clients.loading')}</Text>
                </Group>
              </Table.Td>
            </Table.Tr>
          ) : null}
          {!loading && items.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns}>
                <Text ta="center" c="dimmed" py="md" data-testid="clients-empty">
                  {t('clients.empty')}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : null}
          {items.map((client) => (
            <Table.Tr
              key={client.id}
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
              {selection ? (
                <Table.Td onClick={(event) => event.stopPropagation()} onKeyDown={(event) => event.stopPropagation()}>
                  <Checkbox
                    aria-label={tc('list.selectOne', { name: client.name || client.id })}
                    checked={selection.selected.has(client.id)}
                    onChange={() => selection.onToggle(client.id)}
                    data-testid="client-select"
                  />
                </Table.Td>
              ) : null}
              <Table.Td>
                <Text size="sm" ff="monospace" c="dimmed">
                  {client.id}
                </Text>
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <TruncatedText value={client.name || dash} fw={500} data-testid="client-name" />
                  <IdentityBadge client={client} />
                </Group>
              </Table.Td>
              <TruncatedCell value={client.email || dash} />
              <TruncatedCell value={client.phone || dash} />
              <TruncatedCell value={client.country || dash} />
              <Table.Td>
                <ClientStatusBadge status={client.status} />
              </Table.Td>
              <TruncatedCell value={client.campaign || dash} />
              <TruncatedCell value={affiliateOf(client.campaign) ?? dash} />
              <Table.Td ta="right">
                <Text size="sm" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                  {formatMoney(client.total_deposits)}
                </Text>
              </Table.Td>
              <Cell>{client.ftd ? tc('list.yes') : tc('list.no')}</Cell>
              {showManager ? (
                <TruncatedCell
                  value={managerText(client)}
                  c={client.assigned_manager === null ? 'dimmed' : undefined}
                />
              ) : null}
              <DateTimeCell value={client.created_at} timeZone={timeZone} />
              <DateTimeCell value={client.last_comment_date} timeZone={timeZone} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
