import path from 'node:path';
import { ASSET_SYMBOLS } from '@brokerage/shared';
import { BinanceSource, type BinanceOptions } from './binance.js';
import { ReplaySource } from './replay.js';
import { SimulatorSource } from './simulator.js';
import type { Clock, PriceSource, TickHandler } from './source.js';

/** Several sources side by side; each symbol comes from the first source listed that quotes it. */
export class CompositeSource implements PriceSource {
  readonly name: string;
  readonly symbols: readonly string[];

  constructor(private readonly sources: readonly PriceSource[]) {
    this.name = sources.map((s) => s.name).join('+');
    this.symbols = [...new Set(sources.flatMap((s) => s.symbols))];
  }
  async start(onTick: TickHandler): Promise<void> {
    for (const s of this.sources) await s.start(onTick);
  }
  async stop(): Promise<void> {
    for (const s of this.sources) await s.stop();
  }
  pump(now: Date): void {
    for (const s of this.sources) s.pump?.(now);
  }
  resume(latest: ReadonlyMap<string, string>): string[] {
    return this.sources.flatMap((s) => s.resume?.(latest) ?? []);
  }
}

export interface SourceFactoryOptions {
  clock: Clock;
  timers: boolean;
  binance?: Omit<BinanceOptions, 'clock'>;
}

/**
 * PRICE_SOURCE: 'simulator' (default), 'replay:<path to a t_ms,symbol,price CSV>', 'binance' (the crypto symbols
 * only; the others have no price, so they cannot be traded), or sources joined with '+', e.g. 'binance+simulator'
 * (crypto from Binance, every other symbol simulated).
 */
export function createPriceSource(spec: string, options: SourceFactoryOptions): PriceSource {
  const parts = spec
    .split('+')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('PRICE_SOURCE is empty');
  const sources: PriceSource[] = [];
  const covered = new Set<string>();
  for (const part of parts) {
    let source: PriceSource;
    if (part === 'simulator') {
      source = new SimulatorSource({
        symbols: ASSET_SYMBOLS.filter((s) => !covered.has(s)),
        clock: options.clock,
        timers: options.timers,
      });
    } else if (part.startsWith('replay:')) {
      source = ReplaySource.fromFile(path.resolve(part.slice('replay:'.length)), {
        clock: options.clock,
        timers: options.timers,
      });
    } else if (part === 'binance') {
      source = new BinanceSource({ ...options.binance, clock: options.clock });
    } else {
      throw new Error(`unknown PRICE_SOURCE part '${part}' (simulator, replay:<file>, binance)`);
    }
    for (const s of source.symbols) covered.add(s);
    sources.push(source);
  }
  return sources.length === 1 ? sources[0]! : new CompositeSource(sources);
}
