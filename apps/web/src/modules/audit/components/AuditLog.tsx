import type { AuditEntry } from '@brokerage/shared';
import { Alert, Paper, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { PageHeader } from '../../ui/PageHeader';
import { TablePager } from '../../ui/TablePager';
import { useAuditLog, type AuditFilters } from '../api/audit';
import { AuditChainStatus } from './AuditChainStatus';
import { AuditDetailsModal } from './AuditDetailsModal';
import { AuditFiltersPanel, EMPTY_AUDIT_FILTERS } from './AuditFiltersPanel';
import { AuditTable } from './AuditTable';

const DEFAULT_PER_PAGE = 50;

/** D9: the audit log at /crm/audit ('Журнал действий'), filtered and paged by the server. */
export function AuditLog() {
  const { t } = useTranslation();
  const timeZone = useCurrentUser().business_timezone;
  const [filters, setFilters] = useState<AuditFilters>(EMPTY_AUDIT_FILTERS);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(DEFAULT_PER_PAGE);
  const [shown, setShown] = useState<{ entry: AuditEntry; open: boolean } | null>(null);
  const log = useAuditLog({ ...filters, page, perPage });

  return (
    <>
      <PageHeader title={t('audit.title')} subtitle={t('audit.subtitle')} />
      <AuditChainStatus />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <AuditFiltersPanel
          value={filters}
          onChange={(next) => {
            setFilters(next);
            setPage(1);
          }}
        />
        {log.isError ? (
          <Alert color="red" mb="md">
            {errorText(log.error, t('audit.listError'))}
          </Alert>
        ) : null}
        <AuditTable
          items={log.data?.items ?? []}
          loading={log.isPending}
          timeZone={timeZone}
          onShow={(entry) => setShown({ entry, open: true })}
        />
        <TablePager
          page={page}
          perPage={perPage}
          total={log.data?.total ?? 0}
          onPageChange={setPage}
          onPerPageChange={(size) => {
            setPerPage(size);
            setPage(1);
          }}
        />
        <Text size="xs" c="dimmed" mt="xs" data-testid="audit-time-zone">
          {t('audit.timeZone', { zone: timeZone })}
        </Text>
      </Paper>
      <AuditDetailsModal
        entry={shown?.entry ?? null}
        opened={shown?.open ?? false}
        timeZone={timeZone}
        onClose={() => setShown((current) => (current ? { ...current, open: false } : null))}
        onExited={() => setShown(null)}
      />
    </>
  );
}
