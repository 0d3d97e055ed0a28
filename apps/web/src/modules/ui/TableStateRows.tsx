import { Group, Loader, Stack, Table, Text } from '@mantine/core';

/**
 * The rows a list table shows instead of data: a spinner with its text while the first page loads, and the empty
 * text (with an optional hint under it) when there is nothing to show.
 */
export function TableStateRows({
  colSpan,
  loading,
  loadingText,
  empty,
  emptyText,
  emptyHint,
  emptyTestId,
}: {
  colSpan: number;
  loading: boolean;
  loadingText: string;
  empty: boolean;
  emptyText: string;
  emptyHint?: string;
  emptyTestId?: string;
}) {
  if (loading) {
    return (
      <Table.Tr>
        <Table.Td colSpan={colSpan}>
          <Group justify="center" gap="sm" py="md" role="status">
            <Loader size="sm" />
            <Text>{loadingText}</Text>
          </Group>
        </Table.Td>
      </Table.Tr>
    );
  }
  if (!empty) return null;
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
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
      </Table.Td>
    </Table.Tr>
  );
}
