import {
  ASSETS,
  candlesQuerySchema,
  candlesResponseSchema,
  errorSchema,
  pricesResponseSchema,
  symbolParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import type { TradingEngine } from '../trading/engine.js';
import { candles } from './candles.js';

export const priceRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; engine: TradingEngine }> = async (
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
      schema: {
        tags: ['prices'],
        summary: 'Candles of an asset for the chart, built from the ticks that settle trades; from/to are ISO 8601',
        params: symbolParam,
        querystring: candlesQuerySchema,
        response: { 200: candlesResponseSchema, 400: errorSchema, 404: errorSchema },
      },
    },
    async (request) => candles(deps.db, request.params.symbol, request.query, engine.now()),
  );
};
