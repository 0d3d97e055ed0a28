import {
  ASSETS,
  candlesQuerySchema,
  candlesResponseSchema,
  errorSchema,
  pricesResponseSchema,
  quoteHistoryQuerySchema,
  quoteHistoryResponseSchema,
  symbolParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PriceService } from './service.js';
import type { AppDeps } from '../../platform/deps.js';
import { MAX_CANDLES, candles } from './candles.js';
import { PRICE_DATE_MAX, PRICE_DATE_MIN } from './dates.js';
import { quoteHistory } from './ticks.js';

/** What the price routes read of the running feed (the trading engine provides it; prices need not know the engine). */
export interface PriceFeedView {
  prices: Pick<PriceService, 'latest'>;
  now(): Date;
}

export const priceRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; engine: PriceFeedView }> = async (
  app,
  { deps, engine },
) => {
  app.get(
    '/api/prices',
    {
      schema: {
        tags: ['prices'],
        summary: "The server's latest price of every catalogue asset (the prices trades open at)",
        response: { 200: pricesResponseSchema },
      },
    },
    async () =>
      ASSETS.map((a) => {
        const latest = engine.prices.latest(a.symbol);
        return {
          symbol: a.symbol,
          name: a.name,
          category: a.category,
          decimals: a.decimals,
          price: latest ? Number(latest.price) : null,
          at: latest ? latest.at.toISOString() : null,
        };
      }),
  );

  app.get(
    '/api/prices/:symbol/candles',
    {
      // Public: the per-address limit of the quote history on top of the global one (issue 20 §6).
      config: { rateLimit: { max: deps.config.QUOTE_HISTORY_RATE_PER_MINUTE, timeWindow: '1 minute' } },
      schema: {
        tags: ['prices'],
        summary: 'Candles of an asset for the chart, built from the ticks that settle trades; from/to are ISO 8601',
        description:
          'Whole candles whose start lies between `from` (rounded down to the interval) and `to` (default now), ' +
          'oldest first; without `from`, the last 500. At most ' +
          Object.entries(MAX_CANDLES)
            .map(([interval, n]) => `${n} (${interval})`)
            .join(', ') +
          ' per call: a wider span is cut to its most recent part, so a chart pages back by asking again with `to` = ' +
          `the first candle's time. \`from\` and \`to\` must lie between ${PRICE_DATE_MIN.slice(0, 10)} and ` +
          `${PRICE_DATE_MAX.slice(0, 10)} (else 400). Limited per address (429 with Retry-After beyond).`,
        params: symbolParam,
        querystring: candlesQuerySchema,
        response: { 200: candlesResponseSchema, 400: errorSchema, 404: errorSchema, 429: errorSchema },
      },
    },
    async (request) => candles(deps.db, request.params.symbol, request.query, engine.now()),
  );

  app.get(
    '/api/prices/:symbol/ticks',
    {
      // Public and unauthenticated: its own, tighter per-address limit on top of the global one.
      config: { rateLimit: { max: deps.config.QUOTE_HISTORY_RATE_PER_MINUTE, timeWindow: '1 minute' } },
      schema: {
        tags: ['prices'],
        summary: 'The stored ticks of an asset between from and to (at most 10 minutes): check a strike or a close',
        description:
          'Every tick the server stored for the asset with `from ≤ at ≤ to`, oldest first — the same ticks trades ' +
          'open and settle at (a trade closes at the last tick at or before its expiry). `from` and `to` are ISO 8601 ' +
          'instants between ' +
          `${PRICE_DATE_MIN.slice(0, 10)} and ${PRICE_DATE_MAX.slice(0, 10)}, \`from\` before \`to\`, at most 10 minutes apart. ` +
          'Ticks older than the retention period are kept ' +
          'only around the strike and the expiry of a trade. Limited per address (429 with Retry-After beyond).',
        params: symbolParam,
        querystring: quoteHistoryQuerySchema,
        response: { 200: quoteHistoryResponseSchema, 400: errorSchema, 404: errorSchema, 429: errorSchema },
      },
    },
    async (request) => quoteHistory(deps.db, request.params.symbol, request.query),
  );
};
