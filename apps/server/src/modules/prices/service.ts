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
import type { PriceLogSigner } from '../price-log/keys.js';
import { HEAD_INTERVAL_MS, publishHead, type Head } from '../price-log/publisher.js';
import { storeHourCandles } from './candles.js';
import { feedWatermark, guardFlush, storeTicks } from './feed-store.js';
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
  /** How often the watermark moves on (and a failed write is retried) while no tick comes (ms). */
  flushIntervalMs?: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** A fenced write was refused: the feed's lease is no longer this process's (issue 21 §4). */
  onLeaseLost?: (fence: string) => void;
  /**
   * D27: the price log's signing key. With it, the feed publishes a signed tree head after a write that grew the log,
   * at most once every HEAD_INTERVAL_MS of its clock, and once more when it stops; `onHead` is told of each.
   */
  priceLog?: { signer: PriceLogSigner; onHead?: (head: Head) => void };
}

/** The audit windows around a trade's strike and expiry (issue 14), as an SQL interval. */
const WINDOW = sql`${sql.lit(`${AUDIT_WINDOW_SECONDS} seconds`)}::interval`;

/** Rows per INSERT statement when writing buffered candles. */
const INSERT_CHUNK = 1000;
/** A live feed's watermark trails its clock by this much (a source may stamp a tick a moment before emitting it). */
const WATERMARK_LAG_MS = 100;
/** Ticks kept in memory while the database cannot be written; beyond this the oldest are dropped (and logged). */
const MAX_BUFFERED = 200_000;
/**
 * Ticks per write: after an outage the buffer can hold 200,000, and one statement over all of them would hold the
 * lease row (which the leader renews on another connection) for seconds. The rest go in the next writes, at once.
 */
export const MAX_TICKS_PER_WRITE = 5000;

/** The feed's write was refused by the lease's fence: the transaction is rolled back (candles included). */
class LeaseRefused extends Error {
  constructor() {
    super("the price feed's lease is not this process's");
  }
}

/**
 * The server's prices (decisions.md D2, D22). Writes every tick of the feed to price_ticks (what trades open and settle
 * at, and what an auditor checks) together with the feed's watermark, as soon as the previous write is done (ticks that
 * come meanwhile go in the next); only then is a tick the latest price and sent on (to the sockets and the other
 * processes), so no one sees or trades at a price that was never stored (issue 21 §3). Keeps 1-minute candles up to
 * date (what the chart draws). One process runs the feed: with several, its writes carry the lease's fence.
 */
