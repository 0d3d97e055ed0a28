import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { EventBus } from '../../platform/bus/index.js';
import { LEADER_LOCKS, LEASES, LeaseLeader } from '../../platform/bus/leader.js';
import type { Db } from '../../platform/db/index.js';
import { pruneIdempotencyKeys } from '../../platform/http/idempotency.js';
import { priceLogSignerFromConfig, type PriceLogSigner } from '../price-log/keys.js';
import { headJson } from '../price-log/publisher.js';
import { createPriceSource } from '../prices/factory.js';
import { PriceService } from '../prices/service.js';
import { systemClock, type Clock } from '../prices/source.js';
import { settleDueTrades, settlementLanes, type SettleOptions, type SettleReport } from './settlement.js';
import type { TradingDeps } from './service.js';

const HOUR = 3_600_000;

/**
 * The background half of the trading engine: the price feed and the settlement worker, with one clock for both.
 * buildApp creates it stopped; main.ts starts it. Tests leave it stopped and drive it: a replay feed started without
 * timers, `useClock` for time, `prices.pump()` to move the feed and `settleDueTrades({now})` to settle.
 *
 * Several processes over PostgreSQL (`databaseUrl` given): only the leader — the holder of the feed's lease
 * (platform/bus/leader.ts) — runs the feed, stores each tick with the watermark under the lease's fence and then
 * publishes it on the bus; the others take those ticks as their latest prices (D2: one price for everyone) and take
 * over when the leader crashes or stops renewing its lease (issue 21 §4). Settlement runs on every process (SKIP
 * LOCKED): it decides only from stored ticks at or before the watermark (D22), so it needs no lease.
 */
