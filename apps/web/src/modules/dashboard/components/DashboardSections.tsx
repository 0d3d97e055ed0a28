import type { DashboardAffiliateRow, DashboardManagerRow, DashboardResponse } from '@brokerage/shared';
import { Badge, Collapse, Group, Paper, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatMoney } from '../../../lib/format';
import { roleLabelKey } from '../../ui/role-label';
import { SortableStatsTable, type StatsColumn } from './SortableStatsTable';

/** A collapsible section of the superadmin's statistics (§2.4: 'each section collapsible'). */
function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const [open, setOpen] = useState(true);
  const Chevron = open ? IconChevronDown : IconChevronRight;
  return (
    <Paper withBorder radius="md" p="md" data-testid={`section-${id}`} data-open={open}>
      <UnstyledButton
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        w="100%"
        data-testid={`section-${id}-toggle`}
      >
        <Group gap="xs">
          <Chevron size={18} />
          <Title order={4}>{title}</Title>
        </Group>
      </UnstyledButton>
      <Collapse in={open}>
        <Stack gap="md" mt="md">
          {children}
        </Stack>
      </Collapse>
    </Paper>
  );
}

function useManagerColumns(deleted: boolean): StatsColumn<DashboardManagerRow>[] {
  const { t } = useTranslation();
  return [
    {
      key: 'name',
      label: t('dashboard.columns.manager'),
      value: (r) => r.name,
      render: (r) => (
        <div>
          <Text size="sm" fw={500}>
            {deleted ? `${r.name || t('dashboard.sections.deletedManager')} ${t('dashboard.deletedSuffix')}` : r.name}
          </Text>
          <Text size="xs" c="dimmed">
            {t(roleLabelKey(r.role))}
          </Text>
        </div>
      ),
    },
    { key: 'clients', label: t('dashboard.columns.clients'), value: (r) => r.clients, numeric: true },
    { key: 'ftd', label: t('dashboard.columns.ftd'), value: (r) => r.ftd, numeric: true },
    {
      key: 'deposit_amount',
      label: t('dashboard.columns.depositAmount'),
      value: (r) => r.deposit_amount,
      render: (r) => formatMoney(r.deposit_amount),
      numeric: true,
    },
    { key: 'deposit_count', label: t('dashboard.columns.depositCount'), value: (r) => r.deposit_count, numeric: true },
  ];
}

const AFFILIATE_STATUS_COLORS = { active: 'teal', inactive: 'gray', paused: 'yellow', deleted: 'red' } as const;

function AffiliatesTable({ rows }: { rows: DashboardAffiliateRow[] }) {
  const { t } = useTranslation();
  const columns: StatsColumn<DashboardAffiliateRow>[] = [
    {
      key: 'name',
      label: t('dashboard.columns.affiliate'),
      value: (r) => r.name,
      render: (r) => (
        <Text size="sm" fw={600}>
          {r.name}
        </Text>
      ),
    },
    {
      key: 'status',
      label: t('dashboard.columns.status'),
      value: (r) => r.status,
      render: (r) => (
        <Badge variant="light" color={AFFILIATE_STATUS_COLORS[r.status]}>
          {t(`dashboard.affiliateStatuses.${r.status}`)}
        </Badge>
      ),
    },
    { key: 'clients', label: t('dashboard.columns.clients'), value: (r) => r.clients, numeric: true },
    { key: 'ftd', label: t('dashboard.columns.ftd'), value: (r) => r.ftd, numeric: true },
    {
      key: 'conversion_rate',
      label: t('dashboard.columns.conversion'),
      value: (r) => r.conversion_rate,
      render: (r) => `${r.conversion_rate.toFixed(1)}%`,
      numeric: true,
    },
    {
      key: 'deposit_amount',
      label: t('dashboard.columns.depositAmount'),
      value: (r) => r.deposit_amount,
      render: (r) => formatMoney(r.deposit_amount),
      numeric: true,
    },
  ];
  return (
    <SortableStatsTable
      rows={rows}
      columns={columns}
      rowKey={(r) => `${r.affiliate_id ?? 'name'}:${r.name}`}
      initialSort="clients"
      emptyText={t('dashboard.sections.noAffiliates')}
      testId="affiliates-stats"
      minWidth={720}
      expanded={(r) =>
        r.campaigns.map((c) => (
          <Table.Tr key={`${r.name}:${c.campaign}`} data-testid="affiliates-stats-campaign">
            <Table.Td pl="xl" colSpan={2}>
              <Text size="xs" c="dimmed">
                ↳ {c.campaign}
              </Text>
            </Table.Td>
            <Table.Td ta="right">
              <Text size="xs">{formatCount(c.clients)}</Text>
            </Table.Td>
            <Table.Td ta="right">
              <Text size="xs">{formatCount(c.ftd)}</Text>
            </Table.Td>
            <Table.Td ta="right">
              <Text size="xs">{c.conversion_rate.toFixed(1)}%</Text>
            </Table.Td>
            <Table.Td ta="right">
              <Text size="xs">{formatMoney(c.deposit_amount)}</Text>
            </Table.Td>
          </Table.Tr>
        ))
      }
    />
  );
}

/** §2.4's superadmin sections: departments (sales, retention), deleted managers, affiliates with their campaigns. */
export function DashboardSections({ data }: { data: DashboardResponse }) {
  const { t } = useTranslation();
  const live = useManagerColumns(false);
  const deleted = useManagerColumns(true);
  return (
    <Stack gap="md">
      <Section id="departments" title={t('dashboard.sections.departments')}>
        {(['sales', 'retention'] as const).map((department) => (
          <div key={department}>
            <Text fw={600} mb={4}>
              {t(`dashboard.sections.${department}`)}
            </Text>
            <SortableStatsTable
              rows={data.departments[department]}
              columns={live}
              rowKey={(r) => r.manager_id}
              initialSort="deposit_amount"
              emptyText={t('dashboard.sections.noManagers')}
              testId={`department-${department}`}
            />
          </div>
        ))}
      </Section>
      <Section id="deleted" title={t('dashboard.sections.deleted')}>
        <SortableStatsTable
          rows={data.deleted_managers}
          columns={deleted}
          rowKey={(r) => r.manager_id}
          initialSort="deposit_amount"
          emptyText={t('dashboard.sections.noDeleted')}
          testId="deleted-managers"
        />
      </Section>
      <Section id="affiliates" title={t('dashboard.sections.affiliates')}>
        <AffiliatesTable rows={data.affiliates} />
      </Section>
    </Stack>
  );
}
