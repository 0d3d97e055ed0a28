/**
 * Where prices come from (decisions.md D2). A source emits ticks; the PriceService keeps the latest per symbol,
 * stores every tick and builds 1-minute candles. Sources never decide anything about trades.
 */

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

export interface PriceTick {
  symbol: string;
  /** A decimal string with the symbol's quote decimals. */
  price: string;
  at: Date;
}

export type TickHandler = (tick: PriceTick) => void;

export interface PriceSource {
  /** For logs and /api/health-like reports: 'simulator', 'replay:<file>', 'binance'. */
  readonly name: string;
  /** The catalogue symbols this source quotes. */
  readonly symbols: readonly string[];
  start(onTick: TickHandler): void | Promise<void>;
  stop(): void | Promise<void>;
  /**
   * Sources driven by time (simulator, replay) emit every tick that is due by `now`. Their own timers call it; tests
   * call it directly with a controlled clock instead of sleeping.
   */
  pump?(now: Date): void;
  /**
   * Continue from the last stored prices after a restart instead of the base prices. Answers the symbols whose stored
   * price it would not continue from (the simulator's absurd-price rule, D18), if any.
   */
  resume?(latest: ReadonlyMap<string, string>): void | string[];
}

export interface TimedSourceOptions {
  clock?: Clock;
  /** false: no timers; the owner calls pump(now) (tests). */
  timers?: boolean;
}
