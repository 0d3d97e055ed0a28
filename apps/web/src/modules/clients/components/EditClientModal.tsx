import { CLIENT_STATUSES, clientUpdateSchema, type Client, type ClientUpdate } from '@brokerage/shared';
import { Button, Group, Modal, Select, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { useStaffOptions } from '../../staff/api/staff';
import { ErrorBox } from '../../ui/ErrorBox';
import { useUpdateClient } from '../api/client-card';

interface EditClientValues {
  name: string;
  email: string;
  phone: string;
  country: string;
  campaign: string;
  source: string;
  status: string;
  notes: string;
  assigned_manager?: string | null;
}

function initialValues(client: Client, canChangeManager: boolean): EditClientValues {
  const values: EditClientValues = {
    name: client.name,
    email: client.email,
    phone: client.phone,
    country: client.country,
    campaign: client.campaign,
    source: client.source,
    status: client.status,
    notes: client.notes,
  };
  if (canChangeManager) values.assigned_manager = client.assigned_manager;
  return values;
}

/** 'Error: ' + the server's detail, else the screen's own text (§8). */
export function useErrorWithDetail() {
  const { t } = useTranslation();
  return (error: unknown, fallback: string) =>
    error instanceof ApiError && error.detail ? t('clients.card.errorDetail', { detail: error.detail }) : fallback;
}

function EditClientForm({
  client,
  canChangeManager,
  onClose,
}: {
  client: Client;
  canChangeManager: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const update = useUpdateClient(client.id);
  const staff = useStaffOptions({ enabled: canChangeManager });
  const withDetail = useErrorWithDetail();
  const form = useForm<EditClientValues>({
    mode: 'controlled',
    initialValues: initialValues(client, canChangeManager),
    validate: schemaValidator<EditClientValues>(clientUpdateSchema, t),
  });

  const submit = form.onSubmit((values) => {
    const body: ClientUpdate = clientUpdateSchema.parse(values);
    update.mutate(body, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('clients.card.updated') });
        onClose();
      },
    });
  });

  const statusOptions = CLIENT_STATUSES.map((status) => ({ value: status, label: t(`clients.statuses.${status}`) }));
  const managerOptions = (staff.data ?? []).map((member) => ({
    value: member.id,
    label: member.full_name || member.name,
  }));
  if (client.assigned_manager && !managerOptions.some((option) => option.value === client.assigned_manager)) {
    managerOptions.push({
      value: client.assigned_manager,
      label: client.assigned_manager_name ?? client.assigned_manager,
    });
  }

  return (
    <form onSubmit={submit} noValidate data-testid="edit-client-form">
      <Stack>
        <ErrorBox message={update.error ? withDetail(update.error, t('clients.card.updateError')) : null} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label={t('clients.card.fields.name')} required data-autofocus {...form.getInputProps('name')} />
          <TextInput label={t('clients.card.fields.email')} type="email" required {...form.getInputProps('email')} />
          <TextInput label={t('clients.card.fields.phone')} required {...form.getInputProps('phone')} />
          <TextInput label={t('clients.card.fields.country')} required {...form.getInputProps('country')} />
          <TextInput label={t('clients.card.fields.campaign')} {...form.getInputProps('campaign')} />
          <TextInput label={t('clients.card.fields.source')} {...form.getInputProps('source')} />
          <Select
            label={t('clients.card.fields.status')}
            data={statusOptions}
            allowDeselect={false}
            data-testid="edit-client-status"
            {...form.getInputProps('status')}
          />
          {canChangeManager ? (
            <Select
              label={t('clients.card.fields.manager')}
              data={managerOptions}
              placeholder={t('clients.unassigned')}
              clearable
              searchable
              data-testid="edit-client-manager"
              {...form.getInputProps('assigned_manager')}
            />
          ) : null}
        </SimpleGrid>
        <Textarea
          label={t('clients.card.fields.notes')}
          autosize
          maxRows={8}
          minRows={3}
          {...form.getInputProps('notes')}
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={update.isPending} data-testid="edit-client-save">
            {t('clients.card.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6 editing of the main information: every field of the card, the manager only for roles that may assign. */
export function EditClientModal({
  client,
  opened,
  canChangeManager,
  onClose,
}: {
  client: Client;
  opened: boolean;
  canChangeManager: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('clients.card.editTitle')} size="lg" centered>
      {opened ? <EditClientForm client={client} canChangeManager={canChangeManager} onClose={onClose} /> : null}
    </Modal>
  );
}
