import { Group, Paper, SimpleGrid, Stack, Table, type MantineSpacing } from '@mantine/core';
import type { ReactNode } from 'react';
import { useIsPhone } from './media';
import { Field } from './Field';
import { LoadErrorAlert } from './LoadErrorAlert';
import { ListState, TableStateRows } from './TableStateRows';

/**
 * Where a column's value goes on a phone's card: `title` heads the card (left), `aside` sits at the heading's right
 * (a status badge), `field` (the default) is a label over its value, `wide` such a pair across the card, `actions`
 * the card's bottom row, `hidden` is left off the card.
 */
export type CardPlace = 'title' | 'aside' | 'field' | 'wide' | 'actions' | 'hidden';

/** One column of a DataTable: its header, how a record fills its cell, and where it goes on a phone's card. */
export interface DataColumn<T> {
  key: string;
  header: ReactNode;
  align?: 'right';
  /** Extra attributes of the header cell (a test id, aria-sort of a sortable column). */
  headerProps?: Record<string, string | number | undefined>;
  /** Extra attributes of the body cell (a handler that keeps a click off the row). */
  cellProps?: Record<string, unknown>;
  cell: (item: T) => ReactNode;
  /** Where the column shows on a phone's card (see CardPlace); 'field' by default. */
  card?: CardPlace;
  /** The label on a card, when the header is not plain text. */
  cardLabel?: string;
  /** What the card shows instead of the cell (a full-width button instead of an icon). */
  cardCell?: (item: T) => ReactNode;
}

/** A list whose query failed: the red box with the server's reason and a retry, shown above the rows. */
export interface DataTableError {
  title: string;
  error: unknown;
  onRetry: () => void;
  testId: string;
}

function cardLabel<T>(column: DataColumn<T>): string {
  return column.cardLabel ?? (typeof column.header === 'string' ? column.header : column.key);
}

function RecordCard<T>({
  item,
  columns,
  props,
}: {
  item: T;
  columns: readonly DataColumn<T>[];
  props: Record<string, unknown> | undefined;
}) {
  const place = (c: DataColumn<T>) => c.card ?? 'field';
  const show = (c: DataColumn<T>) => (c.cardCell ?? c.cell)(item);
  const titles = columns.filter((c) => place(c) === 'title');
  const asides = columns.filter((c) => place(c) === 'aside');
  const fields = columns.filter((c) => place(c) === 'field' || place(c) === 'wide');
  const actions = columns.filter((c) => place(c) === 'actions');
  return (
    <Paper component="li" withBorder radius="md" p="sm" {...props}>
      {titles.length + asides.length > 0 ? (
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
          <div style={{ minWidth: 0 }}>
            {titles.map((c) => (
              <div key={c.key}>{show(c)}</div>
            ))}
          </div>
          {asides.map((c) => (
            <div key={c.key}>{show(c)}</div>
          ))}
        </Group>
      ) : null}
      {fields.length > 0 ? (
        <SimpleGrid cols={2} spacing="xs" verticalSpacing={6}>
          {fields.map((c) => (
            <Field key={c.key} label={cardLabel(c)} wide={place(c) === 'wide'}>
              {show(c)}
            </Field>
          ))}
        </SimpleGrid>
      ) : null}
      {actions.map((c) => (
        <div key={c.key} style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
          {show(c)}
        </div>
      ))}
    </Paper>
  );
}

/**
 * The list of a page (issue 29 §4: every list table of the back office): a horizontally scrolling striped table with
 * one header row, the loading, empty and error states, and a row per record. With `cards` it shows, on a phone, each
 * record as a card built from the same columns (each column says where it goes: DataColumn.card). Filters and
 * paging stay with each page.
 */
export function DataTable<T>({
  items,
  columns,
  rowKey,
  rowProps,
  minWidth,
  testId,
  loading,
  loadingText,
  empty,
  emptyText,
  emptyHint,
  emptyTestId,
  error,
  cards,
  cardsTestId,
  verticalSpacing = 'sm',
}: {
  items: readonly T[];
  columns: readonly DataColumn<T>[];
  rowKey: (item: T) => string | number;
  /** Attributes of a record's row, and of its card on a phone (its test ids, a click, a highlight). */
  rowProps?: (item: T) => Record<string, unknown>;
  minWidth: number;
  testId: string;
  /** The first page is loading: the spinner row with its text. */
  loading: boolean;
  loadingText: string;
  /** Nothing to show; by default when not loading and there are no items. */
  empty?: boolean;
  emptyText: string;
  emptyHint?: string;
  emptyTestId?: string;
  /** The query failed: its alert above the rows (those of an earlier fetch stay). */
  error?: DataTableError | null;
  /** Cards instead of the table on a phone (MOBILE_QUERY). */
  cards?: boolean;
  cardsTestId?: string;
  verticalSpacing?: MantineSpacing;
}) {
  const isPhone = useIsPhone();
  const isEmpty = empty ?? (!loading && items.length === 0);
  const states = {
    loading,
    loadingText,
    empty: isEmpty,
    emptyText,
    emptyHint,
    emptyTestId,
  };

  const alert = error ? <LoadErrorAlert {...error} /> : null;

  if (cards && isPhone) {
    if (loading || isEmpty)
      return (
        <>
          {alert}
          <ListState {...states} />
        </>
      );
    return (
      <>
        {alert}
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid={cardsTestId}>
          {items.map((item) => (
            <RecordCard key={rowKey(item)} item={item} columns={columns} props={rowProps?.(item)} />
          ))}
        </Stack>
      </>
    );
  }

  return (
    <>
      {alert}
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover verticalSpacing={verticalSpacing} data-testid={testId}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => (
                <Table.Th key={c.key} ta={c.align} {...c.headerProps}>
                  {c.header}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <TableStateRows colSpan={columns.length} {...states} />
            {items.map((item) => (
              <Table.Tr key={rowKey(item)} {...rowProps?.(item)}>
                {columns.map((c) => (
                  <Table.Td key={c.key} ta={c.align} {...c.cellProps}>
                    {c.cell(item)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
