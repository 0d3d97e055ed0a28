import type { Affiliate, AffiliateStats, PostbackDelivery } from '@brokerage/shared';
import { Badge, Button, Group, Loader, Modal, Progress, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconCash, IconChartBar, IconPercentage, IconTags, IconUserCheck, IconUsers } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { SummaryCards } from '../../ui/SummaryCards';
import { useAffiliateStats } from '../api/affiliates';

const DELIVERY_COLORS: Record<PostbackDelivery['status'], string> = {
  pending: 'yellow',
  delivered: 'green',
  failed: 'red',
};

/** Clients per campaign as bars, the FTD part of each in green: the modal's small chart (no chart library needed). */
function CampaignBars({ rows }: { rows: AffiliateStats['campaign_breakdown'] }) {
  const { t } = useTranslation('affiliates');
  const max = Math.max(1, ...rows.map((r) => r.clients));
  return (
    <Stack gap={6} data-testid="affiliate-stats-chart">
      <Group gap="md">
        <Title order={5}>{t('stats.chart')}</Title>
        <Group gap={6}>
          <Badge size="xs" color="blue" variant="filled" circle />
          <Text size="xs">{t('stats.chartLegendClients')}</Text>
          <Badge size="xs" color="green" variant="filled" circle />
          <Text size="xs">{t('stats.chartLegendFtd')}</Text>
        </Group>
      </Group>
      {rows.slice(0, 8).map((row) => (
        <div key={row.campaign}>
          <Group justify="space-between" gap="xs" wrap="nowrap">
            <Text size="xs" truncate>
              {row.campaign || t('stats.noCampaign')}
            </Text>
            <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
              {t('stats.chartRow', { clients: formatCount(row.clients), ftd: formatCount(row.ftd_clients) })}
            </Text>
          </Group>
          <Progress.Root size="md">
            <Progress.Section value={(row.ftd_clients / max) * 100} color="green" />
            <Progress.Section value={((row.clients - row.ftd_clients) / max) * 100} color="blue" />
          </Progress.Root>
        </div>
      ))}
    </Stack>
  );
}

function Deliveries({ items, timeZone }: { items: PostbackDelivery[]; timeZone: string }) {
  const { t } = useTranslation('affiliates');
  const { t: tr } = useTranslation();
  return (
    <Stack gap="xs">
      <Title order={5}>{t('stats.deliveries')}</Title>
      {items.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="affiliate-deliveries-empty">
          {t('stats.deliveriesEmpty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table verticalSpacing={4} fz="sm" data-testid="affiliate-deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('stats.deliveryColumns.time')}</Table.Th>
                <Table.Th>{t('stats.deliveryColumns.event')}</Table.Th>
                <Table.Th>{t('stats.deliveryColumns.status')}</Table.Th>
                <Table.Th ta="right">{t('stats.deliveryColumns.http')}</Table.Th>
                <Table.Th ta="right">{t('stats.deliveryColumns.attempts')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((d) => (
                <Table.Tr key={d.id} data-testid="affiliate-delivery" data-event={d.event} data-status={d.status}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {formatDateTime(d.last_attempt_at ?? d.created_at, timeZone, { seconds: true })}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" title={d.event}>
                      {t(`events.${d.event}`)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={d.last_error ?? ''} disabled={!d.last_error} withArrow multiline maw={320}>
                      <Badge color={DELIVERY_COLORS[d.status]} variant="light">
                        {t(`stats.deliveryStatuses.${d.status}`)}
                      </Badge>
                    </Tooltip>
                  </Table.Td>
                  <Table.Td ta="right">{d.last_status_code ?? tr('common.dash')}</Table.Td>
                  <Table.Td ta="right">{d.attempts}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Text size="xs" c="dimmed">
        {tr('clients.timeZone', { zone: timeZone })}
      </Text>
    </Stack>
  );
}

function StatsBody({ id }: { id: number }) {
  const { t } = useTranslation('affiliates');
  const user = useCurrentUser();
  const stats = useAffiliateStats(id);
  if (stats.isPending) {
    return (
      <Group justify="center" gap="sm" py="xl" role="status">
        <Loader size="sm" />
        <Text>{t('stats.loading')}</Text>
      </Group>
    );
  }
  if (stats.isError) {
    return (
      <LoadErrorAlert
        title={t('stats.loadError')}
        error={stats.error}
        onRetry={() => void stats.refetch()}
        testId="affiliate-stats-error"
      />
    );
  }
  const s = stats.data;
  return (
    <Stack data-testid="affiliate-stats-body">
      <SummaryCards
        mb={0}
        cols={{ base: 2, sm: 3 }}
        cards={[
          {
            label: t('stats.totalClients'),
            value: formatCount(s.total_clients),
            icon: <IconUsers size={18} />,
            testId: 'stats-total-clients',
          },
          {
            label: t('stats.ftdClients'),
            value: formatCount(s.ftd_clients),
            icon: <IconUserCheck size={18} />,
            color: 'green',
            testId: 'stats-ftd-clients',
          },
          {
            label: t('stats.conversion'),
            value: `${s.conversion_rate.toFixed(1)}%`,
            icon: <IconPercentage size={18} />,
            color: 'grape',
            testId: 'stats-conversion',
          },
          {
            label: t('stats.campaignCount'),
            value: formatCount(s.total_campaigns),
            icon: <IconTags size={18} />,
            color: 'orange',
            testId: 'stats-campaigns',
          },
          {
            label: t('stats.totalDeposits'),
            value: formatMoney(s.total_deposits),
            icon: <IconCash size={18} />,
            color: 'teal',
            testId: 'stats-total-deposits',
          },
          {
            label: t('stats.avgDeposit'),
            value: formatMoney(s.avg_deposit),
            icon: <IconChartBar size={18} />,
            color: 'cyan',
            testId: 'stats-avg-deposit',
          },
        ]}
      />
      <Stack gap={6}>
        <Title order={5}>{t('stats.campaigns')}</Title>
        {s.campaigns.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('stats.noCampaigns')}
          </Text>
        ) : (
          <Group gap={6} data-testid="affiliate-campaign-chips">
            {s.campaigns.map((campaign) => (
              <Badge key={campaign} variant="light" tt="none">
                {campaign}
              </Badge>
            ))}
          </Group>
        )}
      </Stack>
      {s.campaign_breakdown.length > 0 ? <CampaignBars rows={s.campaign_breakdown} /> : null}
      <Deliveries items={s.deliveries} timeZone={user.business_timezone} />
    </Stack>
  );
}

/** §2.13 'Statistics: <name>': the spec's figures, the campaign chips, a per-campaign chart and the last postbacks. */
export function AffiliateStatsModal({
  affiliate,
  opened,
  onClose,
  onExited,
}: {
  affiliate: Affiliate | null;
  opened: boolean;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation('affiliates');
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onExited}
      title={affiliate ? t('stats.title', { name: affiliate.name }) : ''}
      size="xl"
      centered
    >
      {affiliate ? <StatsBody id={affiliate.id} /> : null}
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose} data-testid="affiliate-stats-close">
          {t('stats.close')}
        </Button>
      </Group>
    </Modal>
  );
}