export class PriceService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly flushIntervalMs: number;
  private readonly log: PriceServiceOptions['log'];
  private readonly onLeaseLost: PriceServiceOptions['onLeaseLost'];
  private readonly priceLog: PriceServiceOptions['priceLog'];
  /** The clock's time of the last head this feed published (or tried to), and whether ticks were stored since. */
  private lastHeadAt = -Infinity;
  private unsignedTicks = false;
  /** The latest stored (or, on a follower, observed) price per symbol. */
  private readonly latestBySymbol = new Map<string, LatestPrice>();
  /** The time of the last tick taken per symbol (ticks of a symbol are kept in time order). */
  private readonly lastTaken = new Map<string, number>();
  /** The watermark of the last batch cut for writing: a tick at or before it would be refused, so it is dropped. */
  private cutWatermark = -Infinity;
  /** The lease's fence the writes carry (null: the embedded database, one process, no lease). */
  private fence: string | null = null;
  /** Between start and the end of stop: the watermark moves on even while no tick comes. */
  private feeding = false;
  private timers = true;
  private flushQueued = false;
  private droppedLate = 0;
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
    this.onLeaseLost = options.onLeaseLost;
    this.priceLog = options.priceLog;
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

  /** Called with every tick of this process's feed once it is stored (normalised); returns the unsubscribe function. */
  onTick(listener: (tick: PriceTick) => void): () => void {
    this.tickListeners.add(listener);
    return () => void this.tickListeners.delete(listener);
  }

  /**
   * A tick of the feed leader, received from another process (several processes over PostgreSQL) once the leader
   * stored it: it becomes the latest price here (shown by /api/prices and the sockets), but it is not stored again.
   * Trades open at the latest stored tick, which the place-trade statement reads itself.
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

  /**
   * Loads the last stored prices, lets the source continue from them, and starts it. `fence`: the feed lease's, when
   * several processes share the database (every write carries it); without one the writes are not fenced.
   */
  async start(source: PriceSource, options: { timers?: boolean; fence?: string | null } = {}): Promise<void> {
    if (this.source) throw new Error('the price feed is already running');
    this.fence = options.fence ?? null;
    this.timers = options.timers ?? true;
    const stored = await this.loadLatest();
    // Ticks at or before the watermark (another leader's, or this one's before a restart) would be refused.
    const watermark = await feedWatermark(this.db);
    if (watermark) this.cutWatermark = Math.max(this.cutWatermark, watermark.getTime());
    for (const [symbol, latest] of stored) {
      const current = this.latestBySymbol.get(symbol);
      if (!current || current.at < latest.at) this.latestBySymbol.set(symbol, latest);
    }
    const dropped = source.resume?.(new Map([...stored].map(([s, l]) => [s, l.price])));
    if (dropped && dropped.length > 0)
      this.log?.warn({ symbols: dropped }, 'stored prices too far from the reference; restarting them from it (D18)');
    this.source = source;
    this.feeding = true;
    await source.start((tick) => this.ingest(tick));
    // The first prices are stored (and so quoted) at once, also without timers.
    if (!this.timers) await this.flush();
    if (this.timers) {
      // Failures are logged and the ticks kept for the next run.
      this.flushTimer = setInterval(() => this.flush().catch(() => undefined), this.flushIntervalMs);
      this.flushTimer.unref();
    }
  }

  /**
   * Stops the source and writes what is buffered. `leaseLost`: the leadership ended (another process may already
   * feed), so nothing is written: the buffer is dropped (none of it was stored or sent).
   */
  async stop(options: { leaseLost?: boolean } = {}): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    const source = this.source;
    this.source = null;
    await source?.stop();
    if (options.leaseLost) {
      this.pendingTicks = [];
      this.pendingCandles = new Map();
    }
    try {
      await this.flush();
      // A clean stop leaves a head over every tick it stored (D27), so their trades can settle on another process.
      if (!options.leaseLost) await this.publishHeadIfDue(true);
    } finally {
      this.feeding = false;
      this.fence = null;
    }
  }

  /**
   * Emits every tick the source has due by the clock's now, then writes them: how tests (and a benchmark) move the
   * feed forward without timers.
   */
  async pump(): Promise<void> {
    this.source?.pump?.(this.clock());
    await this.flush();
  }

  /**
   * Takes one tick from a source: normalised and buffered for the database and the candles; it becomes the latest
   * price, and goes to the listeners, once it is stored.
   */
  ingest(tick: PriceTick): void {
    const asset = findAsset(tick.symbol);
    if (!asset || !isDecimal(tick.price) || !(tick.at instanceof Date) || Number.isNaN(tick.at.getTime())) {
      this.log?.warn({ tick }, 'price tick refused: unknown symbol or malformed');
      return;
    }
    const price = roundDecimal(tick.price, asset.decimals);
    if (compareDecimal(price, 0) <= 0) return;
    const t = tick.at.getTime();
    // Ticks of one symbol are kept in time order; a late one would rewrite history, so it is dropped. So is one at or
    // before the watermark already cut (D22: the database would refuse it; what settled there cannot change).
    const current = this.lastTaken.get(asset.symbol) ?? this.latestBySymbol.get(asset.symbol)?.at.getTime();
    if (current !== undefined && t < current) return;
    if (t <= this.cutWatermark) {
      if (this.droppedLate++ % 1000 === 0)
        this.log?.warn({ symbol: asset.symbol, dropped: this.droppedLate }, 'price tick at or before the watermark');
      return;
    }
    const at = new Date(t);
    this.lastTaken.set(asset.symbol, t);
    if (this.pendingTicks.length >= MAX_BUFFERED) {
      this.pendingTicks.shift();
      this.log?.error({ buffered: MAX_BUFFERED }, 'price ticks are not being stored; dropping the oldest');
    }
    this.pendingTicks.push({ symbol: asset.symbol, price, at });
    if (this.timers && this.source && !this.flushQueued) {
      // Written as soon as the previous write is done; the ticks of this turn (every symbol's) go in together.
      this.flushQueued = true;
      setImmediate(() => void this.flush().catch(() => undefined));
    }

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

  /**
   * Writes buffered ticks and candles and moves the watermark on. Flushes run one after another, so ticks reach the
   * table in time order.
   */
  flush(): Promise<void> {
    const run = this.flushChain.then(async () => {
      await this.writePending();
      await this.publishHeadIfDue(false);
    });
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    this.flushQueued = false;
    if (this.pendingTicks.length === 0 && this.pendingCandles.size === 0 && !this.feeding) return;
    // D22: every tick at or before the watermark is in this batch or an earlier one (later ones are dropped at
    // ingest). A running feed's watermark is its clock, trailing a little when live, so a source's tick stamped a
    // moment before it is emitted is not lost; ticks handed in without a feed (tests) move it to the newest of them.
    // A timed source (simulator, replay) first emits what is due by now: when the event loop lags, its timer may not
    // have fired yet for ticks stamped before the cut, which would otherwise arrive late and be dropped.
    const now = this.clock();
    if (this.feeding && this.timers) this.source?.pump?.(now);
    let watermark = Math.max(
      this.cutWatermark,
      this.feeding
        ? now.getTime() - (this.timers ? WATERMARK_LAG_MS : 0)
        : this.pendingTicks.reduce((max, t) => Math.max(max, t.at.getTime()), -Infinity),
    );
    if (this.pendingTicks.length === 0 && this.pendingCandles.size === 0 && watermark <= this.cutWatermark) return;
    let ticks = this.pendingTicks;
    this.pendingTicks = [];
    if (ticks.length > MAX_TICKS_PER_WRITE) {
      // A part: the watermark stops short of the oldest tick left for the next write (D22 still holds).
      this.pendingTicks = ticks.slice(MAX_TICKS_PER_WRITE);
      ticks = ticks.slice(0, MAX_TICKS_PER_WRITE);
      const oldestLeft = this.pendingTicks.reduce((min, t) => Math.min(min, t.at.getTime()), Infinity);
      watermark = Math.max(this.cutWatermark, Math.min(watermark, oldestLeft - 1));
      this.flushQueued = true;
      setImmediate(() => void this.flush().catch(() => undefined));
    }
    const candles = [...this.pendingCandles.values()];
    const fence = this.fence;
    this.pendingCandles = new Map();
    this.cutWatermark = watermark;
    let written: Awaited<ReturnType<typeof storeTicks>>;
    try {
      written = await this.db.transaction().execute(async (trx) => {
        // A stale leader's open transaction must not sit on rows the next leader writes (see feed-store.ts).
        if (fence !== null) await guardFlush(trx);
        // The candles first, the lease row last: it is locked only from the ticks' insert to the commit, so the
        // lease's renewal (another connection) does not wait behind the candle upserts.
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
        await storeHourCandles(trx, candles);
        // The ticks and the watermark, refused whole if the fence is not the lease's: then the candles are undone.
        const stored = await storeTicks(trx, { ticks, watermark: new Date(watermark), fence });
        if (!stored.leased) throw new LeaseRefused();
        return stored;
      });
    } catch (err) {
      if (err instanceof LeaseRefused) {
        this.leaseLost(fence);
        return;
      }
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
    this.storedTicks += written.stored;
    if (written.stored > 0) this.unsignedTicks = true;
    const after = written.previous?.getTime() ?? -Infinity;
    if (written.stored < ticks.length)
      this.log?.warn({ refused: ticks.length - written.stored }, 'price ticks at or before the watermark refused');
    // Stored: now they are the latest prices, and go to the sockets and the other processes (issue 21 §3).
    for (const tick of ticks) {
      if (tick.at.getTime() <= after) continue;
      const current = this.latestBySymbol.get(tick.symbol);
      if (!current || current.at <= tick.at) this.latestBySymbol.set(tick.symbol, { price: tick.price, at: tick.at });
      for (const listener of this.tickListeners) listener(tick);
    }
  }

  /**
   * D27: publishes a signed tree head when ticks were stored since the last one and HEAD_INTERVAL_MS of the feed's
   * clock have passed (`force`: at once, on stop). Runs in the flush chain, after the write and after the ticks went
   * out, so a head never waits for a tick write or the reverse; the tick writes of the 250 ms timer (which also run
   * while no tick comes) make sure the last ticks of a burst are covered about a second later. A failure is logged and
   * retried at the next flush: the ticks are stored, only their head is late (settlement waits for it).
   */
  private async publishHeadIfDue(force: boolean): Promise<void> {
    if (!this.priceLog || !this.unsignedTicks) return;
    const now = this.clock().getTime();
    if (!force && now - this.lastHeadAt < HEAD_INTERVAL_MS) return;
    this.lastHeadAt = now;
    this.unsignedTicks = false;
    try {
      const head = await publishHead(this.db, this.priceLog.signer, now);
      if (head) this.priceLog.onHead?.(head);
    } catch (err) {
      this.unsignedTicks = true;
      this.log?.error({ err }, 'could not publish a price log head; will retry');
    }
  }

  /**
   * A write was refused: another process holds the feed's lease (or it ran out while this one could not renew it).
   * Nothing more is written: the buffer is dropped (none of it was stored or sent), the source stopped, and the
   * owner told, so it steps down (issue 21 §4).
   */
  private leaseLost(fence: string | null): void {
    this.log?.warn({ fence, dropped: this.pendingTicks.length }, 'price feed lease lost; its writes were refused');
    this.pendingTicks = [];
    this.pendingCandles = new Map();
    this.feeding = false;
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    const source = this.source;
    this.source = null;
    void Promise.resolve(source?.stop()).catch(() => undefined);
    if (fence !== null) this.onLeaseLost?.(fence);
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
