import { AFFILIATE_STATUS_COLORS, type Affiliate } from '@brokerage/shared';
import { ActionIcon, Badge, Code, Group, Paper, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  IconAffiliate,
  IconChartBar,
  IconCopy,
  IconPencil,
  IconPlayerPause,
  IconPlugConnected,
  IconTrash,
  IconUsers,
} from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TruncatedText } from '../../ui/TruncatedText';
import { errorText } from '../../../lib/api';
import { formatCount } from '../../../lib/format';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { PageHeader } from '../../ui/PageHeader';
import { SummaryCards } from '../../ui/SummaryCards';
import { useAffiliates, useDeleteAffiliate } from '../api/affiliates';
import { AffiliateStatsModal } from './AffiliateStatsModal';
import { EditAffiliateModal } from './EditAffiliateModal';

/** A modal's target, kept while it closes so its content does not vanish during the exit transition. */
interface Target {
  affiliate: Affiliate;
  opened: boolean;
}

/** The masked token (first 8 characters and '...', §2.13) with a button that copies that masked form. */
function TokenCell({ token }: { token: string | null }) {
  const { t } = useTranslation('affiliates');
  if (token === null) {
    return (
      <Text size="sm" c="dimmed">
        {t('noToken')}
      </Text>
    );
  }
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      notifications.show({ color: 'green', message: t('tokenCopied') });
    } catch {
      notifications.show({ color: 'red', message: t('copyFailed') });
    }
  };
  return (
    <Group gap={4} wrap="nowrap">
      <Code data-testid="affiliate-token">{token}</Code>
      <Tooltip label={t('copyToken')} withArrow>
        <ActionIcon
          variant="subtle"
          size="sm"
          aria-label={t('copyToken')}
          onClick={() => void copy()}
          data-testid="affiliate-token-copy"
        >
          <IconCopy size={14} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

/**
 * §2.13 Affiliates: the summary cards, the table (no create action: affiliates come with their first token, §2.11),
 * and per row Stats, Edit and Delete.
 */
export function AffiliatesList() {
  const { t } = useTranslation('affiliates');
  const { t: tr } = useTranslation();
  const affiliates = useAffiliates();
  const remove = useDeleteAffiliate();
  const [stats, setStats] = useState<Target | null>(null);
  const [editing, setEditing] = useState<Target | null>(null);
  const [deleting, setDeleting] = useState<Target | null>(null);

  const items = affiliates.data ?? [];
  const loaded = affiliates.data !== undefined;
  const count = (status: Affiliate['status']) => items.filter((a) => a.status === status).length;
  const figure = (value: number) => (loaded ? formatCount(value) : '…');

  const confirmDelete = () => {
    if (!deleting) return;
    const { affiliate } = deleting;
    remove.mutate(affiliate.id, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('delete.success', { name: affiliate.name }) });
        setDeleting({ affiliate, opened: false });
      },
      onError: (error) => notifications.show({ color: 'red', message: errorText(error, t('delete.error')) }),
    });
  };

  const columns: DataColumn<Affiliate>[] = [
    {
      key: 'name',
      header: t('columns.name'),
      cell: (affiliate) => (
        <>
          <TruncatedText value={affiliate.name} fw={600} />
          {affiliate.description ? (
            <Text size="xs" c="dimmed" lineClamp={1} maw={260}>
              {affiliate.description}
            </Text>
          ) : null}
        </>
      ),
    },
    {
      key: 'contact',
      header: t('columns.contact'),
      cell: (affiliate) => <TruncatedText value={affiliate.contact_person || tr('common.dash')} />,
    },
    {
      key: 'email',
      header: t('columns.email'),
      cell: (affiliate) => <TruncatedText value={affiliate.contact_email || tr('common.dash')} />,
    },
    {
      key: 'status',
      header: t('columns.status'),
      cell: (affiliate) => (
        <Badge color={AFFILIATE_STATUS_COLORS[affiliate.status]} variant="light" data-testid="affiliate-status">
          {t(`statuses.${affiliate.status}`)}
        </Badge>
      ),
    },
    {
      key: 'clients',
      header: t('columns.clients'),
      align: 'right',
      cellProps: { 'data-testid': 'affiliate-clients' },
      cell: (affiliate) => formatCount(affiliate.total_clients),
    },
    {
      key: 'campaigns',
      header: t('columns.campaigns'),
      align: 'right',
      cellProps: { 'data-testid': 'affiliate-campaigns' },
      cell: (affiliate) => formatCount(affiliate.campaigns.length),
    },
    { key: 'token', header: t('columns.token'), cell: (affiliate) => <TokenCell token={affiliate.api_token} /> },
    {
      key: 'actions',
      header: t('columns.actions'),
      card: 'actions',
      cell: (affiliate) => (
        <Group gap={6} wrap="nowrap">
          <Tooltip label={t('actions.stats')} withArrow>
            <ActionIcon
              variant="light"
              aria-label={t('actions.stats')}
              onClick={() => setStats({ affiliate, opened: true })}
              data-testid="affiliate-stats"
            >
              <IconChartBar size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('actions.edit')} withArrow>
            <ActionIcon
              variant="light"
              color="gray"
              aria-label={t('actions.edit')}
              onClick={() => setEditing({ affiliate, opened: true })}
              data-testid="affiliate-edit"
            >
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('actions.delete')} withArrow>
            <ActionIcon
              variant="light"
              color="red"
              aria-label={t('actions.delete')}
              onClick={() => setDeleting({ affiliate, opened: true })}
              data-testid="affiliate-delete"
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={t('page.title')} subtitle={t('page.subtitle')} />
      <SummaryCards
        cards={[
          {
            label: t('cards.total'),
            value: figure(items.length),
            icon: <IconAffiliate size={18} />,
            testId: 'affiliates-card-total',
          },
          {
            label: t('cards.active'),
            value: figure(count('active')),
            icon: <IconPlugConnected size={18} />,
            color: 'green',
            testId: 'affiliates-card-active',
          },
          {
            label: t('cards.paused'),
            value: figure(count('paused')),
            icon: <IconPlayerPause size={18} />,
            color: 'yellow',
            testId: 'affiliates-card-paused',
          },
          {
            label: t('cards.clients'),
            value: figure(items.reduce((sum, a) => sum + a.total_clients, 0)),
            icon: <IconUsers size={18} />,
            color: 'teal',
            testId: 'affiliates-card-clients',
          },
        ]}
      />

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <DataTable
          items={items}
          columns={columns}
          rowKey={(affiliate) => affiliate.id}
          rowProps={(affiliate) => ({ 'data-testid': 'affiliate-row', 'data-affiliate-id': affiliate.id })}
          minWidth={900}
          testId="affiliates-table"
          error={
            affiliates.isError
              ? {
                  title: t('loadError'),
                  error: affiliates.error,
                  onRetry: () => void affiliates.refetch(),
                  testId: 'affiliates-error',
                }
              : null
          }
          loading={affiliates.isPending}
          loadingText={t('loading')}
          empty={loaded && items.length === 0}
          emptyText={t('empty')}
          emptyHint={t('emptyHint')}
          emptyTestId="affiliates-empty"
        />
      </Paper>

      <AffiliateStatsModal
        affiliate={stats?.affiliate ?? null}
        opened={stats?.opened ?? false}
        onClose={() => setStats((s) => (s ? { ...s, opened: false } : s))}
        onExited={() => setStats(null)}
      />
      <EditAffiliateModal
        affiliate={editing?.affiliate ?? null}
        opened={editing?.opened ?? false}
        onClose={() => setEditing((s) => (s ? { ...s, opened: false } : s))}
        onExited={() => setEditing(null)}
      />
      <ConfirmModal
        opened={deleting?.opened ?? false}
        title={t('delete.title')}
        text={deleting ? t('delete.text', { name: deleting.affiliate.name }) : ''}
        confirmLabel={t('delete.confirm')}
        loading={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setDeleting((s) => (s ? { ...s, opened: false } : s))}
        onExited={() => setDeleting(null)}
      />
    </>
  );
}
