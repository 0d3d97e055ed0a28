import { SimpleGrid } from '@mantine/core';
import type { ReactNode } from 'react';
import { StatCard } from './StatCard';

export interface SummaryCard {
  label: string;
  value: ReactNode;
  icon?: ReactNode;
  color?: string;
  testId?: string;
}

/** The row of summary cards above a list: two per row on a phone, all in one row from md up. */
export function SummaryCards({ cards }: { cards: SummaryCard[] }) {
  return (
    <SimpleGrid cols={{ base: 2, md: cards.length }} mb="md">
      {cards.map((card) => (
        <StatCard key={card.testId ?? card.label} {...card} />
      ))}
    </SimpleGrid>
  );
}
