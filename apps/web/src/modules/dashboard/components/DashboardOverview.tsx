import { can } from '@brokerage/shared';
import { Alert, Anchor, Button, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import {
  IconCash,
  IconChartPie,
  IconExternalLink,
  IconReceipt,
  IconUserCheck,
  IconUsers,
  IconWallet,
} from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { DEFAULT_BUSINESS_TIME_ZONE, formatCount, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { SummaryCards } from '../../ui/SummaryCards';
import { filtersFromParams, paramsFromFilters, useDashboard, type DashboardFilters } from '../api/dashboard';
import { DashboardCharts } from './DashboardCharts';
import { DashboardClock } from './DashboardClock';
import { DashboardFiltersBar } from './DashboardFiltersBar';
import { DashboardSections } from './DashboardSections';

function formatDay(day: string, lang: string): string {
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'ru-RU', { timeZone: 'UTC' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/**
 * §2.4 the dashboard: greeting, clock, terminal link, filters (kept in the URL), stat cards, charts and — for the
 * superadmin (dashboard.extended) — the department, deleted-manager and affiliate sections. Every figure comes from
 * GET /api/dashboard; the spec's in-browser fallback is not built (decisions.md).
 */
export function DashboardOverview() {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const extended = can(user.role, 'dashboard.extended');
  const [params, setParams] = useSearchParams();
  const filters = filtersFromParams(params);
  const setFilters = (next: DashboardFilters) => setParams(paramsFromFilters(next), { replace: true });
  const dashboard = useDashboard(extended ? filters : { ...filters, managerIds: [], dateFrom: null, dateTo: null });
  const data = dashboard.data;
  const timeZone = data?.timezone.timezone ?? DEFAULT_BUSINESS_TIME_ZONE;
  const overview = data?.overview;

  return (
    <Stack gap="lg" data-testid="dashboard">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
        <Stack gap={4}>
          <Title order={2}>{t('dashboard.title')}</Title>
          <Text c="dimmed" data-testid="dashboard-greeting">
            {t('dashboard.welcome', { name: user.name || user.email })}
          </Text>
        </Stack>
        <Stack gap="xs" align="flex-end">
          <DashboardClock timeZone={timeZone} />
          <Anchor href="/trading" target="_blank" rel="noopener noreferrer" data-testid="open-trading">
            <Group gap={6} wrap="nowrap">
              <IconExternalLink size={16} />
              {t('dashboard.openTrading')}
            </Group>
          </Anchor>
        </Stack>
      </Group>

      <DashboardFiltersBar
        value={filters}
        onChange={setFilters}
        extended={extended}
        deletedManagers={data?.deleted_managers ?? []}
      />
      {data ? (
        <Text size="sm" c="dimmed" data-testid="dashboard-range">
          {data.range.from
            ? t('dashboard.rangeLabel', {
                from: formatDay(data.range.from, i18n.language),
                to: formatDay(data.range.to ?? data.range.from, i18n.language),
              })
            : t('dashboard.rangeAll')}
        </Text>
      ) : null}

      {dashboard.isError ? (
        <Alert color="red" title={t('dashboard.loadError')} data-testid="dashboard-error">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{errorText(dashboard.error, '')}</Text>
            <Button size="xs" variant="light" onClick={() => void dashboard.refetch()}>
              {t('dashboard.retry')}
            </Button>
          </Stack>
        </Alert>
      ) : null}

      {dashboard.isPending ? (
        <Stack gap="md" data-testid="dashboard-loading" aria-label={t('dashboard.loading')}>
          <Text size="sm" c="dimmed">
            {t('dashboard.loading')}
          </Text>
          <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
            {Array.from({ length: 6 }, (_, i) => (
              <Skeleton key={i} h={86} radius="md" />
            ))}
          </SimpleGrid>
          <Skeleton h={300} radius="md" />
        </Stack>
      ) : null}

      {overview && data ? (
        <Stack gap="lg" style={{ opacity: dashboard.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}>
          <SummaryCards
            mb={0}
            cols={{ base: 1, xs: 2, md: 3 }}
            cards={(
              [
                [
                  'stat-total-clients',
                  t('dashboard.totalClients'),
                  formatCount(overview.total_clients),
                  IconUsers,
                  'blue',
                ],
                [
                  'stat-ftd-clients',
                  t('dashboard.ftdClients'),
                  formatCount(overview.ftd_clients),
                  IconUserCheck,
                  'teal',
                ],
                [
                  'stat-conversion',
                  t('dashboard.conversion'),
                  `${overview.conversion_rate.toFixed(1)}%`,
                  IconChartPie,
                  'grape',
                ],
                [
                  'stat-total-deposits',
                  t('dashboard.totalDeposits'),
                  formatMoney(overview.total_deposit_amount),
                  IconCash,
                  'green',
                ],
                [
                  'stat-deposit-count',
                  t('dashboard.depositCount'),
                  formatCount(overview.deposit_count),
                  IconReceipt,
                  'cyan',
                ],
                [
                  'stat-trading-balance',
                  t('dashboard.tradingBalance'),
                  formatMoney(overview.total_trading_balance),
                  IconWallet,
                  'orange',
                ],
              ] as const
            ).map(([testId, label, value, Icon, color]) => ({ testId, label, value, icon: <Icon size={20} />, color }))}
          />
          <DashboardCharts data={data} extended={extended} />
          {extended ? <DashboardSections data={data} /> : null}
        </Stack>
      ) : null}
    </Stack>
  );
}