export class TradingEngine {
  readonly prices: PriceService;
  /** D27: the price log's signing key (the feed signs heads with it; GET /api/price-log/key and proofs name it). */
  readonly priceLogSigner: PriceLogSigner;
  private clock: Clock = systemClock;
  private running = false;
  private settleTimer: NodeJS.Timeout | null = null;
  private maintenanceTimer: NodeJS.Timeout | null = null;
  private settling: Promise<unknown> | null = null;
  private leader: LeaseLeader | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      log: FastifyBaseLogger;
      bus: EventBus;
      dbKind: 'pglite' | 'postgres';
      databaseUrl?: string | undefined;
    },
  ) {
    this.priceLogSigner = priceLogSignerFromConfig(deps.config);
    this.prices = new PriceService({
      db: deps.db,
      clock: () => this.now(),
      log: deps.log,
      // A refused write: another process holds the lease; step down now rather than at the next renewal.
      onLeaseLost: (fence) => void this.leader?.lost(fence),
      // D27: each signed head goes to every process's sockets (the live price stream), like the ticks.
      priceLog: {
        signer: this.priceLogSigner,
        onHead: (head) => deps.bus.publish({ type: 'price_log.head', head: headJson(head) }),
      },
    });
    // Every tick of this process's feed goes on the bus once stored (to the sockets, and to the other processes).
    this.prices.onTick((tick) =>
      deps.bus.publish({ type: 'price.tick', symbol: tick.symbol, price: tick.price, at: tick.at.toISOString() }),
    );
  }

  get bus(): EventBus {
    return this.deps.bus;
  }

  /** Whether this process runs the price feed (always, with one process). */
  get isFeedLeader(): boolean {
    return this.prices.running;
  }

  now(): Date {
    return this.clock();
  }

  /** Replaces the clock of the feed, of new trades and of settlement (tests). */
  useClock(clock: Clock): void {
    this.clock = clock;
  }

  get durations(): readonly number[] {
    return this.deps.config.TRADE_DURATIONS;
  }

  tradingDeps(): TradingDeps {
    return {
      db: this.deps.db,
      prices: this.prices,
      now: () => this.now(),
      durations: this.durations,
      bus: this.deps.bus,
    };
  }

  /**
   * Starts the PRICE_SOURCE feed; `timers: false` leaves it to `prices.pump()`. `fence`: the lease's, when several
   * processes share the database.
   */
  async startPriceFeed(options: { timers?: boolean; fence?: string } = {}): Promise<void> {
    const timers = options.timers ?? true;
    const source = createPriceSource(this.deps.config.PRICE_SOURCE, {
      clock: () => this.now(),
      timers,
      binance: { url: this.deps.config.BINANCE_WS_URL, log: this.deps.log },
    });
    await this.prices.start(source, { timers, fence: options.fence ?? null });
  }

  /** Settles what is due, then tells each owner's sockets that their account changed. */
  async settleDueTrades(options: Partial<SettleOptions> = {}): Promise<SettleReport> {
    const report = await settleDueTrades(
      { db: this.deps.db, log: this.deps.log },
      { lanes: settlementLanes(this.deps.dbKind), ...options, now: options.now ?? this.now() },
    );
    if (report.settled.length > 0) await this.announceSettled(report);
    return report;
  }

  /**
   * After the commits (the bench times it apart): one hint per account, with the sequence the run raised it to; the
   * sockets read the settled trades and the balance from the database (issue 21 §7), so a lost hint loses nothing.
   */
  async announceSettled(report: SettleReport): Promise<void> {
    const latest = new Map<number, { userId: string; seq: number }>();
    for (const s of report.settled) {
      if (!s.ownerId) continue;
      const seen = latest.get(s.accountId);
      if (!seen || s.seq > seen.seq) latest.set(s.accountId, { userId: s.ownerId, seq: s.seq });
    }
    for (const [accountId, { userId, seq }] of latest)
      this.deps.bus.publish({ type: 'account.changed', user_id: userId, account_id: accountId, seq });
  }

  /**
   * The feed, then one settlement run right away, then every SETTLEMENT_INTERVAL_MS; housekeeping hourly. Trades that
   * expired while the server was down settle by D22 once the feed's watermark has passed their expiry: at the last
   * stored tick at or before it, or by the gap rule when the feed has none close enough.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.deps.databaseUrl) {
      // Followers take the leader's ticks as their latest prices.
      this.unsubscribe = this.deps.bus.subscribe((event) => {
        if (event.type === 'price.tick')
          this.prices.observe({ symbol: event.symbol, price: event.price, at: new Date(event.at) });
      });
      this.leader = new LeaseLeader({
        url: this.deps.databaseUrl,
        lease: LEASES.priceFeed,
        key: LEADER_LOCKS.priceFeed,
        name: 'price feed',
        leaseMs: this.deps.config.FEED_LEASE_MS,
        retryMs: this.deps.config.FEED_LEADER_RETRY_MS,
        log: this.deps.log,
        onLead: async (fence) => {
          await this.startPriceFeed({ fence });
          this.deps.log.info({ source: this.prices.sourceName }, 'price feed started (leader)');
        },
        onLose: () => this.prices.stop({ leaseLost: true }),
      });
      await this.leader.start();
    } else {
      await this.startPriceFeed();
      this.deps.log.info({ source: this.prices.sourceName }, 'price feed started');
    }
    // Not awaited: a long backlog after an outage settles while the server already answers.
    void this.settleOnce();
    this.maintenanceTimer = setInterval(() => void this.maintain(), HOUR);
    this.maintenanceTimer.unref();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    if (this.maintenanceTimer) clearInterval(this.maintenanceTimer);
    this.settleTimer = null;
    this.maintenanceTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.settling;
    if (this.leader) await this.leader.stop();
    this.leader = null;
    await this.prices.stop();
  }

  private async settleOnce(): Promise<void> {
    if (!this.running) return;
    const run = this.settleDueTrades()
      .then((report) => {
        if (report.settled.length > 0) this.deps.log.debug({ settled: report.settled.length }, 'trades settled');
      })
      .catch((err: unknown) => this.deps.log.error({ err }, 'settlement run failed'));
    this.settling = run;
    await run;
    this.settling = null;
    if (this.running) {
      this.settleTimer = setTimeout(() => void this.settleOnce(), this.deps.config.SETTLEMENT_INTERVAL_MS);
      this.settleTimer.unref();
    }
  }

  /** Idempotency keys older than a day, and raw ticks past TICK_RETENTION_HOURS (candles stay). */
  async maintain(): Promise<void> {
    try {
      const now = this.now().getTime();
      await pruneIdempotencyKeys(this.deps.db, new Date(now - 24 * HOUR));
      const hours = this.deps.config.TICK_RETENTION_HOURS;
      if (hours > 0 && this.prices.running) await this.prices.pruneTicks(new Date(now - hours * HOUR));
    } catch (err) {
      this.deps.log.error({ err }, 'trading housekeeping failed');
    }
  }
}
