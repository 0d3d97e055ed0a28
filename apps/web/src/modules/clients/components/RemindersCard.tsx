import type { Reminder, ReminderStatus } from '@brokerage/shared';
import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconCheck, IconEdit, IconPlus, IconTrash, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '../../../lib/api';
import { formatDateTime, zonedInputToInstant } from '../../../lib/format';
import { ErrorBox } from '../../ui/ErrorBox';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { ReminderEditModal } from '../../reminders-calendar/components/ReminderEditModal';
import { reminderTimeInPast } from '../../reminders-calendar/past';
import { useAddReminder, useClientReminders, useDeleteReminder, useSetReminderStatus } from '../api/client-card';

/** §4: pending yellow, completed green, cancelled red. */
const STATUS_COLORS: Record<ReminderStatus, string> = { pending: 'yellow', completed: 'green', cancelled: 'red' };

function ReminderForm({ clientId, timeZone, onClose }: { clientId: number; timeZone: string; onClose: () => void }) {
  const { t } = useTranslation();
  const add = useAddReminder(clientId);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [when, setWhen] = useState('');
  // D19: the typed time is the business zone's wall time, whatever zone the browser is in.
  const moment = when ? zonedInputToInstant(when, timeZone) : null;
  // Judged when the time is typed (an event, not the render): a time already gone is refused at once.
  const [inPast, setInPast] = useState(false);
  const valid = title.trim() !== '' && moment !== null && !Number.isNaN(moment.getTime()) && !inPast;

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!valid || !moment) return;
    add.mutate({ title, description, scheduled_time: moment.toISOString() }, { onSuccess: onClose });
  };

  return (
    <form onSubmit={submit} noValidate data-testid="reminder-form">
      <Stack>
        <ErrorBox message={add.error ? errorText(add.error, t('clients.reminders.error')) : null} />
        <TextInput
          label={t('clients.reminders.fields.title')}
          required
          value={title}
          onChange={(event) => setTitle(event.currentTarget.value)}
          data-autofocus
          data-testid="reminder-title"
        />
        <Textarea
          label={t('clients.reminders.fields.description')}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          data-testid="reminder-description"
        />
        <TextInput
          label={t('clients.reminders.fields.time')}
          required
          type="datetime-local"
          value={when}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setWhen(value);
            setInPast(reminderTimeInPast(value ? zonedInputToInstant(value, timeZone) : null, Date.now()));
          }}
          error={inPast ? t('clients.reminders.inPast') : undefined}
          description={t('clients.reminders.zoneHint', { zone: timeZone })}
          data-testid="reminder-time"
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={!valid} loading={add.isPending} data-testid="reminder-save">
            {t('clients.reminders.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6 reminders card: the first five with complete, cancel, edit and delete, an 'Add' button, and a link to the calendar. */
export function RemindersCard({ clientId, timeZone }: { clientId: number; timeZone: string }) {
  const { t } = useTranslation();
  const reminders = useClientReminders(clientId);
  const setStatus = useSetReminderStatus();
  const remove = useDeleteReminder();
  const { t: tn } = useTranslation('notify');
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Reminder | null>(null);
  const [deleting, setDeleting] = useState<Reminder | null>(null);
  const items = (reminders.data?.items ?? []).slice(0, 5);
  const failure = setStatus.error ?? remove.error ?? reminders.error;

  return (
    <Paper withBorder radius="md" p="md" data-testid="client-reminders">
      <Group justify="space-between" mb="md">
        <Title order={4}>{t('clients.reminders.title')}</Title>
        <Button
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => setAdding(true)}
          data-testid="reminder-add"
        >
          {t('clients.reminders.add')}
        </Button>
      </Group>
      <ErrorBox message={failure ? errorText(failure, t('clients.reminders.error')) : null} />
      <Stack gap="xs">
        {!reminders.isPending && items.length === 0 ? (
          <Text c="dimmed" size="sm" ta="center">
            {t('clients.reminders.empty')}
          </Text>
        ) : null}
        {items.map((reminder) => (
          <Paper key={reminder.id} withBorder p="sm" radius="sm" data-testid="reminder" data-status={reminder.status}>
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Text size="sm" fw={600}>
                  {reminder.title}
                </Text>
                {reminder.description ? (
                  <Text size="xs" c="dimmed">
                    {reminder.description}
                  </Text>
                ) : null}
                <Text size="xs">{formatDateTime(reminder.scheduled_time, timeZone)}</Text>
              </Stack>
              <Stack gap={4} align="flex-end">
                <Badge color={STATUS_COLORS[reminder.status]} variant="light" size="sm">
                  {t(`clients.reminders.statuses.${reminder.status}`)}
                </Badge>
                {reminder.status === 'pending' ? (
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant="light"
                      color="green"
                      leftSection={<IconCheck size={12} />}
                      onClick={() => setStatus.mutate({ id: reminder.id, status: 'completed' })}
                      data-testid="reminder-complete"
                    >
                      {t('clients.reminders.complete')}
                    </Button>
                    <Button
                      size="compact-xs"
                      variant="light"
                      color="gray"
                      leftSection={<IconX size={12} />}
                      onClick={() => setStatus.mutate({ id: reminder.id, status: 'cancelled' })}
                      data-testid="reminder-cancel"
                    >
                      {t('clients.reminders.cancel')}
                    </Button>
                  </Group>
                ) : null}
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    leftSection={<IconEdit size={12} />}
                    onClick={() => setEditing(reminder)}
                    data-testid="reminder-edit"
                  >
                    {tn('reminders.edit')}
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    leftSection={<IconTrash size={12} />}
                    onClick={() => setDeleting(reminder)}
                    data-testid="reminder-delete"
                  >
                    {tn('reminders.delete')}
                  </Button>
                </Group>
              </Stack>
            </Group>
          </Paper>
        ))}
      </Stack>
      {(reminders.data?.total ?? 0) > 5 ? (
        <Anchor component={Link} to="/crm/calendar" size="sm" mt="sm" display="block">
          {t('clients.reminders.showAll')}
        </Anchor>
      ) : null}
      <ReminderEditModal reminder={editing} onClose={() => setEditing(null)} />
      <ConfirmModal
        opened={deleting !== null}
        title={tn('reminders.deleteTitle')}
        text={tn('reminders.confirmDelete')}
        confirmLabel={tn('reminders.delete')}
        loading={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSettled: () => setDeleting(null) })}
        onClose={() => setDeleting(null)}
      />
      <Modal opened={adding} onClose={() => setAdding(false)} title={t('clients.reminders.addTitle')} centered>
        {adding ? <ReminderForm clientId={clientId} timeZone={timeZone} onClose={() => setAdding(false)} /> : null}
      </Modal>
    </Paper>
  );
}
