import { findAsset, type CandleInterval, type CandlesQuery, type CandlesResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';

const INTERVAL_MS: Record<CandleInterval, number> = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000 };
/** At most this many candles per call; a wider range is cut to its most recent part. */
export const MAX_CANDLES = 5000;
/** Without `from`, this many candles back from `to`. */
const DEFAULT_CANDLES = 500;

/**
 * Candles for the chart from the stored 1-minute candles — built from the same ticks that settle trades. Longer
 * intervals are aggregated in SQL (first open, highest high, lowest low, last close).
 */
export async function candles(db: Db, symbol: string, query: CandlesQuery, now: Date): Promise<CandlesResponse> {
  const asset = findAsset(symbol.toUpperCase());
  if (!asset) throw new HttpError(404, 'asset_not_found', { symbol });
  const step = INTERVAL_MS[query.interval];
  const to = query.to ? new Date(query.to) : now;
  let from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_CANDLES * step);
  if (from >= to) throw new HttpError(400, 'bad_date_range');
  if ((to.getTime() - from.getTime()) / step > MAX_CANDLES) from = new Date(to.getTime() - MAX_CANDLES * step);

  const fromIso = from.toISOString();
  const toIso = to.toISOString();
  const rows =
    query.interval === '1m'
      ? (
          await sql<{ bucket: Date | string; open: string; high: string; low: string; close: string }>`
            select minute as bucket, open, high, low, close from candles_1m
            where symbol = ${asset.symbol} and minute >= ${fromIso}::timestamptz and minute < ${toIso}::timestamptz
            order by minute`.execute(db)
        ).rows
      : (
          await sql<{ bucket: Date | string; open: string; high: string; low: string; close: string }>`
            select date_bin(${`${step / 1000} seconds`}::interval, minute, timestamptz '2000-01-01 00:00:00+00') as bucket,
                   (array_agg(open order by minute))[1] as open, max(high) as high, min(low) as low,
                   (array_agg(close order by minute desc))[1] as close
            from candles_1m
            where symbol = ${asset.symbol} and minute >= ${fromIso}::timestamptz and minute < ${toIso}::timestamptz
            group by 1 order by 1`.execute(db)
        ).rows;
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
