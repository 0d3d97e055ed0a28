import fs from 'node:fs';
import { findAsset, isDecimal, roundDecimal, compareDecimal } from '@brokerage/shared';
import { systemClock, type Clock, type PriceSource, type TickHandler, type TimedSourceOptions } from './source.js';

export interface ReplayRow {
  /** Milliseconds after the source starts. */
  tMs: number;
  symbol: string;
  price: string;
}

export interface ReplayOptions extends TimedSourceOptions {
  /** After the last row each symbol's last price is repeated this often, so it stays current. */
  heartbeatMs?: number;
}

const MAX_CATCH_UP = 10;

/**
 * Parses a recorded tick file: CSV with a header naming the columns t_ms, symbol, price (any order); blank lines and
 * lines starting with # are skipped. Every row is checked (catalogue symbol, whole t_ms ≥ 0, price > 0) and a bad
 * one stops the server with the line number, rather than trading on a half-read file.
 */
export function parseReplayCsv(text: string, origin = 'replay file'): ReplayRow[] {
  const lines = text.split(/\r?\n/);
  let header: string[] | null = null;
  const rows: ReplayRow[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const cells = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    if (!header) {
      header = cells.map((c) => c.toLowerCase());
      for (const col of ['t_ms', 'symbol', 'price']) {
        if (!header.includes(col))
          throw new Error(`${origin}: the header must name t_ms, symbol and price (line ${i + 1})`);
      }
      return;
    }
    const cell = (name: string) => cells[header!.indexOf(name)] ?? '';
    const tMs = Number(cell('t_ms'));
    const symbol = cell('symbol').toUpperCase();
    const price = cell('price');
    const asset = findAsset(symbol);
    if (!Number.isSafeInteger(tMs) || tMs < 0) throw new Error(`${origin}:${i + 1}: t_ms must be a whole number ≥ 0`);
    if (!asset) throw new Error(`${origin}:${i + 1}: unknown symbol ${symbol}`);
    if (!isDecimal(price) || compareDecimal(price, 0) <= 0)
      throw new Error(`${origin}:${i + 1}: price must be a number > 0`);
    rows.push({ tMs, symbol, price: roundDecimal(price, asset.decimals) });
  });
  if (!header) throw new Error(`${origin}: empty file`);
  // Stable: rows with the same time keep their file order.
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.tMs - b.r.tMs || a.i - b.i)
    .map(({ r }) => r);
}

/**
 * Plays a recorded tick file (PRICE_SOURCE=replay:<path>), for tests and benchmarks: each row is emitted t_ms after
 * the source starts, stamped with that time. After the last row every symbol keeps its last price, repeated each
 * heartbeat so it stays current.
 */
export class ReplaySource implements PriceSource {
  readonly name: string;
  readonly symbols: readonly string[];
  private readonly clock: Clock;
  private readonly timers: boolean;
  private readonly heartbeatMs: number;
  private readonly last = new Map<string, string>();
  private onTick: TickHandler | null = null;
  private t0 = 0;
  private index = 0;
  private nextBeat = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly rows: readonly ReplayRow[],
    options: ReplayOptions & { name?: string } = {},
  ) {
    this.name = options.name ?? 'replay';
    this.symbols = [...new Set(rows.map((r) => r.symbol))];
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? true;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    const lastRow = rows.at(-1);
    this.nextBeat = lastRow ? lastRow.tMs + this.heartbeatMs : 0;
  }

  static fromFile(path: string, options: ReplayOptions = {}): ReplaySource {
    return new ReplaySource(parseReplayCsv(fs.readFileSync(path, 'utf8'), path), {
      ...options,
      name: `replay:${path}`,
    });
  }

  start(onTick: TickHandler): void {
    this.onTick = onTick;
    this.t0 = this.clock().getTime();
    this.pump(new Date(this.t0));
    if (this.timers) {
      this.timer = setInterval(() => this.pump(this.clock()), 50);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.onTick = null;
  }

  pump(now: Date): void {
    const onTick = this.onTick;
    if (!onTick) return;
    const elapsed = now.getTime() - this.t0;
    while (this.index < this.rows.length && this.rows[this.index]!.tMs <= elapsed) {
      const row = this.rows[this.index++]!;
      this.last.set(row.symbol, row.price);
      onTick({ symbol: row.symbol, price: row.price, at: new Date(this.t0 + row.tMs) });
    }
    if (this.index < this.rows.length) return;
    if (elapsed - this.nextBeat > MAX_CATCH_UP * this.heartbeatMs) this.nextBeat = elapsed;
    while (this.nextBeat <= elapsed) {
      for (const [symbol, price] of this.last) onTick({ symbol, price, at: new Date(this.t0 + this.nextBeat) });
      this.nextBeat += this.heartbeatMs;
    }
  }
}
