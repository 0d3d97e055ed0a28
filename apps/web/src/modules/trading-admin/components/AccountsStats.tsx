import type { AccountsResponse } from '@brokerage/shared';
import { SimpleGrid } from '@mantine/core';
import { IconActivity, IconCash, IconChartLine, IconUserCheck, IconUsers } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatMoney } from '../../../lib/format';
import { StatCard } from '../../ui/StatCard';
import { SignedMoney } from './SignedMoney';

/** §2.16 cards: Всего аккаунтов, Активные, Общий баланс, Общая прибыль, Активные сделки. */
export function AccountsStats({ stats }: { stats: AccountsResponse['stats'] | undefined }) {
  const { t } = useTranslation();
  const dash = t('common.dash');
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="md" mb="lg" data-testid="trading-stats">
      <StatCard
        label={t('tradingAccounts.stats.totalAccounts')}
        value={stats ? formatCount(stats.totalAccounts) : dash}
        icon={<IconUsers size={20} />}
        testId="stat-total-accounts"
      />
      <StatCard
        label={t('tradingAccounts.stats.activeAccounts')}
        value={stats ? formatCount(stats.activeAccounts) : dash}
        icon={<IconUserCheck size={20} />}
        color="teal"
        testId="stat-active-accounts"
      />
      <StatCard
        label={t('tradingAccounts.stats.totalBalance')}
        value={stats ? formatMoney(stats.totalBalance) : dash}
        icon={<IconCash size={20} />}
        color="green"
        testId="stat-total-balance"
      />
      <StatCard
        label={t('tradingAccounts.stats.totalProfit')}
        value={stats ? <SignedMoney amount={stats.totalProfit} inherit /> : dash}
        icon={<IconChartLine size={20} />}
        color="grape"
        testId="stat-total-profit"
      />
      <StatCard
        label={t('tradingAccounts.stats.activeTrades')}
        value={stats ? formatCount(stats.activeTrades) : dash}
        icon={<IconActivity size={20} />}
        color="orange"
        testId="stat-active-trades"
      />
    </SimpleGrid>
  );
}
