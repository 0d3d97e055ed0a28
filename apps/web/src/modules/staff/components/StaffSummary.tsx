import type { UsersResponse } from '@brokerage/shared';
import { SimpleGrid } from '@mantine/core';
import { IconCrown, IconShield, IconUsers, IconUsersGroup } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../../lib/format';
import { StatCard } from '../../ui/StatCard';

export function StaffSummary({ summary }: { summary: UsersResponse['summary'] | undefined }) {
  const { t } = useTranslation();
  const value = (n: number | undefined) => (n === undefined ? '—' : formatCount(n));
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" mb="lg">
      <StatCard
        label={t('staff.summary.total')}
        value={value(summary?.total)}
        icon={<IconUsers size={20} />}
        testId="summary-total"
      />
      <StatCard
        label={t('staff.summary.managers')}
        value={value(summary?.managers)}
        icon={<IconUsersGroup size={20} />}
        color="cyan"
        testId="summary-managers"
      />
      <StatCard
        label={t('staff.summary.admins')}
        value={value(summary?.admins)}
        icon={<IconShield size={20} />}
        color="orange"
        testId="summary-admins"
      />
      <StatCard
        label={t('staff.summary.superadmins')}
        value={value(summary?.superadmins)}
        icon={<IconCrown size={20} />}
        color="red"
        testId="summary-superadmins"
      />
    </SimpleGrid>
  );
}
