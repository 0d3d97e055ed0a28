import { Button, Group, MultiSelect, Paper, Select, Stack, Text } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { IconFilterOff } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roleLabelKey } from '../../ui/role-label';
import { useStaffOptions } from '../../staff/api/staff';
import { DASHBOARD_PERIODS, isPeriod, type DashboardFilters } from '../api/dashboard';

/**
 * §2.4: the period select for everyone; for the superadmin 'Дополнительные фильтры' — a date range (sent only when both
 * ends are set), the managers '<name> (<role>)' (deleted ones that still carry deposits too) and a clear button that
 * resets the period to all, the dates and the managers.
 */
export function DashboardFiltersBar({
  value,
  onChange,
  extended,
  deletedManagers,
}: {
  value: DashboardFilters;
  onChange: (next: DashboardFilters) => void;
  extended: boolean;
  deletedManagers: { manager_id: string; name: string }[];
}) {
  const { t } = useTranslation();
  const staff = useStaffOptions({ enabled: extended });
  // A range being typed lives here until both ends are set (or both cleared).
  const [draft, setDraft] = useState<{ from: string | null; to: string | null } | null>(null);
  const from = draft ? draft.from : value.dateFrom;
  const to = draft ? draft.to : value.dateTo;
  const setDates = (next: { from: string | null; to: string | null }) => {
    if ((next.from && next.to && next.from <= next.to) || (!next.from && !next.to)) {
      setDraft(null);
      onChange({ ...value, dateFrom: next.from, dateTo: next.to });
    } else {
      setDraft(next);
    }
  };
  const managerOptions = [
    ...(staff.data ?? [])
      .filter((m) => m.role !== 'superadmin' && m.role !== 'admin')
      .map((m) => ({ value: m.id, label: `${m.full_name || m.name} (${t(roleLabelKey(m.role))})` })),
    ...deletedManagers
      .filter((m) => !(staff.data ?? []).some((s) => s.id === m.manager_id))
      .map((m) => ({ value: m.manager_id, label: `${m.name} ${t('dashboard.deletedSuffix')}` })),
  ];

  return (
    <Stack gap="sm">
      <Select
        label={t('dashboard.period')}
        data={DASHBOARD_PERIODS.map((p) => ({ value: p, label: t(`dashboard.periods.${p}`) }))}
        value={value.period}
        onChange={(p) => isPeriod(p) && onChange({ ...value, period: p })}
        allowDeselect={false}
        disabled={value.dateFrom !== null}
        description={value.dateFrom !== null ? t('dashboard.periodOverridden') : undefined}
        w={{ base: '100%', xs: 220 }}
        data-testid="dashboard-period"
      />
      {extended ? (
        <Paper withBorder radius="md" p="sm" data-testid="dashboard-extra-filters">
          <Text size="sm" fw={600} mb="xs">
            {t('dashboard.extraFilters')}
          </Text>
          <Group align="flex-end" gap="sm" wrap="wrap">
            <DateInput
              label={t('dashboard.dateFrom')}
              value={from}
              onChange={(d) => setDates({ from: d, to })}
              maxDate={to ?? undefined}
              valueFormat="DD.MM.YYYY"
              clearable
              w={{ base: '47%', xs: 150 }}
              data-testid="dashboard-date-from"
            />
            <DateInput
              label={t('dashboard.dateTo')}
              value={to}
              onChange={(d) => setDates({ from, to: d })}
              minDate={from ?? undefined}
              valueFormat="DD.MM.YYYY"
              clearable
              w={{ base: '47%', xs: 150 }}
              data-testid="dashboard-date-to"
            />
            <MultiSelect
              label={t('dashboard.managers')}
              placeholder={value.managerIds.length === 0 ? t('dashboard.allManagers') : undefined}
              data={managerOptions}
              value={value.managerIds}
              onChange={(managerIds) => onChange({ ...value, managerIds })}
              searchable
              clearable
              nothingFoundMessage={t('dashboard.noManagers')}
              w={{ base: '100%', sm: 340 }}
              data-testid="dashboard-managers"
            />
            <Button
              variant="default"
              leftSection={<IconFilterOff size={16} />}
              onClick={() => {
                setDraft(null);
                onChange({ period: 'all', dateFrom: null, dateTo: null, managerIds: [] });
              }}
              data-testid="dashboard-clear-filters"
            >
              {t('dashboard.clearFilters')}
            </Button>
          </Group>
          {draft && (draft.from === null) !== (draft.to === null) ? (
            <Text size="xs" c="dimmed" mt={6}>
              {t('dashboard.bothDates')}
            </Text>
          ) : null}
        </Paper>
      ) : null}
    </Stack>
  );
}
