import { ASSETS, findAsset } from '@brokerage/shared';
import { Button, Group, Popover, ScrollArea, Stack, Tabs, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { IconChevronDown } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { firstPrice, latestQuote, usePriceVersion } from '../price-feed';
import { formatPrice } from '../rules';

/** §2.4's category tabs over the catalogue's categories. */
const TABS = {
  all: null,
  forex: ['forex_major', 'forex_minor'],
  crypto: ['crypto'],
  stocks: ['stocks_us'],
  commodities: ['commodities'],
  indices: ['indices', 'indices_eu'],
} as const;
type TabId = keyof typeof TABS;

function AssetRow({ symbol, onPick }: { symbol: string; onPick: () => void }) {
  const { t } = useTranslation('platform');
  const asset = findAsset(symbol)!;
  const quote = latestQuote(symbol);
  const start = firstPrice(symbol);
  const change = quote && start !== undefined ? quote.price - start : null;
  const percent = change !== null && start ? (change / start) * 100 : null;
  const colour = change === null || change === 0 ? 'dimmed' : change > 0 ? 'teal' : 'red';
  return (
    <UnstyledButton onClick={onPick} data-testid="asset-option" data-symbol={symbol} px="xs" py={6}>
      <Group justify="space-between" wrap="nowrap" gap="md">
        <div>
          <Text size="sm" fw={600}>
            {symbol}
          </Text>
          <Text size="xs" c="dimmed">
            {/* Commodities have a name in each language; the others are brands and tickers. */}
            {t(`assetNames.${symbol}` as 'assetNames.XAUUSD', { defaultValue: asset.name })}
          </Text>
        </div>
        <div style={{ textAlign: 'right' }}>
          <Text size="sm" ff="monospace">
            {formatPrice(quote?.price, asset.decimals)}
          </Text>
          <Text size="xs" c={colour} ff="monospace">
            {change === null
              ? '—'
              : `${change >= 0 ? '+' : ''}${change.toFixed(asset.decimals)} (${percent!.toFixed(2)}%)`}
          </Text>
        </div>
      </Group>
    </UnstyledButton>
  );
}

/**
 * The asset selector (§2.4): the current asset and its price; the dropdown lists every catalogue asset by category with
 * its price and its change since this page opened, all from the server's prices.
 */
export function AssetSelector({ value, onChange }: { value: string; onChange: (symbol: string) => void }) {
  const { t } = useTranslation('platform');
  usePriceVersion();
  const [opened, setOpened] = useState(false);
  const [tab, setTab] = useState<TabId>('all');
  const asset = findAsset(value);
  const categories = TABS[tab] as readonly string[] | null;
  const list = ASSETS.filter((a) => categories === null || categories.includes(a.category));
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" width={340} shadow="md" withinPortal>
      <Popover.Target>
        <Button
          variant="default"
          onClick={() => setOpened((o) => !o)}
          rightSection={<IconChevronDown size={14} />}
          data-testid="asset-selector"
        >
          {/* Named by its visible text, after a hidden 'Актив:' (axe label-content-name-mismatch). */}
          <VisuallyHidden>{t('panel.asset')}: </VisuallyHidden>
          <Group gap={8} wrap="nowrap">
            <Text fw={600} size="sm">
              {value}
            </Text>
            <Text size="sm" ff="monospace" data-testid="current-price">
              {formatPrice(latestQuote(value)?.price, asset?.decimals ?? 5)}
            </Text>
          </Group>
        </Button>
      </Popover.Target>
      <Popover.Dropdown p={4}>
        <Tabs value={tab} onChange={(v) => setTab((v as TabId) ?? 'all')}>
          <Tabs.List>
            {(Object.keys(TABS) as TabId[]).map((id) => (
              <Tabs.Tab key={id} value={id} fz="xs" px={6}>
                {t(`categories.${id}`)}
              </Tabs.Tab>
            ))}
          </Tabs.List>
        </Tabs>
        <ScrollArea.Autosize mah={320}>
          <Stack gap={0}>
            {list.map((a) => (
              <AssetRow
                key={a.symbol}
                symbol={a.symbol}
                onPick={() => {
                  onChange(a.symbol);
                  setOpened(false);
                }}
              />
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Popover.Dropdown>
    </Popover>
  );
}
