import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ASSETS,
  DEFAULT_PAYOUT_PERCENTAGE,
  siteContentSchema,
  type SiteContent,
  type SiteFacts,
} from '@brokerage/shared';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { RiskFigureCache } from './risk.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The shipped default (D6): brand, support hours and legal texts; every figure about the company is left empty. */
export const DEFAULT_SITE_CONTENT_FILE = path.resolve(here, '../../../content/site.json');

/**
 * The operator's site content file (D6). Read again whenever its modification time or size changes, so an edit shows
 * on the next page load without a restart. A file that is missing or does not match the schema is logged and answered
 * with 503 (the last good content is kept and served meanwhile).
 */
export class SiteContentStore {
  private cached: { key: string; content: SiteContent } | undefined;
  private lastError: string | undefined;

  constructor(
    readonly file: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  async get(): Promise<SiteContent> {
    try {
      const stat = await fs.stat(this.file);
      const key = `${stat.mtimeMs}:${stat.size}`;
      if (this.cached?.key === key) return this.cached.content;
      const parsed = siteContentSchema.safeParse(JSON.parse(await fs.readFile(this.file, 'utf8')));
      if (!parsed.success) {
        const where = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        throw new Error(`does not match the site content schema: ${where}`);
      }
      this.cached = { key, content: parsed.data };
      this.lastError = undefined;
      return parsed.data;
    } catch (err) {
      const message = `site content file ${this.file} ${err instanceof Error ? err.message : String(err)}`;
      if (message !== this.lastError) this.log.error(message);
      this.lastError = message;
      if (this.cached) return this.cached.content;
      throw new HttpError(503, 'site_content_unavailable');
    }
  }
}

export interface LatestPrices {
  latest(symbol: string): { price: string; at: Date } | undefined;
}

const FACTS_TTL_MS = 5_000;
const MEDIAN_SAMPLE = 500;
/** Issue 15 defect 2: with fewer live-settled trades than this the figure says nothing and is hidden. */
export const SETTLEMENT_FIGURE_MIN_TRADES = 20;

/** The landing page's system figures (D6), computed from the database and the price feed, cached a few seconds. */
export class SiteFactsService {
  private cached: { at: number; facts: SiteFacts } | undefined;
  private readonly risk: RiskFigureCache;

  constructor(
    private readonly db: Db,
    private readonly prices: LatestPrices,
    private readonly now: () => Date,
  ) {
    this.risk = new RiskFigureCache(db, now);
  }

  async get(): Promise<SiteFacts> {
    const nowMs = this.now().getTime();
    if (this.cached && nowMs - this.cached.at < FACTS_TTL_MS) return this.cached.facts;
    const facts = await this.compute(new Date(nowMs));
    this.cached = { at: nowMs, facts };
    return facts;
  }

  private async compute(now: Date): Promise<SiteFacts> {
    const payout = await this.db
      .selectFrom('trading_accounts')
      .where('status', '=', 'active')
      .select((eb) => eb.fn.max('payout_percentage').as('max'))
      .executeTakeFirst();

    const settled = await this.db
      .selectFrom('trades')
      .where('settled_at', 'is not', null)
      .where('status', 'in', ['won', 'lost', 'tie'])
      // Only what the live worker settled: the demo seed's backfilled history settles two hours at once.
      .where('backfilled', '=', false)
      .select(['expires_at', 'settled_at'])
      .orderBy('settled_at', 'desc')
      .limit(MEDIAN_SAMPLE)
      .execute();
    const delays = settled
      .map((t) => new Date(t.settled_at!).getTime() - new Date(t.expires_at).getTime())
      .filter((ms) => Number.isFinite(ms))
      .map((ms) => Math.max(0, ms))
      .sort((a, b) => a - b);
    const mid = Math.floor(delays.length / 2);
    const median =
      delays.length < SETTLEMENT_FIGURE_MIN_TRADES
        ? null
        : delays.length % 2
          ? delays[mid]!
          : Math.round((delays[mid - 1]! + delays[mid]!) / 2);

    const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
    const oldest = await sql<{ symbol: string; open: string; minute: Date | string }>`
      select distinct on (symbol) symbol, open, minute from candles_1m
      where minute >= ${since}::timestamptz order by symbol, minute`.execute(this.db);
    const first = new Map(oldest.rows.map((r) => [r.symbol, r]));

    const risk = await this.risk.get();
    return {
      ...risk,
      asset_count: ASSETS.length,
      max_payout_percentage: payout?.max == null ? DEFAULT_PAYOUT_PERCENTAGE : Number(payout.max),
      median_settlement_ms: median,
      settled_trades_measured: delays.length,
      changes: ASSETS.map((a) => {
        const base = first.get(a.symbol);
        const latest = this.prices.latest(a.symbol);
        if (!base || !latest || Number(base.open) === 0) return { symbol: a.symbol, change_percent: null, since: null };
        const pct = ((Number(latest.price) - Number(base.open)) / Number(base.open)) * 100;
        return {
          symbol: a.symbol,
          change_percent: Math.round(pct * 100) / 100,
          since: new Date(base.minute).toISOString(),
        };
      }),
    };
  }
}
