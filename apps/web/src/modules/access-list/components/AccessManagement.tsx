import type { IpWhitelistEntry } from '@brokerage/shared';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLock, IconLockOpen, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { ConfirmModal } from '../../ui/ConfirmModal';
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
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="sm" data-testid="ip-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('access.columns.ip')}</Table.Th>
                <Table.Th>{t('access.columns.description')}</Table.Th>
                <Table.Th>{t('access.columns.addedAt')}</Table.Th>
                <Table.Th ta="right">{t('access.columns.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {whitelist.isPending ? (
                <Table.Tr>
                  <Table.Td colSpan={4}>
                    <Group justify="center" gap="sm" py="md">
                      <Loader size="sm" />
                      <Text>{t('access.loading')}</Text>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ) : null}
              {whitelist.isSuccess && items.length === 0 ? (
                <Table.Tr>
                  <Table.Td colSpan={4}>
                    <Text ta="center" c="dimmed" py="md">
                      {t('access.empty')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ) : null}
              {items.map((entry) => (
                <Table.Tr key={entry.id} data-testid="ip-row">
                  <Table.Td>
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
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{entry.description || t('common.dash')}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(entry.created_at, timeZone)}</Text>
                    {entry.created_by_name ? (
                      <Text size="xs" c="dimmed">
                        {t('access.addedBy', { name: entry.created_by_name })}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
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
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
