import { Group, Pagination, Select, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export const PAGE_SIZES = [25, 50, 100] as const;

/** Server-side paging controls: total, page size 25/50/100, pages (first, last and current ±2 shown). */
export function TablePager({
  page,
  perPage,
  total,
  capped = false,
  onPageChange,
  onPerPageChange,
}: {
  page: number;
  perPage: number;
  total: number;
  /** The total is a cap ('more than'), not an exact count: the pages cover the first `total` rows. */
  capped?: boolean;
  onPageChange: (page: number) => void;
  onPerPageChange: (perPage: number) => void;
}) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <Group justify="space-between" mt="md" gap="sm" wrap="wrap">
      <Group gap="sm">
        <Text size="sm" c="dimmed">
          {capped ? t('common.totalCapped', { count: total }) : t('common.total', { count: total })}
        </Text>
        <Select
          aria-label={t('common.perPage')}
          data={PAGE_SIZES.map((size) => ({ value: String(size), label: String(size) }))}
          value={String(perPage)}
          onChange={(value) => value && onPerPageChange(Number(value))}
          allowDeselect={false}
          w={90}
          size="xs"
          data-testid="per-page"
        />
      </Group>
      <Pagination
        total={pages}
        value={Math.min(page, pages)}
        onChange={onPageChange}
        siblings={2}
        boundaries={1}
        size="sm"
        // The arrow buttons have no text: each is named (axe button-name).
        getControlProps={(control) => ({
          'aria-label': t(
            control === 'previous'
              ? 'common.pagerPrev'
              : control === 'next'
                ? 'common.pagerNext'
                : control === 'first'
                  ? 'common.pagerFirst'
                  : 'common.pagerLast',
          ),
        })}
      />
    </Group>
  );
}
