import { Group, Loader, Table, Text } from '@mantine/core';

/**
 * A table body's loading and empty rows, spanning every column: 'Loading…' with a spinner while the first page is on
 * its way, the empty text once it came back with nothing. Rows already shown stay while a refetch runs.
 */
export function TableStateRows({
  loading,
  empty,
  columns,
  loadingText,
  emptyText,
}: {
  loading: boolean;
  empty: boolean;
  columns: number;
  loadingText: string;
  emptyText: string;
}) {
  if (!empty) return null;
  return (
    <Table.Tr>
      <Table.Td colSpan={columns}>
        {loading ? (
          <Group justify="center" gap="sm" py="md">
            <Loader size="sm" />
            <Text>{loadingText}</Text>
          </Group>
        ) : (
          <Text ta="center" c="dimmed" py="md">
            {emptyText}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
