import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function NotFound({ fullScreen = false }: { fullScreen?: boolean }) {
  const { t } = useTranslation();
  return (
    <Center mih={fullScreen ? '100dvh' : 360} p="md">
      <Stack align="center" gap="sm" data-testid="not-found">
        <Title order={1} c="dimmed">
          {t('notFound.code')}
        </Title>
        <Title order={2}>{t('notFound.title')}</Title>
        <Text c="dimmed" ta="center">
          {t('notFound.text')}
        </Text>
        <Button component={Link} to="/" variant="light">
          {t('notFound.home')}
        </Button>
      </Stack>
    </Center>
  );
}
