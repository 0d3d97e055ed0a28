import {
  compareDecimal,
  findAsset,
  type CandleInterval,
  type CandlesQuery,
  type CandlesResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { priceDate } from './dates.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const INTERVAL_MS: Record<CandleInterval, number> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR };

/**
 * The most candles one call answers, per interval (issue 20 §6): each call reads at most about 10,000 stored rows —
 * 1m and 1h read one row per candle (candles_1m, candles_1h), 5m and 15m aggregate the minute rows of their span.
 * A wider from/to is cut to its most recent part (a chart pages back with `to` = the first candle it got).
 */
export const MAX_CANDLES: Record<CandleInterval, number> = {
  '1m': 5000, // ≈ 3.5 days
  '5m': (7 * DAY) / (5 * MINUTE), // 2016: 7 days
  '15m': (7 * DAY) / (15 * MINUTE), // 672: 7 days
  '1h': (366 * DAY) / HOUR, // 8784: a year
};
/** Without `from`, this many candles back from `to`. */
const DEFAULT_CANDLES = 500;

interface CandleRow {
  bucket: Date | string;
  open: string;
  high: string;
  low: string;
  close: string;
}

/**
 * Candles for the chart, built from the same ticks that settle trades: whole candles whose start lies in
 * [from rounded down to the interval, to). 1m reads candles_1m, 1h reads candles_1h (both kept by the tick flush);
 * 5m and 15m are aggregated from candles_1m in SQL (first open, highest high, lowest low, last close).
 */
export async function candles(db: Db, symbol: string, query: CandlesQuery, now: Date): Promise<CandlesResponse> {
  const asset = findAsset(symbol.toUpperCase());
  if (!asset) throw new HttpError(404, 'asset_not_found', { symbol });
  const step = INTERVAL_MS[query.interval];
  const from = query.from === undefined ? undefined : priceDate('from', query.from);
  const to = query.to === undefined ? now : priceDate('to', query.to);
  if (from && from >= to) throw new HttpError(400, 'bad_date_range');
  // Bucket starts s with start ≤ s < end, every one a multiple of the step from the Unix epoch (whole UTC hours).
  const end = Math.ceil(to.getTime() / step) * step;
  const wanted = from ? Math.floor(from.getTime() / step) * step : end - DEFAULT_CANDLES * step;
  const start = Math.max(wanted, end - MAX_CANDLES[query.interval] * step);
  const startIso = new Date(start).toISOString();
  const endIso = new Date(end).toISOString();

  let rows: CandleRow[];
  if (query.interval === '1m') {
    rows = (
      await sql<CandleRow>`
        select minute as bucket, open, high, low, close from candles_1m
        where symbol = ${asset.symbol} and minute >= ${startIso}::timestamptz and minute < ${endIso}::timestamptz
        order by minute`.execute(db)
    ).rows;
  } else if (query.interval === '1h') {
    rows = (
      await sql<CandleRow>`
        select hour as bucket, open, high, low, close from candles_1h
        where symbol = ${asset.symbol} and hour >= ${startIso}::timestamptz and hour < ${endIso}::timestamptz
        order by hour`.execute(db)
    ).rows;
  } else {
    rows = (
      await sql<CandleRow>`
        select date_bin(${`${step / 1000} seconds`}::interval, minute, timestamptz '2000-01-01 00:00:00+00') as bucket,
               (array_agg(open order by minute))[1] as open, max(high) as high, min(low) as low,
               (array_agg(close order by minute desc))[1] as close
        from candles_1m
        where symbol = ${asset.symbol} and minute >= ${startIso}::timestamptz and minute < ${endIso}::timestamptz
        group by 1 order by 1`.execute(db)
    ).rows;
  }
  return {
    symbol: asset.symbol,
    interval: query.interval,
    candles: rows.map((r) => ({
      time: Math.floor(new Date(r.bucket).getTime() / 1000),
      open: Number(r.open),
      high: Number(r.high),
      low: Number(r.low),
      close: Number(r.close),
    })),
  };
}

/** A minute candle as the tick flush writes it. */
export interface MinuteCandle {
  symbol: string;
  minute: Date;
  open: string;
  high: string;
  low: string;
  close: string;
}

/**
 * Keeps candles_1h up to date from the minute candles a tick flush writes, in the flush's transaction (issue 20 §6).
 * The flush writes minutes in time order, so an hour already stored keeps its open, takes the higher high and the
 * lower low, and the batch's last close — the same rule candles_1m follows for its ticks, so an hourly candle always
 * equals the aggregate of its minute candles.
 */
export async function storeHourCandles(db: Db, minutes: readonly MinuteCandle[]): Promise<void> {
  const hours = new Map<string, MinuteCandle>();
  for (const m of [...minutes].sort((a, b) => a.minute.getTime() - b.minute.getTime())) {
    const hour = new Date(Math.floor(m.minute.getTime() / HOUR) * HOUR);
    const key = `${m.symbol}|${hour.getTime()}`;
    const h = hours.get(key);
    if (!h) {
      hours.set(key, { ...m, minute: hour });
      continue;
    }
    if (compareDecimal(m.high, h.high) > 0) h.high = m.high;
    if (compareDecimal(m.low, h.low) < 0) h.low = m.low;
    h.close = m.close;
  }
  const rows = [...hours.values()].map((h) => ({
    symbol: h.symbol,
    hour: h.minute,
    open: h.open,
    high: h.high,
    low: h.low,
    close: h.close,
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('candles_1h')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) =>
        oc.columns(['symbol', 'hour']).doUpdateSet({
          high: sql`greatest(candles_1h.high, excluded.high)`,
          low: sql`least(candles_1h.low, excluded.low)`,
          close: sql`excluded.close`,
        }),
      )
      .execute();
  }
}
