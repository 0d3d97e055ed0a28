import { AUDIT_ACTIONS } from '@brokerage/shared';
import { Button, Group, Select } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { IconFilterOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { roleLabelKey } from '../../ui/role-label';
import { useStaffOptions } from '../../staff/api/staff';
import { auditActionLabel } from '../action-label';
import type { AuditFilters } from '../api/audit';

export const EMPTY_AUDIT_FILTERS: AuditFilters = { actorId: null, action: null, dateFrom: null, dateTo: null };

export function AuditFiltersPanel({
  value,
  onChange,
}: {
  value: AuditFilters;
  onChange: (next: AuditFilters) => void;
}) {
  const { t } = useTranslation();
  const staff = useStaffOptions();
  const actorOptions = (staff.data ?? []).map((member) => ({
    value: member.id,
    label: `${member.full_name || member.name} (${t(roleLabelKey(member.role))})`,
  }));
  const actionOptions = AUDIT_ACTIONS.map((action) => ({ value: action, label: auditActionLabel(action, t) }));
  const active = Object.values(value).some((v) => v !== null);

  return (
    <Group gap="sm" align="flex-end" wrap="wrap" mb="md" data-testid="audit-filters">
      <Select
        label={t('audit.filters.actor')}
        placeholder={t('audit.filters.allActors')}
        data={actorOptions}
        value={value.actorId}
        onChange={(actorId) => onChange({ ...value, actorId })}
        searchable
        clearable
        nothingFoundMessage={t('staff.empty')}
        w={{ base: '100%', xs: 240 }}
        data-testid="audit-actor"
      />
      <Select
        label={t('audit.filters.action')}
        placeholder={t('audit.filters.allActions')}
        data={actionOptions}
        value={value.action}
        onChange={(action) => onChange({ ...value, action })}
        clearable
        w={{ base: '100%', xs: 260 }}
        data-testid="audit-action"
      />
      <DateInput
        label={t('audit.filters.dateFrom')}
        value={value.dateFrom}
        onChange={(dateFrom) => onChange({ ...value, dateFrom })}
        maxDate={value.dateTo ?? undefined}
        valueFormat="DD.MM.YYYY"
        clearable
        w={{ base: '47%', xs: 150 }}
        data-testid="audit-date-from"
      />
      <DateInput
        label={t('audit.filters.dateTo')}
        value={value.dateTo}
        onChange={(dateTo) => onChange({ ...value, dateTo })}
        minDate={value.dateFrom ?? undefined}
        valueFormat="DD.MM.YYYY"
        clearable
        w={{ base: '47%', xs: 150 }}
        data-testid="audit-date-to"
      />
      <Button
        variant="default"
        leftSection={<IconFilterOff size={16} />}
        disabled={!active}
        onClick={() => onChange(EMPTY_AUDIT_FILTERS)}
        data-testid="audit-reset"
      >
        {t('audit.filters.reset')}
      </Button>
    </Group>
  );
}
