import { REMINDER_STATUSES, type Reminder, type ReminderStatus } from '@brokerage/shared';
import { Button, Group, Modal, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { ErrorBox } from '../../ui/ErrorBox';
import { instantToZonedInput, zonedInputToInstant } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { useUpdateReminder } from '../../clients/api/client-card';
import { reminderTimeInPast } from '../past';

/** D19: an instant as the value of a datetime-local input, the business zone's wall time. */
export function toLocalInput(iso: string, timeZone: string): string {
  return instantToZonedInput(iso, timeZone);
}

function EditForm({ reminder, onClose }: { reminder: Reminder; onClose: () => void }) {
  const { t } = useTranslation('notify');
  const { t: tRoot } = useTranslation();
  const update = useUpdateReminder();
  const timeZone = useCurrentUser().business_timezone;
  const [title, setTitle] = useState(reminder.title);
  const [description, setDescription] = useState(reminder.description);
  const [when, setWhen] = useState(toLocalInput(reminder.scheduled_time, timeZone));
  const [status, setStatus] = useState<ReminderStatus>(reminder.status);
  const moment = when ? zonedInputToInstant(when, timeZone) : null;
  // Judged when the time is changed (an event, not the render); an unchanged old time is fine.
  const [inPast, setInPast] = useState(false);
  const valid = title.trim() !== '' && moment !== null && !Number.isNaN(moment.getTime()) && !inPast;
  const failure =
    update.error instanceof ApiError && update.error.detail
      ? update.error.detail
      : update.error
        ? t('calendar.errors.save')
        : null;

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!valid || !moment) return;
    update.mutate(
      { id: reminder.id, body: { title: title.trim(), description, scheduled_time: moment.toISOString(), status } },
      { onSuccess: onClose },
    );
  };

  return (
    <form onSubmit={submit} noValidate data-testid="reminder-edit-form">
      <Stack>
        <ErrorBox message={failure} />
        <TextInput
          label={tRoot('clients.reminders.fields.title')}
          required
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          data-autofocus
          data-testid="reminder-edit-title"
        />
        <Textarea
          label={tRoot('clients.reminders.fields.description')}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          data-testid="reminder-edit-description"
        />
        <TextInput
          label={tRoot('clients.reminders.fields.time')}
          required
          type="datetime-local"
          value={when}
          onChange={(e) => {
            const value = e.currentTarget.value;
            setWhen(value);
            setInPast(
              reminderTimeInPast(
                value ? zonedInputToInstant(value, timeZone) : null,
                Date.now(),
                reminder.scheduled_time,
              ),
            );
          }}
          error={inPast ? tRoot('clients.reminders.inPast') : undefined}
          description={tRoot('clients.reminders.zoneHint', { zone: timeZone })}
          data-testid="reminder-edit-time"
        />
        <Select
          label={t('reminders.status')}
          data={REMINDER_STATUSES.map((s) => ({ value: s, label: t(`calendar.statuses.${s}`) }))}
          value={status}
          onChange={(v) => v && setStatus(v as ReminderStatus)}
          allowDeselect={false}
          data-testid="reminder-edit-status"
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('calendar.cancel')}
          </Button>
          <Button type="submit" disabled={!valid} loading={update.isPending} data-testid="reminder-edit-save">
            {t('reminders.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6/§2.7 edit modal: title, description, date-time and status. */
export function ReminderEditModal({ reminder, onClose }: { reminder: Reminder | null; onClose: () => void }) {
  const { t } = useTranslation('notify');
  return (
    <Modal opened={reminder !== null} onClose={onClose} title={t('reminders.editTitle')} centered>
      {reminder ? <EditForm reminder={reminder} onClose={onClose} /> : null}
    </Modal>
  );
}
