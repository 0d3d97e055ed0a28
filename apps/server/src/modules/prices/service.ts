import {
  ASSET_SYMBOLS,
  AUDIT_WINDOW_SECONDS,
  compareDecimal,
  findAsset,
  isDecimal,
  roundDecimal,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Clock, PriceSource, PriceTick } from './source.js';

export interface LatestPrice {
  price: string;
  at: Date;
}

interface PendingCandle {
  symbol: string;
  minute: Date;
  open: string;
  high: string;
  low: string;
  close: string;
}

export interface PriceServiceOptions {
  db: Db;
  clock: Clock;
  /** How often buffered ticks are written (ms). */
  flushIntervalMs?: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The audit windows around a trade's strike and expiry (issue 14), as an SQL interval. */
const WINDOW = sql`${sql.lit(`${AUDIT_WINDOW_SECONDS} seconds`)}::interval`;

/** Rows per INSERT statement when writing buffered ticks. */
const INSERT_CHUNK = 1000;
/** Ticks kept in memory while the database cannot be written; beyond this the oldest are dropped (and logged). */
const MAX_BUFFERED = 200_000;

/**
 * The server's prices (decisions.md D2). Keeps the latest price of every symbol in memory (what a new trade opens
 * at), writes every tick to price_ticks in batches (what trades settle at, and what an auditor checks), and keeps
 * 1-minute candles up to date (what the chart draws). One process runs the feed.
 */
export class PriceService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly flushIntervalMs: number;
  private readonly log: PriceServiceOptions['log'];
  private readonly latestBySymbol = new Map<string, LatestPrice>();
  private pendingTicks: PriceTick[] = [];
  private pendingCandles = new Map<string, PendingCandle>();
  private flushChain: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private source: PriceSource | null = null;
  private storedTicks = 0;
  private readonly tickListeners = new Set<(tick: PriceTick) => void>();

  constructor(options: PriceServiceOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.flushIntervalMs = options.flushIntervalMs ?? 250;
    this.log = options.log;
  }

  get running(): boolean {
    return this.source !== null;
  }

  get sourceName(): string | null {
    return this.source?.name ?? null;
  }

  /** Ticks written to the database since start (for logs and benchmarks). */
  get ticksStored(): number {
    return this.storedTicks;
  }

  /** Called with every accepted tick of this process's feed (normalised); returns the unsubscribe function. */
  onTick(listener: (tick: PriceTick) => void): () => void {
    this.tickListeners.add(listener);
    return () => void this.tickListeners.delete(listener);
  }

  /**
   * A tick of the feed leader, received from another process (several processes over PostgreSQL): it becomes the
   * latest price here, so a trade opens at the same strike on every process, but it is not stored again.
   */
  observe(tick: PriceTick): void {
    if (this.source) return; // this process runs the feed itself
    const asset = findAsset(tick.symbol);
    if (!asset || !isDecimal(tick.price) || Number.isNaN(tick.at.getTime())) return;
    const current = this.latestBySymbol.get(asset.symbol);
    if (current && tick.at <= current.at) return;
    this.latestBySymbol.set(asset.symbol, {
      price: roundDecimal(tick.price, asset.decimals),
      at: new Date(tick.at.getTime()),
    });
  }

  /** Loads the last stored prices, lets the source continue from them, and starts it. */
  async start(source: PriceSource, options: { timers?: boolean } = {}): Promise<void> {
    if (this.source) throw new Error('the price feed is already running');
    const stored = await this.loadLatest();
    for (const [symbol, latest] of stored) {
      const current = this.latestBySymbol.get(symbol);
      if (!current || current.at < latest.at) this.latestBySymbol.set(symbol, latest);
    }
    const dropped = source.resume?.(new Map([...stored].map(([s, l]) => [s, l.price])));
    if (dropped && dropped.length > 0)
      this.log?.warn({ symbols: dropped }, 'stored prices too far from the reference; restarting them from it (D18)');
    this.source = source;
    await source.start((tick) => this.ingest(tick));
    if (options.timers ?? true) {
      // Failures are logged and the ticks kept for the next run.
      this.flushTimer = setInterval(() => this.flush().catch(() => undefined), this.flushIntervalMs);
      this.flushTimer.unref();
    }
  }

  /** Stops the source and writes what is buffered. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    const source = this.source;
    this.source = null;
    await source?.stop();
    await this.flush();
  }

  /**
   * Emits every tick the source has due by the clock's now, then writes them: how tests (and a benchmark) move the
   * feed forward without timers.
   */
  async pump(): Promise<void> {
    this.source?.pump?.(this.clock());
    await this.flush();
  }

  /** Takes one tick from a source: normalised, kept as the latest, buffered for the database and the candles. */
  ingest(tick: PriceTick): void {
    const asset = findAsset(tick.symbol);
    if (!asset || !isDecimal(tick.price) || !(tick.at instanceof Date) || Number.isNaN(tick.at.getTime())) {
      this.log?.warn({ tick }, 'price tick refused: unknown symbol or malformed');
      return;
    }
    const price = roundDecimal(tick.price, asset.decimals);
    if (compareDecimal(price, 0) <= 0) return;
    const current = this.latestBySymbol.get(asset.symbol);
    // Ticks of one symbol are kept in time order; a late one would rewrite history, so it is dropped.
    if (current && tick.at < current.at) return;
    const at = new Date(tick.at.getTime());
    this.latestBySymbol.set(asset.symbol, { price, at });
    if (this.pendingTicks.length >= MAX_BUFFERED) {
      this.pendingTicks.shift();
      this.log?.error({ buffered: MAX_BUFFERED }, 'price ticks are not being stored; dropping the oldest');
    }
    this.pendingTicks.push({ symbol: asset.symbol, price, at });
    for (const listener of this.tickListeners) listener({ symbol: asset.symbol, price, at });

    const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    const key = `${asset.symbol}|${minute.getTime()}`;
    const candle = this.pendingCandles.get(key);
    if (!candle) {
      this.pendingCandles.set(key, {
        symbol: asset.symbol,
        minute,
        open: price,
        high: price,
        low: price,
        close: price,
      });
    } else {
      if (compareDecimal(price, candle.high) > 0) candle.high = price;
      if (compareDecimal(price, candle.low) < 0) candle.low = price;
      candle.close = price;
    }
  }

