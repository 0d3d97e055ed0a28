/** A candle of the chart: time in seconds (the start of its interval), prices as numbers. */
export interface Bar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

/**
 * Folds one tick into the last candle: the same interval updates high, low and close; a later one opens a new candle
 * at the previous close; a tick older than the last candle changes nothing (null).
 */
export function foldTick(bar: Bar | null, price: number, atMs: number, stepSeconds: number): Bar | null {
  const time = Math.floor(atMs / 1000 / stepSeconds) * stepSeconds;
  if (bar && time < bar.time) return null;
  if (bar && time === bar.time)
    return { time, open: bar.open, high: Math.max(bar.high, price), low: Math.min(bar.low, price), close: price };
  return { time, open: bar?.close ?? price, high: price, low: price, close: price };
}

/** The browser's frame scheduler, replaceable in tests. */
export interface FrameScheduler {
  request(callback: () => void): number;
  cancel(id: number): void;
}

export const browserFrames: FrameScheduler = {
  request: (callback) => requestAnimationFrame(() => callback()),
  cancel: (id) => cancelAnimationFrame(id),
};

/**
 * The chart's live ticks, coalesced: every tick is folded into the last candle at once, but the chart is drawn at
 * most once per animation frame, with the candle as it stands then. Ticks that arrive before the candles have loaded
 * are kept and folded in when they do.
 */
export class TickCoalescer {
  private bar: Bar | null = null;
  private pending = false;
  private loaded = false;
  private frame: number | null = null;
  private stopped = false;
  private readonly buffered: { price: number; atMs: number }[] = [];

  constructor(
    private readonly stepSeconds: number,
    private readonly draw: (bar: Bar) => void,
    private readonly frames: FrameScheduler = browserFrames,
  ) {}

  get lastBar(): Bar | null {
    return this.bar;
  }

  /** One live tick. */
  tick(price: number, atMs: number): void {
    if (this.stopped) return;
    if (!this.loaded) {
      this.buffered.push({ price, atMs });
      return;
    }
    this.fold(price, atMs);
    if (this.pending && this.frame === null) this.frame = this.frames.request(() => this.flush());
  }

  /**
   * The stored candles have arrived (their last one given): the ticks kept meanwhile are folded in, and the candle to
   * draw now is returned (null when no tick changed it).
   */
  load(last: Bar | null): Bar | null {
    this.bar = last;
    this.loaded = true;
    for (const t of this.buffered.splice(0)) this.fold(t.price, t.atMs);
    const changed = this.pending ? this.bar : null;
    this.pending = false;
    return changed;
  }

  stop(): void {
    this.stopped = true;
    if (this.frame !== null) this.frames.cancel(this.frame);
    this.frame = null;
  }

  private fold(price: number, atMs: number): void {
    const next = foldTick(this.bar, price, atMs, this.stepSeconds);
    if (!next) return;
    this.bar = next;
    this.pending = true;
  }

  private flush(): void {
    this.frame = null;
    if (!this.pending || !this.bar || this.stopped) return;
    this.pending = false;
    this.draw(this.bar);
  }
}
