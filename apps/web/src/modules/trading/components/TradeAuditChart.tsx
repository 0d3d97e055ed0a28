import type { TradeAudit } from '@brokerage/shared';
import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  LineSeries,
  LineStyle,
  type LineData,
  type SeriesMarker,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';

function clock(timeZone: string, seconds: number, withDate = false): string {
  return new Intl.DateTimeFormat('ru-RU', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    ...(withDate ? { day: '2-digit', month: '2-digit' } : {}),
  }).format(new Date(seconds * 1000));
}

const sec = (iso: string) => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

export interface AuditChartLabels {
  strike: string;
  close: string;
  expiry: string;
}

/**
 * The ticks of a trade's audit as a line (one point a second: the last tick of that second), the 1-minute candles
 * behind it when the trade is long, the strike and close as markers at their exact prices with price lines, and the
 * expiry as a marker at the price that stood then (the close price). Nothing here computes a result.
 */
export function TradeAuditChart({
  audit,
  decimals,
  labels,
  timeZone,
  height = 300,
}: {
  audit: TradeAudit;
  decimals: number;
  labels: AuditChartLabels;
  /** The zone of the time axis (the panel names it). */
  timeZone: string;
  height?: number;
}) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const { trade, ticks, candles } = audit;
    const chart = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: '#131722' }, textColor: '#d1d4dc' },
      grid: { vertLines: { color: '#1e2230' }, horzLines: { color: '#1e2230' } },
      timeScale: {
        timeVisible: true,
        secondsVisible: true,
        rightOffset: 6,
        tickMarkFormatter: (time: number) => clock(timeZone, time),
      },
      // Room above and below the line for the markers' labels.
      rightPriceScale: { scaleMargins: { top: 0.2, bottom: 0.2 } },
      localization: { timeFormatter: (time: number) => clock(timeZone, time, true) },
    });
    const priceFormat = { type: 'price' as const, precision: decimals, minMove: 10 ** -decimals };
    if (candles.length > 0) {
      const context = chart.addSeries(CandlestickSeries, {
        upColor: 'rgba(38,166,154,0.35)',
        downColor: 'rgba(239,83,80,0.35)',
        borderVisible: false,
        wickUpColor: 'rgba(38,166,154,0.35)',
        wickDownColor: 'rgba(239,83,80,0.35)',
        priceFormat,
        lastValueVisible: false,
        priceLineVisible: false,
      });
      context.setData(
        candles.map((c) => ({ time: c.time as UTCTimestamp, open: c.open, high: c.high, low: c.low, close: c.close })),
      );
    }
    const line = chart.addSeries(LineSeries, {
      color: '#4dabf7',
      lineWidth: 2,
      priceFormat,
      lastValueVisible: false,
      priceLineVisible: false,
    });
    const points = new Map<number, number>();
    for (const tick of ticks) points.set(sec(tick.at), tick.price);
    const expiry = sec(trade.expires_at);
    // The price in force at the expiry is the close price; a point there carries the expiry marker.
    if (trade.close_price !== null && !points.has(expiry)) points.set(expiry, trade.close_price);
    const data: LineData<UTCTimestamp>[] = [...points.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([time, value]) => ({ time: time as UTCTimestamp, value }));
    line.setData(data);

    const markers: SeriesMarker<UTCTimestamp>[] = [];
    const has = (time: number) => points.has(time);
    const strikeTime = sec(trade.strike_at);
    if (has(strikeTime)) {
      markers.push({
        time: strikeTime,
        position: 'atPriceBottom',
        price: trade.strike_price,
        color: '#fab005',
        shape: 'arrowUp',
        text: `${labels.strike} ${trade.strike_price.toFixed(decimals)}`,
      });
    }
    line.createPriceLine({
      price: trade.strike_price,
      color: '#fab005',
      lineStyle: LineStyle.Dashed,
      lineWidth: 1,
      axisLabelVisible: true,
      title: labels.strike,
    });
    if (trade.close_price !== null && trade.close_at !== null) {
      const closeTime = sec(trade.close_at);
      if (has(closeTime)) {
        markers.push({
          time: closeTime,
          position: 'atPriceTop',
          price: trade.close_price,
          color: '#e64980',
          shape: 'arrowDown',
          text: `${labels.close} ${trade.close_price.toFixed(decimals)}`,
        });
      }
      line.createPriceLine({
        price: trade.close_price,
        color: '#e64980',
        lineStyle: LineStyle.Dotted,
        lineWidth: 1,
        axisLabelVisible: true,
        title: labels.close,
      });
    }
    if (has(expiry)) {
      markers.push({
        time: expiry,
        position: 'belowBar',
        color: '#ced4da',
        shape: 'square',
        text: labels.expiry,
      });
    }
    markers.sort((a, b) => a.time - b.time);
    createSeriesMarkers(line, markers);
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [audit, decimals, labels, timeZone]);

  return <div ref={container} style={{ height, width: '100%', position: 'relative' }} data-testid="audit-chart" />;
}
