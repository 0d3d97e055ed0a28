import {
  FUNDAMENTALS_SELECTOR,
  findAsset,
  type CalendarEvent,
  type CalendarResponse,
  type Fundamentals,
  type FundamentalsList,
  type FundamentalsResponse,
  type MarketInfoSource,
} from '@brokerage/shared';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { HttpError } from '../../platform/http/errors.js';
import { FinnhubProvider, type FetchLike } from './finnhub.js';
import type { MarketInfoProvider } from './provider.js';
import { SnapshotProvider } from './snapshot.js';

interface Cached<T> {
  value: T;
  source: MarketInfoSource;
  at: number;
}

/** Today's events first (client-platform.md §2.8), then by date and time as below. */
export function sortCalendar(events: CalendarEvent[], today: string): CalendarEvent[] {
  // Issue 15 defect 13: today's events, then the coming ones (soonest first), then the past ones (latest first), so
  // a dated snapshot opens on its newest events rather than its oldest.
  const group = (e: CalendarEvent) => (e.date === today ? 0 : e.date > today ? 1 : 2);
  const at = (e: CalendarEvent) => `${e.date}${e.time ?? '99:99'}`;
  return [...events].sort((a, b) => {
    const g = group(a) - group(b);
    if (g !== 0) return g;
    const order = at(a).localeCompare(at(b));
    return group(a) === 2 ? -order : order;
  });
}

/**
 * Economic calendar and fundamentals (D14): the configured provider, cached MARKET_INFO_CACHE_SECONDS; when a live
 * provider fails, the shipped dated snapshot answers and the answer says so (demo, snapshot_date).
 */
export class MarketInfoService {
  private readonly calendarCache = new Map<string, Cached<CalendarEvent[]>>();
  private readonly fundamentalsCache = new Map<string, Cached<Fundamentals | null>>();
  private readonly ttlMs: number;

  constructor(
    private readonly live: MarketInfoProvider | null,
    private readonly snapshot: SnapshotProvider,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date,
    cacheSeconds: number,
  ) {
    this.ttlMs = cacheSeconds * 1000;
  }

  private snapshotSource(): MarketInfoSource {
    return {
      provider: 'snapshot',
      demo: true,
      snapshot_date: this.snapshot.date,
      fetched_at: this.now().toISOString(),
    };
  }

  private async cached<T>(
    cache: Map<string, Cached<T>>,
    key: string,
    fromLive: (p: MarketInfoProvider) => Promise<T>,
    fromSnapshot: () => Promise<T>,
  ): Promise<Cached<T>> {
    const nowMs = this.now().getTime();
    const hit = cache.get(key);
    if (hit && nowMs - hit.at < this.ttlMs) return hit;
    let entry: Cached<T>;
    if (this.live) {
      try {
        const value = await fromLive(this.live);
        entry = {
          value,
          source: {
            provider: this.live.name,
            demo: false,
            snapshot_date: null,
            fetched_at: new Date(nowMs).toISOString(),
          },
          at: nowMs,
        };
      } catch (err) {
        // The message names the endpoint and the status only, never the key.
        this.log.warn(
          `market info provider failed, answering from the snapshot: ${err instanceof Error ? err.message : 'error'}`,
        );
        // A failure is retried after a minute, not after the whole cache time.
        entry = {
          value: await fromSnapshot(),
          source: this.snapshotSource(),
          at: nowMs - Math.max(0, this.ttlMs - 60_000),
        };
      }
    } else {
      entry = { value: await fromSnapshot(), source: this.snapshotSource(), at: nowMs };
    }
    cache.set(key, entry);
    return entry;
  }

  async calendar(type: string): Promise<CalendarResponse> {
    const now = this.now();
    const entry = await this.cached(
      this.calendarCache,
      'all',
      (p) => p.calendar(now),
      () => this.snapshot.calendar(),
    );
    const events = type === 'all' ? entry.value : entry.value.filter((e) => e.type === type);
    return { source: entry.source, events: sortCalendar(events, now.toISOString().slice(0, 10)) };
  }

  /** The selector's stocks the source has data for (issue 27 item 13). */
  fundamentalsList(): FundamentalsList {
    const provider = this.live ?? this.snapshot;
    return {
      source: this.live ? 'live' : 'snapshot',
      symbols: [...provider.fundamentalsSymbols(FUNDAMENTALS_SELECTOR)],
    };
  }

  async fundamentals(rawSymbol: string): Promise<FundamentalsResponse> {
    const symbol = rawSymbol.trim().toUpperCase();
    if (!(FUNDAMENTALS_SELECTOR as readonly string[]).includes(symbol)) {
      const asset = findAsset(symbol);
      if (asset && asset.category !== 'stocks_us') throw new HttpError(400, 'fundamentals_stocks_only');
      throw new HttpError(404, 'fundamentals_unavailable', { symbol });
    }
    const entry = await this.cached(
      this.fundamentalsCache,
      symbol,
      (p) => p.fundamentals(symbol),
      () => this.snapshot.fundamentals(symbol),
    );
    if (!entry.value) throw new HttpError(404, 'fundamentals_unavailable', { symbol });
    return { source: entry.source, data: entry.value };
  }
}

export function createMarketInfoService(
  config: Config,
  log: FastifyBaseLogger,
  now: () => Date,
  fetchFn?: FetchLike,
): MarketInfoService {
  const live =
    config.MARKET_INFO_PROVIDER === 'finnhub' && config.FINNHUB_API_KEY
      ? new FinnhubProvider({
          apiKey: config.FINNHUB_API_KEY,
          baseUrl: config.FINNHUB_BASE_URL,
          ...(fetchFn ? { fetch: fetchFn } : {}),
        })
      : null;
  return new MarketInfoService(live, new SnapshotProvider(), log, now, config.MARKET_INFO_CACHE_SECONDS);
}
