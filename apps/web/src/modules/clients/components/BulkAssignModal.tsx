import { CLIENT_STATUSES, type ClientStatus } from '@brokerage/shared';
import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import type { CompactOption } from '../../ui/CompactMultiSelect';
import { ErrorBox } from '../../ui/ErrorBox';
import { useBulkAssign } from '../api/clients';

/** The Select's value for 'Do not assign manager' / 'Do not change status' (Mantine needs a string). */
const NONE = '';

function BulkAssignForm({
  clientIds,
  managers,
  onDone,
  onClose,
}: {
  clientIds: number[];
  managers: CompactOption[];
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const assign = useBulkAssign();
  const [manager, setManager] = useState<string>(NONE);
  const [status, setStatus] = useState<string>(NONE);

  const submit = () => {
    if (clientIds.length === 0) return; // §5: nothing selected, nothing to do
    assign.mutate(
      {
        client_ids: clientIds,
        assigned_manager: manager === NONE ? null : manager,
        ...(status === NONE ? {} : { status: status as ClientStatus }),
      },
      {
        onSuccess: ({ updated }) => {
          notifications.show({ color: 'green', message: t('bulk.done', { count: updated }) });
          onDone();
        },
      },
    );
  };

  return (
    <Stack data-testid="bulk-assign-form">
      <Text fw={500}>{t('bulk.selected', { count: clientIds.length })}</Text>
      <ErrorBox message={assign.error ? errorText(assign.error, t('bulk.error')) : null} />
      <Select
        label={t('bulk.manager')}
        data={[{ value: NONE, label: t('bulk.noManager') }, ...managers]}
        value={manager}
        onChange={(value) => setManager(value ?? NONE)}
        allowDeselect={false}
        searchable
        data-autofocus
        data-testid="bulk-assign-manager"
      />
      <Select
        label={t('bulk.status')}
        data={[
          { value: NONE, label: t('bulk.keepStatus') },
          ...CLIENT_STATUSES.map((value) => ({ value, label: tr(`clients.statuses.${value}`) })),
        ]}
        value={status}
        onChange={(value) => setStatus(value ?? NONE)}
        allowDeselect={false}
        data-testid="bulk-assign-status"
      />
      <Group justify="flex-end" mt="sm">
        <Button variant="default" onClick={onClose}>
          {tr('common.cancel')}
        </Button>
        <Button onClick={submit} loading={assign.isPending} data-testid="bulk-assign-submit">
          {t('bulk.assign')}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * §2.5 bulk assign: the selected clients get the chosen manager (or none) and, if chosen, a status. The server
 * applies it to the selected clients in the caller's scope, writes an audit row each and notifies the manager (D12).
 */
export function BulkAssignModal({
  opened,
  clientIds,
  managers,
  onDone,
  onClose,
}: {
  opened: boolean;
  clientIds: number[];
  /** Staff the caller may assign (the manager filter's options without 'Не назначен'). */
  managers: CompactOption[];
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('clientBase');
  return (
    <Modal opened={opened} onClose={onClose} title={t('bulk.title')} centered>
      {opened ? <BulkAssignForm clientIds={clientIds} managers={managers} onDone={onDone} onClose={onClose} /> : null}
    </Modal>
  );
}
