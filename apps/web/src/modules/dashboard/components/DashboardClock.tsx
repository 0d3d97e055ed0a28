import { Group, Paper, Text } from '@mantine/core';
import { IconClock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatTime, timeZoneName, timeZoneOffset } from '../../../lib/format';
import { useMinuteClock } from '../hooks';

/** §2.4: the current time in the business time zone, with the zone's name (D10). */
export function DashboardClock({ timeZone }: { timeZone: string }) {
  const { t, i18n } = useTranslation();
  const now = useMinuteClock();
  return (
    <Paper withBorder radius="md" px="md" py="xs" data-testid="dashboard-clock">
      <Group gap="sm" wrap="nowrap">
        <IconClock size={20} />
        <div>
          <Text size="xs" c="dimmed">
            {t('dashboard.currentTime')}
          </Text>
          <Text fw={600} data-testid="dashboard-time">
            {formatTime(now, timeZone)}{' '}
            <Text span size="sm" c="dimmed" fw={400}>
              {timeZone} (UTC{timeZoneOffset(timeZone, now)}, {timeZoneName(timeZone, i18n.language, now)})
            </Text>
          </Text>
        </div>
      </Group>
    </Paper>
  );
}
