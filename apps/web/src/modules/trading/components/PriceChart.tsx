import type { CandleInterval } from '@brokerage/shared';
import { Alert, Box, Button, Group, Loader, SegmentedControl, Text } from '@mantine/core';
import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  type CandlestickData,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, formatChartTime } from '../../../lib/format';
import { fetchCandles } from '../api';
import { onPriceTick } from '../price-feed';
import { TickCoalescer } from '../tick-coalescer';

/** What the chart marks for each open trade of its asset: the strike line and the expiry (D2). */
export interface ChartTrade {
  id: number;
  direction: 'call' | 'put';
  strike_price: number;
  created_at: string;
  expires_at: string;
}

const INTERVAL_SECONDS: Record<CandleInterval, number> = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600 };
/**
 * D19 (changing §9's Moscow time): the chart's axis and crosshair are in the browser's own zone, the zone the header
 * names and the expiry times and history use.
 */
const CHART_TIME_ZONE = browserTimeZone();
const chartTime = (seconds: number, withDate: boolean) => formatChartTime(seconds, CHART_TIME_ZONE, withDate);

/** The first chart of the page is timed (navigation start → first candles drawn), for docs/operations.md. */
let firstChartMarked = false;

/**
 * The price chart (D2): candles of GET /api/prices/{symbol}/candles drawn by lightweight-charts, the live ticks of the
 * socket folded into the last candle, and each open trade's strike line and expiry line. However many ticks arrive,
 * the chart is redrawn at most once per animation frame.
 */
