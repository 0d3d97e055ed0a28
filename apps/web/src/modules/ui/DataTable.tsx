import { Table } from '@mantine/core';
import type { ReactNode } from 'react';
import { TableStateRows } from './TableStateRows';

/** One column of a DataTable: its header and how a record fills its cell. */
export interface DataColumn<T> {
  key: string;
  header: ReactNode;
  align?: 'right';
  /** Extra attributes of the header cell (a test id). */
  headerProps?: Record<string, string>;
  cell: (item: T) => ReactNode;
}

/**
 * The desktop table of a list page (the withdrawal requests, the confirmations, the deposit history): a horizontally
 * scrolling striped table with one header row, the loading and empty rows of TableStateRows, and a row per record.
 * Filters, paging and the phone's cards stay with each page.
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
}: {
  items: readonly T[];
  columns: readonly DataColumn<T>[];
  rowKey: (item: T) => string | number;
  /** Attributes of a record's row (its test ids, a highlight). */
  rowProps?: (item: T) => Record<string, unknown>;
  minWidth: number;
  testId: string;
  loading: boolean;
  loadingText: string;
  empty: boolean;
  emptyText: string;
  emptyHint?: string;
  emptyTestId?: string;
}) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid={testId}>
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
          <TableStateRows
            colSpan={columns.length}
            loading={loading}
            loadingText={loadingText}
            empty={empty}
            emptyText={emptyText}
            emptyHint={emptyHint}
            emptyTestId={emptyTestId}
          />
          {items.map((item) => (
            <Table.Tr key={rowKey(item)} {...rowProps?.(item)}>
              {columns.map((c) => (
                <Table.Td key={c.key} ta={c.align}>
                  {c.cell(item)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
