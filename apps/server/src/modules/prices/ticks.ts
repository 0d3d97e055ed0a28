import {
  QUOTE_HISTORY_MAX_SECONDS,
  findAsset,
  type PriceTickView,
  type QuoteHistoryQuery,
  type QuoteHistoryResponse,
} from '@brokerage/shared';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { priceDate } from './dates.js';

export const toTick = (r: { at: Date | string; price: string }): PriceTickView => ({
  at: new Date(r.at).toISOString(),
  price: Number(r.price),
});

/** Stored ticks of a symbol with from ≤ at ≤ to, in time order (a range of the price_ticks_symbol_at index). */
export async function ticksBetween(db: Db, symbol: string, from: Date, to: Date) {
  if (to < from) return [];
  return db
    .selectFrom('price_ticks')
    .select(['at', 'price'])
    .where('symbol', '=', symbol)
    .where('at', '>=', from)
    .where('at', '<=', to)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

/**
 * GET /api/prices/{symbol}/ticks (issue 14): the stored ticks of a span of at most 10 minutes, so anyone can check a
 * published strike or close against the feed without an account.
 */
export async function quoteHistory(db: Db, symbol: string, query: QuoteHistoryQuery): Promise<QuoteHistoryResponse> {
  const asset = findAsset(symbol.toUpperCase());
  if (!asset) throw new HttpError(404, 'asset_not_found', { symbol });
  const from = priceDate('from', query.from);
  const to = priceDate('to', query.to);
  if (from >= to) throw new HttpError(400, 'bad_date_range');
  if (to.getTime() - from.getTime() > QUOTE_HISTORY_MAX_SECONDS * 1000) {
    throw new HttpError(400, 'tick_span_too_long', { max: QUOTE_HISTORY_MAX_SECONDS / 60 });
  }
  return { symbol: asset.symbol, ticks: (await ticksBetween(db, asset.symbol, from, to)).map(toTick) };
}
