import type { MarketInfoSource } from '@brokerage/shared';
import { Alert, Badge, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDate } from './format';

/** D14: says 'демо-данные' and the snapshot's date whenever the shipped snapshot answered. */
export function DemoNotice({ source, warning = false }: { source: MarketInfoSource; warning?: boolean }) {
  const { t, i18n } = useTranslation('site');
  if (!source.demo) return null;
  const date = source.snapshot_date ? formatDate(source.snapshot_date, i18n.language) : '';
  if (warning)
    return (
      <Alert color="yellow" variant="light" data-testid="market-info-demo">
        <Group gap="xs" mb={4}>
          <Badge color="yellow">{t('marketInfo.demo')}</Badge>
          <Text size="sm" fw={600}>
            {t('marketInfo.demoAsOf', { date })}
          </Text>
        </Group>
        <Text size="sm">{t('marketInfo.demoWarning')}</Text>
      </Alert>
    );
  return (
    <Group gap="xs" data-testid="market-info-demo">
      <Badge color="yellow">{t('marketInfo.demo')}</Badge>
      <Text size="xs" c="dimmed">
        {t('marketInfo.demoAsOf', { date })}
      </Text>
    </Group>
  );
}
