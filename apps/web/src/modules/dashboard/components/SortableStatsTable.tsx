import { Group, Table, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import { Fragment, useState, type ReactNode } from 'react';
import { TableStateRows } from '../../ui/TableStateRows';

export interface StatsColumn<R> {
  key: string;
  label: string;
  /** The value sorted by; a number sorts numerically, a string in the Russian collation. */
  value: (row: R) => number | string;
  render?: (row: R) => ReactNode;
  numeric?: boolean;
}

/**
 * A dashboard section's table (§2.4): every column sorts in the browser (the rows are the server's whole answer),
 * numbers right-aligned; `expanded` adds rows under a row (an affiliate's campaigns).
 */
export function SortableStatsTable<R>({
  rows,
  columns,
  rowKey,
  initialSort,
  emptyText,
  testId,
  expanded,
  minWidth = 560,
}: {
  rows: R[];
  columns: StatsColumn<R>[];
  rowKey: (row: R) => string;
  initialSort: string;
  emptyText: string;
  testId: string;
  expanded?: (row: R) => ReactNode;
  minWidth?: number;
}) {
  const [sort, setSort] = useState<{ key: string; desc: boolean }>({ key: initialSort, desc: true });
  const column = columns.find((c) => c.key === sort.key) ?? columns[0]!;
  const sorted = [...rows].sort((a, b) => {
    const x = column.value(a);
    const y = column.value(b);
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), 'ru');
    return sort.desc ? -order : order;
  });
  const toggle = (key: string) => setSort((s) => ({ key, desc: s.key === key ? !s.desc : true }));
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table striped highlightOnHover verticalSpacing="xs" data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => {
              const active = c.key === sort.key;
              const Icon = active ? (sort.desc ? IconArrowDown : IconArrowUp) : IconArrowsSort;
              return (
                <Table.Th
                  key={c.key}
                  ta={c.numeric ? 'right' : undefined}
                  aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}
                >
                  <UnstyledButton onClick={() => toggle(c.key)} data-testid={`${testId}-sort-${c.key}`}>
                    <Group gap={4} wrap="nowrap" justify={c.numeric ? 'flex-end' : 'flex-start'}>
                      <Text size="sm" fw={600}>
                        {c.label}
                      </Text>
                      <Icon size={14} opacity={active ? 1 : 0.4} />
                    </Group>
                  </UnstyledButton>
                </Table.Th>
              );
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <TableStateRows
            loading={false}
            empty={rows.length === 0}
            colSpan={columns.length}
            loadingText=""
            emptyText={emptyText}
          />
          {sorted.map((row) => (
            <Fragment key={rowKey(row)}>
              <Table.Tr data-testid={`${testId}-row`}>
                {columns.map((c) => (
                  <Table.Td key={c.key} ta={c.numeric ? 'right' : undefined} style={{ whiteSpace: 'nowrap' }}>
                    {c.render ? c.render(row) : c.value(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
              {expanded?.(row)}
            </Fragment>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
