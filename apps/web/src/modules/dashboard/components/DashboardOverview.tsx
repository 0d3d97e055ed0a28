import { Alert, Anchor, Button, Group, Loader, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconCash, IconExternalLink, IconUserCheck, IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { DEFAULT_BUSINESS_TIME_ZONE, formatCount, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { StatCard } from '../../ui/StatCard';
import { DASHBOARD_PERIODS, useDashboard, type DashboardPeriod } from '../api/dashboard';
import { DashboardClock } from './DashboardClock';

function isPeriod(value: string | null): value is DashboardPeriod {
  return value !== null && (DASHBOARD_PERIODS as readonly string[]).includes(value);
}

/** §2.4 (greeting, clock, terminal link, period, stat cards). */
export function DashboardOverview() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const [period, setPeriod] = useState<DashboardPeriod>('all');
  const dashboard = useDashboard(period);
  const timeZone = dashboard.data?.timezone.timezone ?? DEFAULT_BUSINESS_TIME_ZONE;
  const overview = dashboard.data?.overview;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
        <Stack gap={4}>
          <Title order={2}>{t('dashboard.title')}</Title>
          <Text c="dimmed" data-testid="dashboard-greeting">
            {t('dashboard.welcome', { name: user.name || user.email })}
          </Text>
        </Stack>
        <DashboardClock timeZone={timeZone} />
      </Group>

      <Group justify="space-between" wrap="wrap" gap="sm">
        <Select
          label={t('dashboard.period')}
          data={DASHBOARD_PERIODS.map((value) => ({ value, label: t(`dashboard.periods.${value}`) }))}
          value={period}
          onChange={(value) => isPeriod(value) && setPeriod(value)}
          allowDeselect={false}
          w={200}
          data-testid="dashboard-period"
        />
        <Anchor href="/trading" target="_blank" rel="noopener noreferrer" data-testid="open-trading">
          <Group gap={6} wrap="nowrap">
            <IconExternalLink size={16} />
            {t('dashboard.openTrading')}
          </Group>
        </Anchor>
      </Group>

      {dashboard.isPending ? (
        <Group gap="sm" data-testid="dashboard-loading">
          <Loader size="sm" />
          <Text>{t('dashboard.loading')}</Text>
        </Group>
      ) : null}
      {dashboard.isError ? (
        <Alert color="red" title={t('dashboard.loadError')}>
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{errorText(dashboard.error, '')}</Text>
            <Button size="xs" variant="light" onClick={() => void dashboard.refetch()}>
              {t('common.retry')}
            </Button>
          </Stack>
        </Alert>
      ) : null}
      {overview ? (
        <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="md" style={{ opacity: dashboard.isPlaceholderData ? 0.6 : 1 }}>
          <StatCard
            label={t('dashboard.totalClients')}
            value={formatCount(overview.total_clients)}
            icon={<IconUsers size={20} />}
            testId="stat-total-clients"
          />
          <StatCard
            label={t('dashboard.ftdClients')}
            value={formatCount(overview.ftd_clients)}
            icon={<IconUserCheck size={20} />}
            color="teal"
            testId="stat-ftd-clients"
          />
          <StatCard
            label={t('dashboard.totalDeposits')}
            value={formatMoney(overview.total_deposit_amount)}
            icon={<IconCash size={20} />}
            color="green"
            testId="stat-total-deposits"
          />
        </SimpleGrid>
      ) : null}
    </Stack>
  );
}