  /** The latest price of a symbol and when it was seen, if any. */
  latest(symbol: string): LatestPrice | undefined {
    return this.latestBySymbol.get(symbol);
  }

  /** Writes buffered ticks and candles. Flushes run one after another, so ticks reach the table in time order. */
  flush(): Promise<void> {
    const run = this.flushChain.then(() => this.writePending());
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    if (this.pendingTicks.length === 0 && this.pendingCandles.size === 0) return;
    const ticks = this.pendingTicks;
    const candles = [...this.pendingCandles.values()];
    this.pendingTicks = [];
    this.pendingCandles = new Map();
    try {
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < ticks.length; i += INSERT_CHUNK) {
          await trx
            .insertInto('price_ticks')
            .values(ticks.slice(i, i + INSERT_CHUNK).map((t) => ({ symbol: t.symbol, price: t.price, at: t.at })))
            .execute();
        }
        for (let i = 0; i < candles.length; i += INSERT_CHUNK) {
          await trx
            .insertInto('candles_1m')
            .values(candles.slice(i, i + INSERT_CHUNK))
            .onConflict((oc) =>
              oc.columns(['symbol', 'minute']).doUpdateSet({
                high: sql`greatest(candles_1m.high, excluded.high)`,
                low: sql`least(candles_1m.low, excluded.low)`,
                close: sql`excluded.close`,
              }),
            )
            .execute();
        }
      });
      this.storedTicks += ticks.length;
    } catch (err) {
      // Keep them for the next flush, in order, ahead of what arrived meanwhile.
      this.pendingTicks = [...ticks, ...this.pendingTicks].slice(-MAX_BUFFERED);
      for (const c of candles) {
        const key = `${c.symbol}|${c.minute.getTime()}`;
        const newer = this.pendingCandles.get(key);
        this.pendingCandles.set(
          key,
          newer
            ? {
                ...c,
                high: compareDecimal(newer.high, c.high) > 0 ? newer.high : c.high,
                low: compareDecimal(newer.low, c.low) < 0 ? newer.low : c.low,
                close: newer.close,
              }
            : c,
        );
      }
      this.log?.error({ err }, 'could not store price ticks; will retry');
      throw err;
    }
  }

  /** The newest stored price of every catalogue symbol. */
  async loadLatest(): Promise<Map<string, LatestPrice>> {
    const rows = await sql<{ symbol: string; price: string; at: Date | string }>`
      select s.symbol, t.price, t.at
      from unnest(${sql.val(ASSET_SYMBOLS as string[])}::text[]) as s(symbol)
      cross join lateral (
        select p.price, p.at from price_ticks p where p.symbol = s.symbol order by p.at desc, p.id desc limit 1
      ) t`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.symbol, { price: String(r.price), at: new Date(r.at) }]));
  }

  /**
   * Deletes raw ticks older than `before` (D2: candles stay), but never one an active trade may still settle at: for
   * each symbol, every tick from the last one at or before the earliest expiry of its active trades onward is kept;
   * nor one a trade's contract audit shows (issue 14).
   */
  async pruneTicks(before: Date): Promise<number> {
    const due = await this.db
      .selectFrom('trades')
      .select(['asset', (eb) => eb.fn.min('expires_at').as('first')])
      .where('status', '=', 'active')
      .groupBy('asset')
      .execute();
    const firstExpiry = new Map(due.map((r) => [r.asset, new Date(r.first)]));
    let deleted = 0;
    for (const symbol of ASSET_SYMBOLS) {
      let cutoff = before;
      const first = firstExpiry.get(symbol);
      if (first) {
        const keepFrom = await this.db
          .selectFrom('price_ticks')
          .select('at')
          .where('symbol', '=', symbol)
          .where('at', '<=', first)
          .orderBy('at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        const keep = keepFrom ? new Date(keepFrom.at) : first;
        if (keep < cutoff) cutoff = keep;
      }
      // Issue 14: the ticks a trade's audit shows stay — strike ± 30 s, expiry ± 30 s and the close tick — for every
      // trade, however old (the trades_asset_* indexes make each check a short range scan).
      const res = await sql`
        delete from price_ticks p
        where p.symbol = ${symbol} and p.at < ${cutoff.toISOString()}::timestamptz
          and not exists (select 1 from trades t where t.asset = p.symbol
            and t.strike_at between p.at - ${WINDOW} and p.at + ${WINDOW})
          and not exists (select 1 from trades t where t.asset = p.symbol
            and t.expires_at between p.at - ${WINDOW} and p.at + ${WINDOW})
          and not exists (select 1 from trades t where t.asset = p.symbol and t.close_at = p.at)`.execute(this.db);
      deleted += Number(res.numAffectedRows ?? 0n);
    }
    return deleted;
  }
}
