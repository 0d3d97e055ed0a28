import { SimpleGrid, type SimpleGridProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { StatCard } from './StatCard';

export interface SummaryCard {
  label: string;
  value: ReactNode;
  icon?: ReactNode;
  color?: string;
  testId?: string;
}

/**
 * A grid of summary cards: by default the row above a list (two per row on a phone, all in one row from md up);
 * `cols` for another arrangement (a modal, a result panel, the dashboard).
 */
export function SummaryCards({
  cards,
  cols,
  mb = 'md',
}: {
  cards: SummaryCard[];
  cols?: SimpleGridProps['cols'];
  mb?: SimpleGridProps['mb'];
}) {
  return (
    <SimpleGrid cols={cols ?? { base: 2, md: cards.length }} mb={mb}>
      {cards.map((card) => (
        <StatCard key={card.testId ?? card.label} {...card} />
      ))}
    </SimpleGrid>
  );
}
