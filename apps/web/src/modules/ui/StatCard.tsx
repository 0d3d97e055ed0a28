import { Group, Paper, Text, ThemeIcon } from '@mantine/core';
import type { ReactNode } from 'react';

export function StatCard({
  label,
  value,
  icon,
  color = 'blue',
  testId,
}: {
  label: string;
  value: ReactNode;
  icon?: ReactNode;
  color?: string;
  testId?: string;
}) {
  return (
    <Paper withBorder radius="md" p="md" data-testid={testId}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Text size="sm" c="dimmed" fw={500}>
            {label}
          </Text>
          <Text size="xl" fw={700} mt={4} data-testid={testId ? `${testId}-value` : undefined}>
            {value}
          </Text>
        </div>
        {icon ? (
          <ThemeIcon variant="light" color={color} size="lg" radius="md">
            {icon}
          </ThemeIcon>
        ) : null}
      </Group>
    </Paper>
  );
}
