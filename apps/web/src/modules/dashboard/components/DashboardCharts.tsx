import '@mantine/charts/styles.css';
import { CLIENT_STATUS_COLORS, type DashboardResponse } from '@brokerage/shared';
import { BarChart, CompositeChart, DonutChart } from '@mantine/charts';
import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatCount, formatMoney } from '../../../lib/format';
import { isClientStatus } from '../../clients/list-state';

function ChartCard({ title, testId, children }: { title: string; testId: string; children: React.ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid={testId}>
      <Title order={5} mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/**
 * §2.4 'Monthly statistics for the last 6 months' as a chart (new clients as bars, deposit amount as a line on its own
 * axis), the lead statuses as a donut, and — for the superadmin — deposits by manager as bars.
 */
export function DashboardCharts({ data, extended }: { data: DashboardResponse; extended: boolean }) {
  const { t, i18n } = useTranslation();
  const monthLabel = (month: string) =>
    new Intl.DateTimeFormat(i18n.language, { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(
      new Date(`${month}-01T00:00:00Z`),
    );
  const monthly = data.monthly.map((m) => ({
    month: monthLabel(m.month),
    clients: m.clients,
    deposits: m.deposit_amount,
  }));
  const statuses = data.status_breakdown.map(({ status, clients }) =>
    isClientStatus(status)
      ? { name: t(`clients.statuses.${status}`), value: clients, color: `${CLIENT_STATUS_COLORS[status]}.6` }
      : { name: status, value: clients, color: 'gray.6' },
  );
  const managers = [...data.departments.sales, ...data.departments.retention, ...data.deleted_managers]
    .filter((m) => m.deposit_amount > 0)
    .sort((a, b) => b.deposit_amount - a.deposit_amount)
    .slice(0, 12)
    .map((m) => ({ manager: m.name, amount: m.deposit_amount }));

  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <div>
          <ChartCard title={t('dashboard.charts.monthly')} testId="chart-monthly">
            <CompositeChart
              h={260}
              data={monthly}
              dataKey="month"
              withLegend
              withRightYAxis
              rightYAxisProps={{ tickFormatter: (v: number) => formatMoney(v) }}
              valueFormatter={(v) => formatCount(v)}
              series={[
                { name: 'clients', label: t('dashboard.charts.newClients'), color: 'blue.6', type: 'bar' },
                {
                  name: 'deposits',
                  label: t('dashboard.charts.depositAmount'),
                  color: 'teal.6',
                  type: 'line',
                  yAxisId: 'right',
                },
              ]}
            />
          </ChartCard>
        </div>
        <ChartCard title={t('dashboard.charts.statuses')} testId="chart-statuses">
          {statuses.length === 0 ? (
            <Text c="dimmed" ta="center" py="xl">
              {t('dashboard.charts.noData')}
            </Text>
          ) : (
            <Stack align="center" gap="xs">
              <DonutChart
                // Each segment is an svg image: it carries its name and count (axe svg-img-alt).
                data={statuses.map((s) => ({ ...s, 'aria-label': `${s.name}: ${s.value}` }))}
                withTooltip
                tooltipDataSource="segment"
                size={180}
                thickness={28}
              />
              <Stack gap={2} w="100%">
                {statuses.map((s) => (
                  <Text key={s.name} size="xs" c="dimmed">
                    <Text span c={s.color} fw={700}>
                      ●
                    </Text>{' '}
                    {s.name}: {formatCount(s.value)}
                  </Text>
                ))}
              </Stack>
            </Stack>
          )}
        </ChartCard>
      </SimpleGrid>
      {extended ? (
        <ChartCard title={t('dashboard.charts.byManager')} testId="chart-managers">
          {managers.length === 0 ? (
            <Text c="dimmed" ta="center" py="xl">
              {t('dashboard.charts.noData')}
            </Text>
          ) : (
            <BarChart
              h={Math.max(160, managers.length * 34)}
              data={managers}
              dataKey="manager"
              orientation="vertical"
              yAxisProps={{ width: 150 }}
              valueFormatter={(v) => formatMoney(v)}
              series={[{ name: 'amount', label: t('dashboard.charts.depositAmount'), color: 'teal.6' }]}
            />
          )}
        </ChartCard>
      ) : null}
    </Stack>
  );
}
