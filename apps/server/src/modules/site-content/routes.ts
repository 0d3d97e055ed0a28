import path from 'node:path';
import { errorSchema, siteContentResponseSchema, siteFactsResponseSchema } from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import type { TradingEngine } from '../trading/engine.js';
import { DEFAULT_SITE_CONTENT_FILE, SiteContentStore, SiteFactsService } from './service.js';

/** The public site's data (D6): the operator's content file and the figures computed from the running system. */
export const siteContentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; engine: TradingEngine }> = async (
  app,
  { deps, engine },
) => {
  const file = deps.config.SITE_CONTENT_FILE ? path.resolve(deps.config.SITE_CONTENT_FILE) : DEFAULT_SITE_CONTENT_FILE;
  const store = new SiteContentStore(file, app.log);
  const facts = new SiteFactsService(deps.db, engine.prices, () => engine.now());

  app.get(
    '/api/site-content',
    {
      schema: {
        tags: ['site'],
        summary:
          "The operator's site content file (SITE_CONTENT_FILE): brand, contacts, legal texts, milestones, testimonials",
        response: { 200: siteContentResponseSchema, 503: errorSchema },
      },
    },
    async (_request, reply) => {
      const content = await store.get();
      void reply.header('cache-control', 'no-cache');
      return content;
    },
  );

  app.get(
    '/api/site/facts',
    {
      schema: {
        tags: ['site'],
        summary:
          "The landing page's figures computed from the running system: assets, highest payout, settlement time, 24 h changes",
        response: { 200: siteFactsResponseSchema },
      },
    },
    async () => facts.get(),
  );
};
