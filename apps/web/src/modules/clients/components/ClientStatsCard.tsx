import type { ClientSummary } from '@brokerage/shared';
import { Anchor, Badge, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDate, formatMoney } from '../../../lib/format';

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="xs">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} component="div" data-testid={testId} ta="right">
        {children}
      </Text>
    </Group>
  );
}

/** §2.6 sidebar 'Client statistics': deposit sum; count with sum; withdrawal requests; FTD; user registered. */
export function ClientStatsCard({
  summary,
  loading,
  failed,
}: {
  summary: ClientSummary | undefined;
  loading: boolean;
  failed: boolean;
}) {
  const { t } = useTranslation('notify');
  const yesNo = (v: boolean) => (
    <Badge color={v ? 'green' : 'gray'} variant="light" size="sm">
      {v ? t('card.stats.yes') : t('card.stats.no')}
    </Badge>
  );
  return (
    <Paper withBorder radius="md" p="md" data-testid="client-stats">
      <Title order={4} mb="md">
        {t('card.stats.title')}
      </Title>
      {loading ? <Loader size="sm" /> : null}
      {failed ? (
        <Text size="sm" c="red">
          {t('card.stats.error')}
        </Text>
      ) : null}
      {summary ? (
        <Stack gap="xs">
          <Row label={t('card.stats.depositSum')} testId="stat-deposit-sum">
            {formatMoney(summary.deposit_sum)}
          </Row>
          <Row label={t('card.stats.deposits')} testId="stat-deposit-count">
            {t('card.stats.depositsValue', { count: summary.deposit_count, sum: formatMoney(summary.deposit_sum) })}
          </Row>
          <Row label={t('card.stats.withdrawals')} testId="stat-withdrawals">
            {summary.withdrawal_count}
          </Row>
          <Row label={t('card.stats.ftd')} testId="stat-ftd">
            {yesNo(summary.ftd)}
          </Row>
          <Row label={t('card.stats.registered')} testId="stat-registered">
            {yesNo(summary.registered)}
          </Row>
          {summary.platform_id ? (
            <Row label={t('card.stats.accountNumber')} testId="stat-account-number">
              {summary.platform_id}
            </Row>
          ) : null}
        </Stack>
      ) : null}
    </Paper>
  );
}

const WITHDRAWAL_COLORS = {
  approved: 'green',
  rejected: 'red',
  pending: 'yellow',
  awaiting_second_approval: 'orange',
} as const;

/** §2.6 withdrawal requests card (only when the client has any): the first three, masked to the last 4 digits. */
export function ClientWithdrawalsCard({
  summary,
  timeZone,
  canOpenAll,
}: {
  summary: ClientSummary | undefined;
  timeZone: string;
  canOpenAll: boolean;
}) {
  const { t } = useTranslation('notify');
  if (!summary || summary.withdrawal_count === 0) return null;
  return (
    <Paper withBorder radius="md" p="md" data-testid="client-withdrawals">
      <Title order={4} mb="md">
        {t('card.withdrawals.title')}
      </Title>
      <Stack gap="xs">
        {summary.withdrawals.map((w) => (
          <Paper key={w.id} withBorder p="xs" radius="sm" data-testid="client-withdrawal">
            <Group justify="space-between" wrap="nowrap">
              <Stack gap={0}>
                <Text fw={600} size="sm">
                  {formatMoney(w.amount)}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDate(w.created_at, timeZone)} · {t('card.withdrawals.card', { last4: w.card_last4 })}
                </Text>
              </Stack>
              <Badge color={WITHDRAWAL_COLORS[w.status]} variant="light" size="sm">
                {t(`card.withdrawals.statuses.${w.status}`)}
              </Badge>
            </Group>
          </Paper>
        ))}
      </Stack>
      {summary.withdrawal_count > 3 && canOpenAll ? (
        <Anchor component={Link} to="/crm/applications" size="sm" mt="sm" display="block">
          {t('card.withdrawals.showAll')}
        </Anchor>
      ) : null}
    </Paper>
  );
}
