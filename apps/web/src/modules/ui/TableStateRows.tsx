import { Group, Loader, Stack, Table, Text } from '@mantine/core';

interface ListStateProps {
  loading: boolean;
  loadingText: string;
  empty: boolean;
  emptyText: string;
  emptyHint?: string;
  emptyTestId?: string;
}

/**
 * What a list shows instead of data: a spinner with its text while the first page loads, and the empty text (with an
 * optional hint under it) when there is nothing to show. Null otherwise.
 */
export function ListState({ loading, loadingText, empty, emptyText, emptyHint, emptyTestId }: ListStateProps) {
  if (loading) {
    return (
      <Group justify="center" gap="sm" py="md" role="status">
        <Loader size="sm" />
        <Text>{loadingText}</Text>
      </Group>
    );
  }
  if (!empty) return null;
  return (
    <Stack gap={4} py="md" align="center" data-testid={emptyTestId}>
      <Text c="dimmed" ta="center" fw={emptyHint ? 500 : undefined}>
        {emptyText}
      </Text>
      {emptyHint ? (
        <Text c="dimmed" ta="center" size="sm">
          {emptyHint}
        </Text>
      ) : null}
    </Stack>
  );
}

/** ListState as the one row of a table's body (a cell across every column). */
export function TableStateRows({ colSpan, ...state }: ListStateProps & { colSpan: number }) {
  if (!state.loading && !state.empty) return null;
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <ListState {...state} />
      </Table.Td>
    </Table.Tr>
  );
}
