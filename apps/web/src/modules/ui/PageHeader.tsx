import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function PageHeader({
  title,
  titleAside,
  subtitle,
  actions,
}: {
  title: string;
  /** Shown right after the title, e.g. a count badge. */
  titleAside?: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm" mb="lg">
      <Stack gap={4}>
        <Group gap="sm" align="center" wrap="nowrap">
          {/* The page's one level-one heading, drawn at the size of a second level. */}
          <Title order={1} size="h2">
            {title}
          </Title>
          {titleAside}
        </Group>
        {subtitle ? <Text c="dimmed">{subtitle}</Text> : null}
      </Stack>
      {actions ? <Group gap="sm">{actions}</Group> : null}
    </Group>
  );
}
