import { FUNDAMENTALS_SELECTOR, FUNDAMENTALS_SYMBOLS, findAsset, type Fundamentals } from '@brokerage/shared';
import { Alert, Card, Group, Loader, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api';
import { useFundamentals, useFundamentalsList } from './api';
import { DemoNotice } from './DemoNotice';
import { formatMoney, formatMoneyCompact, formatRatio } from './format';

const isListedStock = (symbol: string) => (FUNDAMENTALS_SELECTOR as readonly string[]).includes(symbol);

function Rows({ rows }: { rows: [label: string, value: string][] }) {
  return (
    <Table withRowBorders={false} verticalSpacing={4}>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Td c="dimmed">{label}</Table.Td>
            <Table.Td ta="right" fw={600}>
              {value}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Figures({ data }: { data: Fundamentals }) {
  const { t, i18n } = useTranslation('site');
  const lang = i18n.language;
  const k = (key: string) => t(`marketInfo.fundamentals.${key}` as 'marketInfo.fundamentals.pe');
  const r = data.ratios;
  return (
    <Stack gap="sm">
      <div>
        <Text size="lg" fw={700} data-testid="fundamentals-name">
          {data.profile.name}
        </Text>
        <Text size="sm" c="dimmed">
          {k('sector')}: {data.profile.sector ?? '—'} · {k('marketCap')}:{' '}
          {formatMoneyCompact(data.profile.market_capitalization, lang)}
        </Text>
      </div>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <div>
          <Text fw={600}>{k('ratios')}</Text>
          <Rows
            rows={[
              [k('pe'), formatRatio(r.pe, lang)],
              [k('pb'), formatRatio(r.pb, lang)],
              [k('roe'), formatRatio(r.roe, lang, '%')],
              [k('roa'), formatRatio(r.roa, lang, '%')],
              [k('debtToEquity'), formatRatio(r.debt_to_equity, lang)],
              [k('currentRatio'), formatRatio(r.current_ratio, lang)],
              [k('quickRatio'), formatRatio(r.quick_ratio, lang)],
              [k('beta'), formatRatio(r.beta, lang)],
            ]}
          />
        </div>
        <div>
          <Text fw={600}>{k('margins')}</Text>
          <Rows
            rows={[
              [k('grossMargin'), formatRatio(data.margins.gross_margin, lang, '%')],
              [k('operatingMargin'), formatRatio(data.margins.operating_margin, lang, '%')],
              [k('netMargin'), formatRatio(data.margins.net_margin, lang, '%')],
            ]}
          />
        </div>
        <div>
          <Text fw={600}>{k('financials')}</Text>
          <Rows
            rows={[
              [k('revenue'), formatMoneyCompact(data.financials.revenue, lang)],
              [k('netIncome'), formatMoneyCompact(data.financials.net_income, lang)],
              [k('eps'), formatMoney(data.financials.eps, lang)],
              [k('dividendYield'), formatRatio(data.financials.dividend_yield, lang, '%')],
            ]}
          />
        </div>
      </SimpleGrid>
    </Stack>
  );
}

/**
 * The fundamental analysis view of the trading screen (client-platform.md §2.9, D14). `asset` is the screen's selected
 * asset: a stock of the selector opens on it; any other catalogue asset shows the stocks-only message (the selector
 * still lets the client pick a stock).
 */
export function FundamentalsView({ asset }: { asset?: string }) {
  const { t } = useTranslation('site');
  const current = asset?.toUpperCase();
  const nonStock = current !== undefined && !isListedStock(current) && findAsset(current)?.category !== 'stocks_us';
  const [picked, setPicked] = useState<string | null>(null);
  // Issue 27 item 13: only the stocks the source has data for (the snapshot covers the first eight of §2.9).
  const covered: readonly string[] = useFundamentalsList().data?.symbols ?? FUNDAMENTALS_SYMBOLS;
  const symbol = picked ?? (current && isListedStock(current) ? current : nonStock ? null : 'AAPL');
  const query = useFundamentals(symbol);
  const notFound = query.error instanceof ApiError && query.error.status === 404;

  return (
    <Card withBorder padding="md" data-testid="fundamentals">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3}>{t('marketInfo.fundamentals.title')}</Title>
          <Select
            aria-label={t('marketInfo.fundamentals.stock')}
            placeholder={t('marketInfo.fundamentals.stock')}
            data={symbol && !covered.includes(symbol) ? [symbol, ...covered] : [...covered]}
            value={symbol}
            onChange={(v) => v && setPicked(v)}
            allowDeselect={false}
            searchable
            w={140}
            data-testid="fundamentals-symbol"
          />
        </Group>
        {symbol === null ? (
          <Alert color="blue" variant="light" data-testid="fundamentals-stocks-only">
            <Text size="sm" fw={600}>
              {t('marketInfo.fundamentals.stocksOnly')}
            </Text>
            <Text size="sm">{t('marketInfo.fundamentals.stocksOnlyHint')}</Text>
          </Alert>
        ) : query.isPending ? (
          <Group justify="center" p="md">
            <Loader size="sm" />
          </Group>
        ) : notFound ? (
          <Text c="dimmed" ta="center" p="md">
            {t('marketInfo.fundamentals.unavailable', { symbol })}
          </Text>
        ) : query.isError ? (
          <Alert color="red" variant="light">
            {t('marketInfo.fundamentals.error')}
          </Alert>
        ) : (
          <>
            <DemoNotice source={query.data.source} warning />
            <Figures data={query.data.data} />
          </>
        )}
      </Stack>
    </Card>
  );
}
