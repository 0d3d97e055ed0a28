import {
  calendarQuerySchema,
  calendarResponseSchema,
  errorSchema,
  fundamentalsListSchema,
  fundamentalsParam,
  fundamentalsResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { createMarketInfoService } from './service.js';

/** D14: the economic calendar (§2.8) and fundamentals (§2.9), public, from the configured provider. */
export const marketInfoRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; now: () => Date }> = async (
  app,
  { deps, now },
) => {
  const service = createMarketInfoService(deps.config, app.log, now);

  app.get(
    '/api/economic-calendar',
    {
      schema: {
        tags: ['market-info'],
        summary:
          "Economic calendar events, today's first; source.demo and source.snapshot_date say when demo data answers",
        querystring: calendarQuerySchema,
        response: { 200: calendarResponseSchema, 400: errorSchema },
      },
    },
    async (request) => service.calendar(request.query.type),
  );

  app.get(
    '/api/fundamentals',
    {
      schema: {
        tags: ['market-info'],
        summary: 'The stocks fundamentals can be asked for: those the current source has data for',
        response: { 200: fundamentalsListSchema },
      },
    },
    async () => service.fundamentalsList(),
  );

  app.get(
    '/api/fundamentals/:symbol',
    {
      schema: {
        tags: ['market-info'],
        summary: 'Company profile, ratios, margins and financials of a US stock; the provider key stays on the server',
        params: fundamentalsParam,
        response: { 200: fundamentalsResponseSchema, 400: errorSchema, 404: errorSchema },
      },
    },
    async (request) => service.fundamentals(request.params.symbol),
  );
};
