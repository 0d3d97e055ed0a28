import { MAIL_STATUSES, type MailStatus } from '@brokerage/shared';
import { Alert, Group, Paper, Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../auth/current-user';
import { PageHeader } from '../../ui/PageHeader';
import { TablePager } from '../../ui/TablePager';
import { useOutbox } from '../api/outbox';
import { OutboxMessageModal } from './OutboxMessageModal';
import { OutboxTable } from './OutboxTable';

const DEFAULT_PER_PAGE = 50;

/**
 * Issue 22 §1: 'Исходящая почта' (/crm/outbox, superadmin): every message the product wrote, with its recipient,
 * subject and delivery status; a message opens as rendered. Without SMTP_URL mail is only kept, and a local setup
 * opens a verification or reset link from here.
 */
export function OutboxList() {
  const { t } = useTranslation();
  const timeZone = useCurrentUser().business_timezone;
  const [status, setStatus] = useState<MailStatus | null>(null);
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(DEFAULT_PER_PAGE);
  const [shown, setShown] = useState<{ id: number; open: boolean } | null>(null);
  const list = useOutbox({ status, search: debouncedSearch, page, perPage });
  const items = list.data?.items ?? [];
  const keptOnly = items.length > 0 && items.every((i) => i.status === 'kept');

  return (
    <>
      <PageHeader title={t('outbox.title')} subtitle={t('outbox.subtitle')} />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Group mb="md" align="flex-end" wrap="wrap">
          <Select
            label={t('outbox.filters.status')}
            placeholder={t('outbox.filters.allStatuses')}
            data={MAIL_STATUSES.map((s) => ({ value: s, label: t(`outbox.status.${s}`) }))}
            value={status}
            onChange={(value) => {
              setStatus(value as MailStatus | null);
              setPage(1);
            }}
            clearable
            w={200}
            data-testid="outbox-status-filter"
          />
          <TextInput
            label={t('outbox.filters.search')}
            placeholder={t('outbox.filters.searchPlaceholder')}
            leftSection={<IconSearch size={16} />}
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setPage(1);
            }}
            w={320}
            maxLength={200}
            data-testid="outbox-search"
          />
        </Group>
        {keptOnly && status === null ? (
          <Alert color="blue" variant="light" mb="md" data-testid="outbox-kept-note">
            {t('outbox.keptNote')}
          </Alert>
        ) : null}
        <OutboxTable
          items={items}
          loading={list.isPending}
          error={
            list.isError
              ? {
                  title: t('outbox.listError'),
                  error: list.error,
                  onRetry: () => void list.refetch(),
                  testId: 'outbox-error',
                }
              : null
          }
          timeZone={timeZone}
          onShow={(item) => setShown({ id: item.id, open: true })}
        />
        <TablePager
          page={page}
          perPage={perPage}
          total={list.data?.total ?? 0}
          onPageChange={setPage}
          onPerPageChange={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
      </Paper>
      <OutboxMessageModal
        id={shown?.id ?? null}
        opened={shown?.open ?? false}
        timeZone={timeZone}
        onClose={() => setShown((current) => (current ? { ...current, open: false } : null))}
        onExited={() => setShown(null)}
      />
    </>
  );
}
