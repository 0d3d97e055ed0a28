import { Box, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { LANGUAGES, type Language } from '../../../i18n';
import { LanguageSwitch } from '../../ui/LanguageSwitch';
import { ThemeToggle } from '../../ui/ThemeToggle';

/**
 * The frame of the pages an e-mail link opens (issue 22): the card of the sign-in page, with the language switch
 * (ru/en/kk for the client pages) and the theme. The card keeps its width whatever it shows, so nothing jumps.
 */
export function AuthPageShell({
  title,
  subtitle,
  languages = LANGUAGES,
  testId,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  languages?: readonly Language[];
  testId: string;
  children: ReactNode;
}) {
  return (
    <Center component="main" mih="100dvh" p="md">
      <Box w="100%" maw={440}>
        <Group justify="flex-end" mb="sm" gap="xs">
          <LanguageSwitch languages={languages} />
          <ThemeToggle />
        </Group>
        <Paper withBorder shadow="sm" radius="md" p={{ base: 'lg', xs: 'xl' }} data-testid={testId}>
          <Stack gap={4} mb="lg" align="center" ta="center">
            <Title order={1} size="h2">
              {title}
            </Title>
            {subtitle ? <Text c="dimmed">{subtitle}</Text> : null}
          </Stack>
          {children}
        </Paper>
      </Box>
    </Center>
  );
}
