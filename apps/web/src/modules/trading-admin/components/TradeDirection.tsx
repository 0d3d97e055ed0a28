import { Group, Text } from '@mantine/core';
import { IconArrowDownRight, IconArrowUpRight } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** A trade's direction: call (up, green) or put (down, red). */
export function TradeDirection({ direction }: { direction: 'call' | 'put' }) {
  const { t } = useTranslation();
  const up = direction === 'call';
  return (
    <Group gap={4} wrap="nowrap" c={up ? 'teal' : 'red'} data-direction={direction}>
      {up ? <IconArrowUpRight size={16} /> : <IconArrowDownRight size={16} />}
      <Text span size="sm" fw={500}>
        {t(`tradingAccounts.directions.${direction}`)}
      </Text>
    </Group>
  );
}