export function PriceChart({
  symbol,
  decimals,
  trades,
  height = 380,
}: {
  symbol: string;
  decimals: number;
  trades: readonly ChartTrade[];
  height?: number;
}) {
  const { t } = useTranslation('platform');
  const container = useRef<HTMLDivElement>(null);
  const overlay = useRef<HTMLDivElement>(null);
  const chartRef = useRef<IChartApi | null>(null);
  const seriesRef = useRef<ISeriesApi<'Candlestick'> | null>(null);
  const markersRef = useRef<ISeriesMarkersPluginApi<UTCTimestamp> | null>(null);
  const lastBar = useRef<CandlestickData<UTCTimestamp> | null>(null);
  const tradesRef = useRef<readonly ChartTrade[]>(trades);
  const [interval, setInterval] = useState<CandleInterval>('1m');
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [reload, setReload] = useState(0);

  // The chart itself, once.
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const chart = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: '#131722' }, textColor: '#d1d4dc' },
      grid: { vertLines: { color: '#1e2230' }, horzLines: { color: '#1e2230' } },
      timeScale: {
        timeVisible: true,
        secondsVisible: false,
        rightOffset: 8,
        tickMarkFormatter: (time: number) => chartTime(time, false),
      },
      localization: { timeFormatter: (time: number) => chartTime(time, true) },
    });
    const series = chart.addSeries(CandlestickSeries, {
      upColor: '#26a69a',
      downColor: '#ef5350',
      borderVisible: false,
      wickUpColor: '#26a69a',
      wickDownColor: '#ef5350',
    });
    chartRef.current = chart;
    seriesRef.current = series;
    markersRef.current = createSeriesMarkers(series, []) as unknown as ISeriesMarkersPluginApi<UTCTimestamp>;
    return () => {
      chart.remove();
      chartRef.current = null;
      seriesRef.current = null;
      markersRef.current = null;
    };
  }, []);

  useEffect(() => {
    seriesRef.current?.applyOptions({ priceFormat: { type: 'price', precision: decimals, minMove: 10 ** -decimals } });
  }, [decimals]);

  /** The expiry lines sit over the chart at the x of their time, also beyond the last candle. */
  const placeExpiryLines = () => {
    const chart = chartRef.current;
    const box = overlay.current;
    const last = lastBar.current;
    if (!chart || !box) return;
    const step = INTERVAL_SECONDS[interval];
    const scale = chart.timeScale();
    const data = seriesRef.current?.data() ?? [];
    // Pixels per bar from the last two bars (the chart's own spacing when there is only one).
    const lastX = last ? scale.timeToCoordinate(last.time) : null;
    const prev = data.length > 1 ? (data[data.length - 2]!.time as UTCTimestamp) : null;
    const prevX = prev !== null ? scale.timeToCoordinate(prev) : null;
    const spacing = lastX !== null && prevX !== null ? lastX - prevX : scale.options().barSpacing;
    for (const line of Array.from(box.children) as HTMLElement[]) {
      const expires = Number(line.dataset.expires);
      if (!last || lastX === null) {
        line.style.display = 'none';
        continue;
      }
      const x = lastX + ((expires - Number(last.time)) / step) * spacing;
      line.style.display = x < 0 || x > box.clientWidth ? 'none' : 'block';
      line.style.left = `${x}px`;
    }
  };
  const placeRef = useRef(placeExpiryLines);
  useLayoutEffect(() => {
    placeRef.current = placeExpiryLines;
  });

  useEffect(() => {
    const chart = chartRef.current;
    if (!chart) return;
    const handler = () => placeRef.current();
    chart.timeScale().subscribeVisibleLogicalRangeChange(handler);
    chart.timeScale().subscribeSizeChange(handler);
    return () => {
      chart.timeScale().unsubscribeVisibleLogicalRangeChange(handler);
      chart.timeScale().unsubscribeSizeChange(handler);
    };
  }, []);

  // Candles for the asset and interval, then the live ticks folded in once per frame.
  useEffect(() => {
    const series = seriesRef.current;
    if (!series) return;
    let cancelled = false;
    const step = INTERVAL_SECONDS[interval];
    lastBar.current = null;
    series.setData([]);
    setState('loading');

    // Ticks are folded at once and drawn at most once per animation frame (tick-coalescer.ts).
    const coalescer = new TickCoalescer(step, (bar) => {
      lastBar.current = bar as CandlestickData<UTCTimestamp>;
      series.update(lastBar.current);
      placeRef.current();
    });
    const stop = onPriceTick((tick) => {
      if (tick.symbol === symbol) coalescer.tick(tick.price, tick.at);
    });

    fetchCandles(symbol, interval)
      .then((res) => {
        if (cancelled) return;
        const bars = res.candles.map((c) => ({ ...c, time: c.time as UTCTimestamp }));
        series.setData(bars);
        const changed = coalescer.load(bars.at(-1) ?? null);
        lastBar.current = coalescer.lastBar as CandlestickData<UTCTimestamp> | null;
        if (changed) series.update(changed as CandlestickData<UTCTimestamp>);
        chartRef.current?.timeScale().scrollToRealTime();
        setState('ready');
        requestAnimationFrame(() => {
          placeRef.current();
          if (!firstChartMarked && bars.length > 0) {
            firstChartMarked = true;
            performance.mark('trading:first-chart');
          }
        });
      })
      .catch(() => {
        if (!cancelled) setState('error');
      });
    return () => {
      cancelled = true;
      stop();
      coalescer.stop();
    };
  }, [symbol, interval, reload]);

  // Strike lines and open markers of this asset's open trades.
  useEffect(() => {
    tradesRef.current = trades;
    const series = seriesRef.current;
    if (!series) return;
    const lines: IPriceLine[] = trades.map((trade) =>
      series.createPriceLine({
        price: trade.strike_price,
        color: trade.direction === 'call' ? '#26a69a' : '#ef5350',
        lineWidth: 1,
        lineStyle: 2,
        axisLabelVisible: true,
        title: `#${trade.id} ${trade.direction === 'call' ? '↑' : '↓'}`,
      }),
    );
    const step = INTERVAL_SECONDS[interval];
    markersRef.current?.setMarkers(
      trades
        .map((trade) => ({
          time: (Math.floor(Date.parse(trade.created_at) / 1000 / step) * step) as UTCTimestamp,
          position: trade.direction === 'call' ? ('belowBar' as const) : ('aboveBar' as const),
          color: trade.direction === 'call' ? '#26a69a' : '#ef5350',
          shape: trade.direction === 'call' ? ('arrowUp' as const) : ('arrowDown' as const),
          text: `#${trade.id}`,
        }))
        .sort((a, b) => a.time - b.time),
    );
    placeRef.current();
    return () => {
      for (const line of lines) series.removePriceLine(line);
    };
  }, [trades, interval, state]);

  return (
    <Box>
      <Group justify="space-between" mb={6}>
        <Text fw={600} data-testid="chart-symbol">
          {symbol}
        </Text>
        <SegmentedControl
          size="xs"
          value={interval}
          onChange={(v) => setInterval(v as CandleInterval)}
          data={(['1m', '5m', '15m', '1h'] as const).map((v) => ({ value: v, label: t(`chart.interval.${v}`) }))}
          aria-label={t('chart.intervalLabel')}
        />
      </Group>
      <Box pos="relative" style={{ height, borderRadius: 8, overflow: 'hidden' }}>
        <div
          ref={container}
          data-testid="price-chart"
          data-state={state}
          style={{ position: 'absolute', inset: 0 }}
          // A figure, not an img: the chart library puts a focusable link inside (axe nested-interactive).
          role="figure"
          aria-label={t('chart.aria', { symbol })}
        />
        <div ref={overlay} style={{ position: 'absolute', inset: 0, pointerEvents: 'none' }}>
          {trades.map((trade) => (
            <div
              key={trade.id}
              data-testid="expiry-line"
              data-expires={Math.floor(Date.parse(trade.expires_at) / 1000)}
              style={{
                position: 'absolute',
                top: 0,
                bottom: 26,
                width: 0,
                borderLeft: `1px dashed ${trade.direction === 'call' ? '#26a69a' : '#ef5350'}`,
                display: 'none',
              }}
            >
              <span
                style={{
                  position: 'absolute',
                  top: 4,
                  left: 4,
                  fontSize: 11,
                  color: '#d1d4dc',
                  whiteSpace: 'nowrap',
                  background: '#131722cc',
                  padding: '0 3px',
                }}
              >
                {t('chart.expiry', { id: trade.id })}
              </span>
            </div>
          ))}
        </div>
        {state === 'loading' && (
          <Group pos="absolute" top="45%" left={0} right={0} justify="center">
            <Loader size="sm" />
          </Group>
        )}
        {state === 'error' && (
          <Alert color="red" pos="absolute" top={16} left={16} right={16} title={t('chart.error')}>
            <Button size="xs" variant="light" onClick={() => setReload((n) => n + 1)}>
              {t('common.retry')}
            </Button>
          </Alert>
        )}
      </Box>
    </Box>
  );
}
