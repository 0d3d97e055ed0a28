import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** Shown instead of a blank page when a screen fails to render (or its chunk fails to load after a deploy). */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  console.error(error);
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" gap="sm" maw={480} data-testid="route-error">
        <Title order={2}>{t('errors.crashTitle')}</Title>
        <Text c="dimmed" ta="center">
          {t('errors.crashText')}
        </Text>
        <Button onClick={() => window.location.reload()}>{t('errors.reload')}</Button>
      </Stack>
    </Center>
  );
}
