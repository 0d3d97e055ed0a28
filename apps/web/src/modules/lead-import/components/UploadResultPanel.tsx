import { LEAD_IMPORT_REJECTED_KEPT, type UploadClientsResult } from '@brokerage/shared';
import { Alert, Anchor, Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck, IconCopy, IconDownload, IconFiles, IconUserPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../../lib/format';
import { SummaryCards } from '../../ui/SummaryCards';

/**
 * §2.11 success panel 'Upload completed!': the four counts, the campaign with 'Status of new clients: New' when the
 * file named one, the server's message, then the rejected rows (the first the answer lists) with a link to the
 * CSV of the first LEAD_IMPORT_REJECTED_KEPT and how many it leaves out.
 */
export function UploadResultPanel({ result }: { result: UploadClientsResult }) {
  const { t } = useTranslation('leadImport');
  const rejectedCount = result.duplicates_found + result.skipped_incomplete;
  return (
    <Paper withBorder radius="md" p="md" data-testid="lead-import-result">
      <Stack gap="md">
        <Group gap="xs">
          <IconCircleCheck size={24} color="var(--mantine-color-green-7)" />
          <Title order={4} data-testid="lead-import-result-title">
            {t('upload.result.title')}
          </Title>
        </Group>
        <Text size="sm" c="dimmed">
          {result.message}
        </Text>
        <SummaryCards
          mb={0}
          cols={{ base: 2, md: 4 }}
          cards={[
            {
              label: t('upload.result.total'),
              value: formatCount(result.total_processed),
              icon: <IconFiles size={18} />,
              testId: 'lead-import-total',
            },
            {
              label: t('upload.result.created'),
              value: formatCount(result.clients_created),
              icon: <IconUserPlus size={18} />,
              color: 'green',
              testId: 'lead-import-created',
            },
            {
              label: t('upload.result.duplicates'),
              value: formatCount(result.duplicates_found),
              icon: <IconCopy size={18} />,
              color: 'orange',
              testId: 'lead-import-duplicates',
            },
            {
              label: t('upload.result.skipped'),
              value: formatCount(result.skipped_incomplete),
              icon: <IconAlertCircle size={18} />,
              color: 'red',
              testId: 'lead-import-skipped',
            },
          ]}
        />
        {result.details.campaign ? (
          <Group gap="sm" data-testid="lead-import-campaign">
            <Badge variant="light" size="lg" style={{ textTransform: 'none' }}>
              {t('upload.result.campaign', { campaign: result.details.campaign })}
            </Badge>
            <Badge variant="light" color="blue" size="lg" style={{ textTransform: 'none' }}>
              {t('upload.result.newStatus')}
            </Badge>
          </Group>
        ) : null}
        {result.rejected.length > 0 ? (
          <Stack gap="xs">
            <Group justify="space-between" align="flex-end">
              <div>
                <Text fw={600}>{t('upload.result.rejectedTitle')}</Text>
                {rejectedCount > result.rejected.length ? (
                  <Text size="xs" c="dimmed">
                    {t('upload.result.rejectedShown', {
                      shown: formatCount(result.rejected.length),
                      count: formatCount(rejectedCount),
                    })}
                  </Text>
                ) : null}
              </div>
              {result.rejected_csv ? (
                <Stack gap={0} align="flex-end">
                  <Anchor href={result.rejected_csv} download size="sm" data-testid="lead-import-rejected-csv">
                    <Group gap={4} wrap="nowrap">
                      <IconDownload size={16} />
                      {t('upload.result.downloadRejected')}
                    </Group>
                  </Anchor>
                  <Text size="xs" c="dimmed">
                    {t('upload.result.rejectedKept')}
                  </Text>
                  {result.rejected_csv_omitted > 0 ? (
                    <Text size="xs" c="dimmed" data-testid="lead-import-rejected-omitted">
                      {t('upload.result.rejectedOmitted', {
                        omitted: formatCount(result.rejected_csv_omitted),
                        kept: formatCount(LEAD_IMPORT_REJECTED_KEPT),
                      })}
                    </Text>
                  ) : null}
                </Stack>
              ) : null}
            </Group>
            <Table.ScrollContainer minWidth={320} mah={360}>
              <Table striped verticalSpacing="xs" stickyHeader data-testid="lead-import-rejected">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={90}>{t('upload.result.row')}</Table.Th>
                    <Table.Th>{t('upload.result.reason')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.rejected.map((r) => (
                    <Table.Tr key={r.row} data-testid="lead-import-rejected-row">
                      <Table.Td>{r.row}</Table.Td>
                      <Table.Td>{r.reason}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** §2.11 failure panel 'Upload error' with the server's detail, or 'Error uploading file'. */
export function UploadErrorPanel({ message }: { message: string }) {
  const { t } = useTranslation('leadImport');
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertCircle size={20} />}
      title={t('upload.error.title')}
      role="alert"
      data-testid="lead-import-error"
    >
      {message}
    </Alert>
  );
}
