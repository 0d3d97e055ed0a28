import { REMINDER_STATUSES, type Reminder, type ReminderStatus } from '@brokerage/shared';
import {
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconCheck, IconChevronLeft, IconChevronRight, IconEdit, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { DateInput } from '@mantine/dates';
import { formatDate, formatTime } from '../../../lib/format';
import { useSetReminderStatus } from '../../clients/api/client-card';
import { useStaffOptions } from '../../staff/api/staff';
import { ErrorBox } from '../../ui/ErrorBox';
import { PageHeader } from '../../ui/PageHeader';
import { DEFAULT_FILTERS, useCalendarReminders, type CalendarFilters, type Period } from '../api/calendar';
import { ReminderEditModal } from './ReminderEditModal';

const STATUS_COLORS: Record<ReminderStatus, string> = { pending: 'yellow', completed: 'green', cancelled: 'red' };
const PERIODS: Period[] = ['all', 'day', 'week', 'month', 'range'];

function ReminderItem({
  reminder,
  timeZone,
  onEdit,
}: {
  reminder: Reminder;
  timeZone: string;
  onEdit: (r: Reminder) => void;
}) {
  const { t } = useTranslation('notify');
  const navigate = useNavigate();
  const setStatus = useSetReminderStatus();
  const at = new Date(reminder.scheduled_time);
  const stop = (e: React.MouseEvent) => e.stopPropagation();
  return (
    <Paper withBorder p="sm" radius="md" data-testid="calendar-reminder" data-status={reminder.status}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
        <UnstyledButton
          onClick={() => void navigate(`/crm/clients/${reminder.client_id}`)}
          style={{ minWidth: 0, flex: '1 1 240px' }}
          data-testid="calendar-reminder-open"
        >
          <Stack gap={2}>
            <Group gap="xs">
              <Text fw={700}>{reminder.title}</Text>
              <Badge color={STATUS_COLORS[reminder.status]} variant="light" size="sm">
                {t(`calendar.statuses.${reminder.status}`)}
              </Badge>
            </Group>
            <Text size="sm">
              {t('calendar.at', { date: formatDate(at, timeZone), time: formatTime(at, timeZone) })}
            </Text>
            <Text size="sm">{t('calendar.client', { name: reminder.client_name })}</Text>
            {reminder.description ? (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {reminder.description}
              </Text>
            ) : null}
            <Text size="xs" c="dimmed">
              {t('calendar.createdBy', { name: reminder.created_by_name ?? '—' })}
            </Text>
          </Stack>
        </UnstyledButton>
        <Group gap={4} onClick={stop}>
          {reminder.status === 'pending' ? (
            <>
              <Button
                size="compact-sm"
                variant="light"
                color="green"
                leftSection={<IconCheck size={14} />}
                loading={setStatus.isPending && setStatus.variables?.status === 'completed'}
                onClick={() => setStatus.mutate({ id: reminder.id, status: 'completed' })}
                data-testid="calendar-complete"
              >
                {t('calendar.complete')}
              </Button>
              <Button
                size="compact-sm"
                variant="light"
                color="red"
                leftSection={<IconX size={14} />}
                loading={setStatus.isPending && setStatus.variables?.status === 'cancelled'}
                onClick={() => setStatus.mutate({ id: reminder.id, status: 'cancelled' })}
                data-testid="calendar-cancel"
              >
                {t('calendar.cancel')}
              </Button>
            </>
          ) : null}
          <Button
            size="compact-sm"
            variant="subtle"
            leftSection={<IconEdit size={14} />}
            onClick={() => onEdit(reminder)}
            data-testid="calendar-edit"
          >
            {t('calendar.edit')}
          </Button>
        </Group>
      </Group>
      <ErrorBox message={setStatus.isError ? t('calendar.errors.status') : null} />
    </Paper>
  );
}

/** §2.7 the reminder calendar: filters, the server's page of reminders, status changes and the edit modal. */
export function ReminderCalendar({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation('notify');
  const [filters, setFilters] = useState<CalendarFilters>(DEFAULT_FILTERS);
  const [editing, setEditing] = useState<Reminder | null>(null);
  const reminders = useCalendarReminders(filters);
  const staff = useStaffOptions();
  const set = (patch: Partial<CalendarFilters>) => setFilters((f) => ({ ...f, page: 1, ...patch }));

  const total = reminders.data?.total ?? 0;
  const items = reminders.data?.items ?? [];
  const pages = Math.max(1, Math.ceil(total / filters.perPage));
  const first = total === 0 ? 0 : (filters.page - 1) * filters.perPage + 1;
  const last = (filters.page - 1) * filters.perPage + items.length;
  const managers = (staff.data ?? []).map((u) => ({
    value: u.id,
    label: u.name || u.full_name || t('calendar.user', { id: u.id }),
  }));

  return (
    <Stack gap="md" data-testid="reminder-calendar">
      <PageHeader title={t('calendar.title')} subtitle={t('calendar.subtitle')} />
      <Paper withBorder radius="md" p="md">
        <Stack gap="sm">
          <SegmentedControl
            data={PERIODS.map((p) => ({ value: p, label: t(`calendar.periods.${p}`) }))}
            value={filters.period}
            onChange={(v) => set({ period: v as Period })}
            aria-label={t('calendar.period')}
            fullWidth
            data-testid="calendar-period"
          />
          <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
            {filters.period === 'day' || filters.period === 'week' || filters.period === 'month' ? (
              <DateInput
                label={t('calendar.date')}
                value={filters.date ?? null}
                onChange={(date) => set({ date: date || null })}
                valueFormat="DD.MM.YYYY"
                placeholder={t('calendar.datePlaceholder')}
                clearable
                data-testid="calendar-date"
              />
            ) : null}
            {filters.period === 'range' ? (
              <>
                <DateInput
                  label={t('calendar.dateFrom')}
                  value={filters.dateFrom || null}
                  onChange={(date) => set({ dateFrom: date ?? '' })}
                  valueFormat="DD.MM.YYYY"
                  placeholder={t('calendar.datePlaceholder')}
                  data-testid="calendar-date-from"
                />
                <DateInput
                  label={t('calendar.dateTo')}
                  value={filters.dateTo || null}
                  onChange={(date) => set({ dateTo: date ?? '' })}
                  valueFormat="DD.MM.YYYY"
                  placeholder={t('calendar.datePlaceholder')}
                  data-testid="calendar-date-to"
                />
              </>
            ) : null}
            <Select
              label={t('calendar.sort')}
              data={[
                { value: 'desc', label: t('calendar.sorts.desc') },
                { value: 'asc', label: t('calendar.sorts.asc') },
              ]}
              value={filters.order}
              onChange={(v) => v && set({ order: v as 'asc' | 'desc' })}
              allowDeselect={false}
              data-testid="calendar-sort"
            />
            <Select
              label={t('calendar.show')}
              data={['25', '50', '100']}
              value={String(filters.perPage)}
              onChange={(v) => v && set({ perPage: Number(v) as 25 | 50 | 100 })}
              allowDeselect={false}
              data-testid="calendar-per-page"
            />
            <Select
              label={t('calendar.status')}
              data={[
                { value: 'all', label: t('calendar.statuses.all') },
                ...REMINDER_STATUSES.map((s) => ({ value: s, label: t(`calendar.statuses.${s}`) })),
              ]}
              value={filters.status}
              onChange={(v) => v && set({ status: v as CalendarFilters['status'] })}
              allowDeselect={false}
              data-testid="calendar-status"
            />
            <Select
              label={t('calendar.manager')}
              placeholder={t('calendar.allManagers')}
              data={[{ value: '', label: t('calendar.allManagers') }, ...managers]}
              value={filters.manager ?? ''}
              onChange={(v) => set({ manager: v || null })}
              searchable
              data-testid="calendar-manager"
            />
          </SimpleGrid>
          <Group>
            <Button variant="subtle" onClick={() => setFilters(DEFAULT_FILTERS)} data-testid="calendar-clear">
              {t('calendar.clear')}
            </Button>
          </Group>
          <ErrorBox message={staff.isError ? t('calendar.errors.users') : null} />
        </Stack>
      </Paper>

      <Group justify="space-between" wrap="wrap">
        <Title order={4}>{t(`calendar.headings.${filters.period}`)}</Title>
        <Text size="sm" c="dimmed" data-testid="calendar-summary">
          {t('calendar.summary', { shown: items.length, total, page: filters.page, pages })}
        </Text>
      </Group>
      <ErrorBox message={reminders.isError ? t('calendar.errors.load') : null} />
      {reminders.isPending ? (
        <Group justify="center" py="lg" role="status">
          <Loader size="sm" />
        </Group>
      ) : null}
      {!reminders.isPending && !reminders.isError && items.length === 0 ? (
        <Text c="dimmed" ta="center" py="lg" data-testid="calendar-empty">
          {t('calendar.empty')}
        </Text>
      ) : null}
      <Stack gap="sm" style={{ opacity: reminders.isPlaceholderData ? 0.6 : 1 }}>
        {items.map((r) => (
          <ReminderItem key={r.id} reminder={r} timeZone={timeZone} onEdit={setEditing} />
        ))}
      </Stack>
      {total > 0 ? (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {t('calendar.range', { from: first, to: last, total })}
          </Text>
          <Group gap="xs">
            <Button
              variant="default"
              leftSection={<IconChevronLeft size={16} />}
              disabled={filters.page <= 1}
              onClick={() => setFilters((f) => ({ ...f, page: f.page - 1 }))}
              data-testid="calendar-prev"
            >
              {t('calendar.back')}
            </Button>
            <Text size="sm">{t('calendar.page', { page: filters.page, pages })}</Text>
            <Button
              variant="default"
              rightSection={<IconChevronRight size={16} />}
              disabled={filters.page >= pages}
              onClick={() => setFilters((f) => ({ ...f, page: f.page + 1 }))}
              data-testid="calendar-next"
            >
              {t('calendar.next')}
            </Button>
          </Group>
        </Group>
      ) : null}
      <ReminderEditModal reminder={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}
