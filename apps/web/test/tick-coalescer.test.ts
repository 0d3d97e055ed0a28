import { describe, expect, it } from 'vitest';
import { foldTick, TickCoalescer, type Bar, type FrameScheduler } from '../src/modules/trading/tick-coalescer';

/** A fake requestAnimationFrame: callbacks wait until the test runs the next frame. */
function fakeFrames() {
  let next = 1;
  const queued = new Map<number, () => void>();
  const frames: FrameScheduler = {
    request(callback) {
      const id = next++;
      queued.set(id, callback);
      return id;
    },
    cancel(id) {
      queued.delete(id);
    },
  };
  return {
    frames,
    requested: () => next - 1,
    runFrame() {
      const due = [...queued.values()];
      queued.clear();
      for (const callback of due) callback();
    },
  };
}

const MINUTE = 60;
const T0 = Date.UTC(2025, 0, 6, 10, 0, 0); // the start of a minute

function loaded(draws: Bar[], frames: FrameScheduler): TickCoalescer {
  const c = new TickCoalescer(MINUTE, (bar) => draws.push(bar), frames);
  c.load({ time: T0 / 1000, open: 1.1, high: 1.1, low: 1.1, close: 1.1 });
  return c;
}

describe('the chart draws live ticks at most once per animation frame', () => {
  it('a burst of ticks within one frame gives one chart update, with the last price', () => {
    const raf = fakeFrames();
    const draws: Bar[] = [];
    const c = loaded(draws, raf.frames);
    const prices = Array.from({ length: 50 }, (_, i) => 1.1 + (i % 7) * 0.001 - 0.002);
    prices.forEach((p, i) => c.tick(p, T0 + i * 10));
    expect(draws).toEqual([]); // nothing drawn before the frame
    expect(raf.requested()).toBe(1);
    raf.runFrame();
    expect(draws).toHaveLength(1);
    expect(draws[0]).toEqual({
      time: T0 / 1000,
      open: 1.1,
      high: Math.max(1.1, ...prices),
      low: Math.min(1.1, ...prices),
      close: prices.at(-1),
    });
    raf.runFrame();
    expect(draws).toHaveLength(1); // no tick since: no redraw
  });

  it('ticks in two frames give two updates, each with the price of its frame', () => {
    const raf = fakeFrames();
    const draws: Bar[] = [];
    const c = loaded(draws, raf.frames);
    c.tick(1.101, T0 + 100);
    c.tick(1.102, T0 + 200);
    raf.runFrame();
    c.tick(1.103, T0 + 300);
    c.tick(1.099, T0 + 400);
    raf.runFrame();
    expect(draws.map((b) => b.close)).toEqual([1.102, 1.099]);
    expect(draws[1]).toMatchObject({ high: 1.103, low: 1.099 });
  });

  it('ticks before the candles load are folded into the last candle when they do; none is drawn after stop', () => {
    const raf = fakeFrames();
    const draws: Bar[] = [];
    const c = new TickCoalescer(MINUTE, (bar) => draws.push(bar), raf.frames);
    c.tick(1.2, T0 + 61_000); // the next minute
    expect(raf.requested()).toBe(0);
    const changed = c.load({ time: T0 / 1000, open: 1.1, high: 1.15, low: 1.05, close: 1.12 });
    expect(changed).toEqual({ time: T0 / 1000 + 60, open: 1.12, high: 1.2, low: 1.2, close: 1.2 });
    c.tick(1.3, T0 + 62_000);
    c.stop();
    raf.runFrame();
    expect(draws).toEqual([]);
  });

  it('a tick older than the last candle changes nothing', () => {
    const bar = { time: T0 / 1000, open: 1, high: 1, low: 1, close: 1 };
    expect(foldTick(bar, 2, T0 - 1000, MINUTE)).toBeNull();
  });
});
