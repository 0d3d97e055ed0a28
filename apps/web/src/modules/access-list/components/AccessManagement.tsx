import type { IpWhitelistEntry } from '@brokerage/shared';
import { ActionIcon, Alert, Badge, Button, Group, Paper, Stack, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLock, IconLockOpen, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { PageHeader } from '../../ui/PageHeader';
import { useIpWhitelist, useRemoveIp } from '../api/ipWhitelist';
import { AddIpModal } from './AddIpModal';

function StatusCard({ count, yourIp }: { count: number; yourIp: string }) {
  const { t } = useTranslation();
  const restricted = count > 0;
  return (
    <Paper withBorder radius="md" p="md" mb="lg" data-testid="access-status">
      <Group wrap="nowrap" align="flex-start">
        <ThemeIcon size="xl" radius="md" variant="light" color={restricted ? 'orange' : 'green'}>
          {restricted ? <IconLock size={22} /> : <IconLockOpen size={22} />}
        </ThemeIcon>
        <Stack gap={4}>
          <Text fw={600} data-testid="access-status-text">
            {restricted ? t('access.restricted', { count }) : t('access.open')}
          </Text>
          {restricted ? null : (
            <Text size="sm" c="dimmed">
              {t('access.openText')}
            </Text>
          )}
          {yourIp ? (
            <Text size="sm" data-testid="your-ip">
              {t('access.yourIp', { ip: yourIp })}
            </Text>
          ) : null}
        </Stack>
      </Group>
    </Paper>
  );
}

/** §2.14 Access management: the staff IP whitelist. */
export function AccessManagement() {
  const { t } = useTranslation();
  const timeZone = useCurrentUser().business_timezone;
  const whitelist = useIpWhitelist();
  const remove = useRemoveIp();
  const [addOpened, setAddOpened] = useState(false);
  const [addFormKey, setAddFormKey] = useState(0);
  const [removing, setRemoving] = useState<{ entry: IpWhitelistEntry; open: boolean } | null>(null);
  const items = whitelist.data?.items ?? [];
  const yourIp = whitelist.data?.your_ip ?? '';

  const confirmRemove = (entry: IpWhitelistEntry) => {
    remove.mutate(entry.id, {
      onSuccess: () =>
        notifications.show({ color: 'green', message: t('access.deleteModal.success', { ip: entry.ip_address }) }),
      onError: (error) =>
        notifications.show({ color: 'red', message: errorText(error, t('access.deleteModal.error')) }),
      onSettled: () => setRemoving((current) => (current ? { ...current, open: false } : null)),
    });
  };

  const columns: DataColumn<IpWhitelistEntry>[] = [
    {
      key: 'ip',
      header: t('access.columns.ip'),
      cell: (entry) => (
        <Group gap="xs" wrap="nowrap">
          <Text ff="monospace" size="sm">
            {entry.ip_address}
          </Text>
          {entry.ip_address === yourIp ? (
            <Badge size="xs" variant="light" color="green">
              {t('access.yourIpListed')}
            </Badge>
          ) : null}
        </Group>
      ),
    },
    {
      key: 'description',
      header: t('access.columns.description'),
      cell: (entry) => <Text size="sm">{entry.description || t('common.dash')}</Text>,
    },
    {
      key: 'addedAt',
      header: t('access.columns.addedAt'),
      cell: (entry) => (
        <>
          <Text size="sm">{formatDateTime(entry.created_at, timeZone)}</Text>
          {entry.created_by_name ? (
            <Text size="xs" c="dimmed">
              {t('access.addedBy', { name: entry.created_by_name })}
            </Text>
          ) : null}
        </>
      ),
    },
    {
      key: 'actions',
      header: t('access.columns.actions'),
      align: 'right',
      card: 'actions',
      cell: (entry) => (
        <Group justify="flex-end">
          <Tooltip label={t('access.delete')}>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('access.delete')}
              onClick={() => setRemoving({ entry, open: true })}
              data-testid="ip-delete"
            >
              <IconTrash size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title={t('access.title')}
        subtitle={t('access.subtitle')}
        actions={
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => {
              setAddFormKey((key) => key + 1);
              setAddOpened(true);
            }}
            data-testid="add-ip"
          >
            {t('access.addIp')}
          </Button>
        }
      />
      <Alert variant="light" color="blue" mb="md">
        {t('access.explanation')}
      </Alert>
      {whitelist.data ? <StatusCard count={items.length} yourIp={yourIp} /> : null}
      {whitelist.isError ? (
        <Alert color="red" mb="md">
          {errorText(whitelist.error, t('access.listError'))}
        </Alert>
      ) : null}

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <DataTable
          items={items}
          columns={columns}
          rowKey={(entry) => entry.id}
          rowProps={() => ({ 'data-testid': 'ip-row' })}
          minWidth={640}
          testId="ip-table"
          loading={whitelist.isPending}
          loadingText={t('access.loading')}
          empty={whitelist.isSuccess && items.length === 0}
          emptyText={t('access.empty')}
        />
        <Text size="xs" c="dimmed" mt="xs" data-testid="access-time-zone">
          {t('access.timeZone', { zone: timeZone })}
        </Text>
      </Paper>

      <AddIpModal
        opened={addOpened}
        formKey={addFormKey}
        yourIp={yourIp}
        firstEntry={items.length === 0}
        onClose={() => setAddOpened(false)}
      />
      <ConfirmModal
        opened={removing?.open ?? false}
        title={t('access.deleteModal.title')}
        text={t('access.deleteModal.text')}
        confirmLabel={t('access.deleteModal.submit')}
        loading={remove.isPending}
        onConfirm={() => removing && confirmRemove(removing.entry)}
        onClose={() => setRemoving((current) => (current ? { ...current, open: false } : null))}
        onExited={() => setRemoving(null)}
      />
    </>
  );
}
