import { ASSET_SYMBOLS, findAsset, roundDecimal } from '@brokerage/shared';
import { systemClock, type Clock, type PriceSource, type TickHandler, type TimedSourceOptions } from './source.js';

export interface SimulatorOptions extends TimedSourceOptions {
  symbols?: readonly string[];
  /** Uniform in [0, 1); injectable so a test can make every move known. */
  random?: () => number;
  intervalMs?: number;
  /** Volatility per symbol; the catalogue's (client-platform.md §9) by default. */
  volatility?: (symbol: string) => number;
}

/** After a pause longer than this many intervals the simulator does not replay the gap tick by tick. */
const MAX_CATCH_UP = 10;

/**
 * The built-in price source (client-platform.md §9): one tick per asset per second, each moving by
 * (random − 0.5) × volatility × price, never below 99 % of the previous price, rounded to the symbol's decimals.
 */
export class SimulatorSource implements PriceSource {
  readonly name = 'simulator';
  readonly symbols: readonly string[];
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly intervalMs: number;
  private readonly timers: boolean;
  private readonly volatility: (symbol: string) => number;
  private readonly prices = new Map<string, string>();
  private onTick: TickHandler | null = null;
  private nextAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: SimulatorOptions = {}) {
    this.symbols = (options.symbols ?? ASSET_SYMBOLS).filter((s) => findAsset(s));
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.intervalMs = options.intervalMs ?? 1000;
    this.timers = options.timers ?? true;
    this.volatility = options.volatility ?? ((symbol) => findAsset(symbol)!.volatility);
    for (const symbol of this.symbols) this.prices.set(symbol, findAsset(symbol)!.basePrice);
  }

  resume(latest: ReadonlyMap<string, string>): void {
    for (const symbol of this.symbols) {
      const price = latest.get(symbol);
      if (price) this.prices.set(symbol, roundDecimal(price, findAsset(symbol)!.decimals));
    }
  }

  start(onTick: TickHandler): void {
    this.onTick = onTick;
    const now = this.clock().getTime();
    this.emitAll(new Date(now), false);
    this.nextAt = now + this.intervalMs;
    if (this.timers) {
      this.timer = setInterval(() => this.pump(this.clock()), Math.min(this.intervalMs, 250));
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
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

  /** The next price of one symbol from the previous one (exported for the unit test of the rule). */
  step(symbol: string, previous: string): string {
    const asset = findAsset(symbol)!;
    const prev = Number(previous);
    const move = (this.random() - 0.5) * this.volatility(symbol) * prev;
    const next = Math.max(prev + move, prev * 0.99);
    const rounded = roundDecimal(next, asset.decimals);
    // Never 0: the smallest quotable price.
    return Number(rounded) > 0 ? rounded : roundDecimal(10 ** -asset.decimals, asset.decimals);
  }

  private emitAll(at: Date, move: boolean): void {
    for (const symbol of this.symbols) {
      const previous = this.prices.get(symbol)!;
      const price = move ? this.step(symbol, previous) : previous;
      this.prices.set(symbol, price);
      this.onTick?.({ symbol, price, at });
    }
  }
}
