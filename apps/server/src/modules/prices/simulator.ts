import { ASSET_SYMBOLS, findAsset, roundDecimal } from '@brokerage/shared';
import { systemClock, type Clock, type PriceSource, type TickHandler, type TimedSourceOptions } from './source.js';

export interface SimulatorOptions extends TimedSourceOptions {
  symbols?: readonly string[];
  /** Uniform in [0, 1); injectable so a test can make every move known (or reproducible, with a seeded generator). */
  random?: () => number;
  intervalMs?: number;
  /** Annualised volatility per symbol; the catalogue's (decision D18) by default. */
  volatility?: (symbol: string) => number;
  /** Mean-reversion speed per year (θ); MEAN_REVERSION_PER_YEAR by default, 0 for a pure GBM. */
  meanReversion?: number;
}

/** After a pause longer than this many intervals the simulator does not replay the gap tick by tick. */
const MAX_CATCH_UP = 10;
const YEAR_MS = 365.25 * 24 * 3600 * 1000;
/**
 * D18's weak pull towards the reference price: θ per year for the log price, a half-life of 30 days. The log price's
 * long-run spread around the reference is then σ / √(2θ): about ±1.7 % for a major FX pair, ±14 % for a stock, ±22 %
 * for bitcoin, so a server running for months stays plausible while a day still looks free.
 */
export const MEAN_REVERSION_PER_YEAR = Math.LN2 / (30 / 365.25);
/**
 * A stored price farther from the reference than this many long-run spreads (|ln(price / reference)|) is not resumed
 * from: it was drawn by the old rule (§9's per-tick volatility, every symbol §9 did not list at 100), or the reference
 * changed. The simulator starts that symbol from the reference instead (D18, docs/decisions.md).
 */
export const RESUME_LIMIT_SPREADS = 6;

/**
 * The built-in price source (decision D18, replacing client-platform.md §9's per-tick rule): one tick per asset per
 * interval (1 s), the log price moving by geometric Brownian motion scaled to the interval (σ·√Δt, Δt in years) with
 * a weak Ornstein–Uhlenbeck pull towards the symbol's reference price:
 *   ln S' = ln S − θ·ln(S / ref)·Δt − σ²/2·Δt + σ·√Δt·Z,  Z ~ N(0, 1).
 * The unrounded price is kept between ticks; what is emitted is rounded to the symbol's decimals.
 */
export class SimulatorSource implements PriceSource {
  readonly name = 'simulator';
  readonly symbols: readonly string[];
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly intervalMs: number;
  private readonly timers: boolean;
  private readonly volatility: (symbol: string) => number;
  private readonly theta: number;
  private readonly dtYears: number;
  /** The unrounded current price per symbol. */
  private readonly prices = new Map<string, number>();
  private spareNormal: number | null = null;
  private onTick: TickHandler | null = null;
  private nextAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: SimulatorOptions = {}) {
    this.symbols = (options.symbols ?? ASSET_SYMBOLS).filter((s) => findAsset(s));
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.intervalMs = options.intervalMs ?? 1000;
    this.timers = options.timers ?? true;
    this.volatility = options.volatility ?? ((symbol) => findAsset(symbol)!.annualVolatility);
    this.theta = options.meanReversion ?? MEAN_REVERSION_PER_YEAR;
    this.dtYears = this.intervalMs / YEAR_MS;
    for (const symbol of this.symbols) this.prices.set(symbol, Number(findAsset(symbol)!.basePrice));
  }

  /** The long-run spread of ln(price / reference) of a symbol: σ / √(2θ) (σ itself over a year without reversion). */
  longRunSpread(symbol: string): number {
    const sigma = this.volatility(symbol);
    return this.theta > 0 ? sigma / Math.sqrt(2 * this.theta) : sigma;
  }

  /**
   * Continue from the last stored prices (D18). A stored price too far from the reference (RESUME_LIMIT_SPREADS) is
   * dropped and the symbol restarts from its reference; the symbols dropped are returned (the service logs them).
   */
  resume(latest: ReadonlyMap<string, string>): string[] {
    const dropped: string[] = [];
    for (const symbol of this.symbols) {
      const stored = latest.get(symbol);
      if (!stored) continue;
      const price = Number(stored);
      const reference = Number(findAsset(symbol)!.basePrice);
      const far =
        !(price > 0) || Math.abs(Math.log(price / reference)) > RESUME_LIMIT_SPREADS * this.longRunSpread(symbol);
      if (far) {
        dropped.push(symbol);
        this.prices.set(symbol, reference);
      } else {
        this.prices.set(symbol, price);
      }
    }
    return dropped;
  }

  start(onTick: TickHandler): void {
    this.onTick = onTick;
    const now = this.clock().getTime();
    this.emitAll(new Date(now), false);
    this.nextAt = now + this.intervalMs;
    if (this.timers) this.schedule();
  }

  /**
   * The next timer fires when the next tick is due, not on a coarser poll: a tick stamped `at` goes out at `at`
   * (issue 12 item 4: a 250 ms poll had ticks leave up to 250 ms after their own time, and the live sockets showed it).
   */
  private schedule(): void {
    const delay = Math.min(this.intervalMs, Math.max(1, this.nextAt - this.clock().getTime()));
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.onTick) return;
      this.pump(this.clock());
      this.schedule();
    }, delay);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.onTick = null;
  }

  pump(now: Date): void {
    if (!this.onTick) return;
    const t = now.getTime();
    if (t - this.nextAt > MAX_CATCH_UP * this.intervalMs) this.nextAt = t;
    while (this.nextAt <= t) {
      this.emitAll(new Date(this.nextAt), true);
      this.nextAt += this.intervalMs;
    }
  }

  /** A standard normal draw (Box–Muller over the injected uniform source). */
  private normal(): number {
    if (this.spareNormal !== null) {
      const z = this.spareNormal;
      this.spareNormal = null;
      return z;
    }
    const u1 = Math.max(this.random(), Number.MIN_VALUE);
    const u2 = this.random();
    const r = Math.sqrt(-2 * Math.log(u1));
    this.spareNormal = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  }

  /** The next unrounded price of one symbol from the previous one, given a standard normal draw z (tested directly). */
  next(symbol: string, previous: number, z: number): number {
    const sigma = this.volatility(symbol);
    const reference = Number(findAsset(symbol)!.basePrice);
    const dt = this.dtYears;
    const logNext =
      Math.log(previous) -
      this.theta * Math.log(previous / reference) * dt -
      (sigma * sigma * dt) / 2 +
      sigma * Math.sqrt(dt) * z;
    return Math.exp(logNext);
  }

  /** The current price of a symbol as quoted (rounded to its decimals, never 0). */
  quote(symbol: string): string {
    const asset = findAsset(symbol)!;
    const rounded = roundDecimal(this.prices.get(symbol)!, asset.decimals);
    return Number(rounded) > 0 ? rounded : roundDecimal(10 ** -asset.decimals, asset.decimals);
  }

  private emitAll(at: Date, move: boolean): void {
    for (const symbol of this.symbols) {
      if (move) this.prices.set(symbol, this.next(symbol, this.prices.get(symbol)!, this.normal()));
      this.onTick?.({ symbol, price: this.quote(symbol), at });
    }
  }
}
