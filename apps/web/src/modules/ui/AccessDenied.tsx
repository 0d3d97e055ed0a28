import { homePathFor } from '@brokerage/shared';
import { Button, Paper, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { roleLabelKey } from './role-label';

/**
 * The one page a staff member sees on a back-office page their role may not open (issue 15, defect 12): what
 * happened, their role, and the way to their own home page. `reason` names who may open it, where a page says so.
 */
export function AccessDenied({ reason }: { reason?: string }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  return (
    <Paper withBorder p="xl" radius="md" maw={520} mx="auto" mt="xl" role="alert" data-testid="access-denied">
      <Stack align="center" gap="sm">
        <IconLock size={40} aria-hidden />
        <Title order={2} size="h3">
          {t('accessDenied.title')}
        </Title>
        <Text c="dimmed" ta="center">
          {reason ?? t('accessDenied.text')}
        </Text>
        <Text size="sm" c="dimmed" ta="center" data-testid="access-denied-role">
          {t('accessDenied.role', { role: t(roleLabelKey(user.role)) })}
        </Text>
        <Button component={Link} to={homePathFor(user.role)} variant="light" data-testid="access-denied-home">
          {t('accessDenied.home')}
        </Button>
      </Stack>
    </Paper>
  );
}
