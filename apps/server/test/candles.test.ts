import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceService } from '../src/modules/prices/service.js';
import { backfillCandles1h } from '../src/platform/db/migrations/2026-11-28T0022-candles-1h-postback-event-id.js';
import { seededRandom } from '../src/seed/demo-leads.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 2025-03-10 00:00 UTC: the tests' feeds run from here. */
const START = Date.UTC(2025, 2, 10);
const RATE = 40;

interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

/** The hourly candles of minute candles, the way a chart would fold them: first open, extremes, last close. */
function foldHours(minutes: Candle[]): Candle[] {
  const hours = new Map<number, Candle>();
  for (const m of minutes) {
    const time = Math.floor(m.time / 3600) * 3600;
    const h = hours.get(time);
    if (!h) hours.set(time, { ...m, time });
    else Object.assign(h, { high: Math.max(h.high, m.high), low: Math.min(h.low, m.low), close: m.close });
  }
  return [...hours.values()];
}

/**
 * GET /api/prices/{symbol}/candles (issue 20 §6): a date PostgreSQL cannot take answers 400, not 500; the quote
 * history's per-address limit; a bounded span per interval; hourly candles served from candles_1h, kept by the tick
 * flush (and back-filled by migration 0022), equal to those folded from the minute candles.
 */
describe.each(dbKinds())('candles on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { QUOTE_HISTORY_RATE_PER_MINUTE: String(RATE) });
  });
  afterAll(() => t.close());

  let address = 0;
  /** Each test asks from an address of its own, so the per-address limit counts only its calls. */
  const caller = () => {
    address += 1;
    const remoteAddress = `198.51.100.${address}`;
    return (url: string, headers: Record<string, string> = {}) =>
      t.inject({ method: 'GET', url, remoteAddress, headers });
  };
  const iso = (ms: number) => new Date(ms).toISOString();

  it('answers 400 naming the field for a date outside 2000-01-01 … 2100-01-01, never 500', async () => {
    const get = caller();
    const en = { 'accept-language': 'en' };
    const yearOne = await get('/api/prices/BTCUSD/candles?interval=1h&to=0001-01-01T00:00:01Z', en);
    expect(yearOne.statusCode, yearOne.body).toBe(400);
    expect(yearOne.json().detail).toBe('to: the date must be between 2000-01-01 and 2100-01-01');
    for (const query of [
      'interval=1m&to=0001-01-01T00:00:01Z',
      'interval=5m&from=0001-01-01T00:00:00Z&to=2020-01-01T00:00:00Z',
      'from=1999-12-31T23:59:59Z',
      'to=2100-01-01T00:00:01Z',
      'from=9999-12-31T23:59:59Z&to=9999-12-31T23:59:59.5Z',
    ]) {
      const res = await get(`/api/prices/BTCUSD/candles?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expect(res.json().detail, query).toMatch(/^(from|to): дата должна быть между 2000-01-01 и 2100-01-01$/);
    }
    // The quote history's ticks too (a year 0 date answered 500 there as well).
    const ticks = await get('/api/prices/BTCUSD/ticks?from=0000-12-31T23:55:00Z&to=0001-01-01T00:00:01Z', en);
    expect(ticks.statusCode, ticks.body).toBe(400);
    expect(ticks.json().detail).toBe('from: the date must be between 2000-01-01 and 2100-01-01');
    const edge = await get('/api/prices/BTCUSD/candles?from=2000-01-01T00:00:00Z&to=2000-01-01T01:00:00Z');
    expect(edge.statusCode, edge.body).toBe(200);
    expect(edge.json().candles).toEqual([]);
  });

  it('limits the calls per address like the quote history (429 with Retry-After), another address unaffected', async () => {
    const get = caller();
    const url = '/api/prices/EURUSD/candles?interval=1h';
    for (let i = 0; i < RATE; i++) expect((await get(url)).statusCode).toBe(200);
    const refused = await get(url);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.json().detail).toBeTypeOf('string');
    expect((await caller()(url)).statusCode).toBe(200);
  });

  it('serves hourly candles from candles_1h equal to the minute candles folded by hour, across flushes and a restart', async () => {
    const rnd = seededRandom(20);
    let now = START;
    let feed = new PriceService({ db: t.db, clock: () => new Date(now) });
    let price = 1.1;
    // Five hours and a half of EURGBP, a tick every 1–13 s; flushes at uneven moments (mid-minute, mid-hour) and a
    // restart of the feed in the middle of an hour, as a deploy does.
    let next = START + 1000;
    const until = START + 5.5 * HOUR;
    let flushAt = START + 17_000;
    let restarted = false;
    while (next < until) {
      price *= 1 + (rnd() - 0.5) * 0.002;
      now = next;
      feed.ingest({ symbol: 'EURGBP', price: price.toFixed(5), at: new Date(next) });
      if (next >= flushAt) {
        await feed.flush();
        flushAt = next + 1000 + Math.floor(rnd() * 20 * MINUTE);
      }
      if (!restarted && next >= START + 2.6 * HOUR) {
        await feed.stop();
        feed = new PriceService({ db: t.db, clock: () => new Date(now) });
        restarted = true;
      }
      next += 1000 + Math.floor(rnd() * 12_000);
    }
    await feed.flush();

    const get = caller();
    const range = `from=${iso(START)}&to=${iso(until)}`;
    const minutes = await get(`/api/prices/EURGBP/candles?interval=1m&${range}`);
    expect(minutes.statusCode, minutes.body).toBe(200);
    const minuteCandles = minutes.json().candles as Candle[];
    expect(minuteCandles.length).toBeGreaterThan(300);
    const hours = await get(`/api/prices/EURGBP/candles?interval=1h&${range}`);
    expect(hours.statusCode, hours.body).toBe(200);
    const hourCandles = hours.json().candles as Candle[];
    expect(hourCandles).toHaveLength(6);
    expect(hourCandles).toEqual(foldHours(minuteCandles));
    // Read from the stored aggregate, one row per hour.
    const stored = await t.db.selectFrom('candles_1h').select('hour').where('symbol', '=', 'EURGBP').execute();
    expect(stored).toHaveLength(6);

    // The migration's back-fill from candles_1m gives the same hours.
    await t.db.deleteFrom('candles_1h').where('symbol', '=', 'EURGBP').execute();
    expect((await get(`/api/prices/EURGBP/candles?interval=1h&${range}`)).json().candles).toEqual([]);
    await backfillCandles1h(t.db);
    expect((await get(`/api/prices/EURGBP/candles?interval=1h&${range}`)).json().candles).toEqual(hourCandles);

    // A `from` inside an hour still gets that whole hour; the same 5-minute candles whatever minute `from` names.
    const inside = await get(
      `/api/prices/EURGBP/candles?interval=1h&from=${iso(START + 90 * MINUTE)}&to=${iso(until)}`,
    );
    expect(inside.json().candles).toEqual(hourCandles.slice(1));
    const five = await get(`/api/prices/EURGBP/candles?interval=5m&from=${iso(START + 2 * MINUTE)}&to=${iso(until)}`);
    const fiveAligned = await get(`/api/prices/EURGBP/candles?interval=5m&${range}`);
    expect(five.json().candles).toEqual(fiveAligned.json().candles);
    expect(five.json().candles).toHaveLength(66);
  });

  it('answers at most a bounded span per interval, the most recent part of a wider one', async () => {
    // One XAUUSD tick an hour for 400 days: 9,600 minute candles and as many hourly ones.
    let now = START;
    const feed = new PriceService({ db: t.db, clock: () => new Date(now) });
    const last = START + 400 * DAY;
    for (let at = START; at < last; at += HOUR) {
      now = at;
      feed.ingest({ symbol: 'XAUUSD', price: (2000 + (at - START) / DAY).toFixed(2), at: new Date(at) });
    }
    await feed.flush();
    const get = caller();
    const to = iso(last);
    const span = async (interval: string) => {
      const res = await get(`/api/prices/XAUUSD/candles?interval=${interval}&from=2020-01-01T00:00:00Z&to=${to}`);
      expect(res.statusCode, res.body).toBe(200);
      const candles = res.json().candles as Candle[];
      return { n: candles.length, first: candles[0]!.time * 1000, last: candles.at(-1)!.time * 1000 };
    };
    // A year of hourly candles in one call (the most recent 366 days), read from candles_1h.
    expect(await span('1h')).toEqual({ n: 366 * 24, first: last - 366 * DAY, last: last - HOUR });
    // 1m: 5000 minutes back (one candle an hour here); 5m and 15m: 7 days.
    const oneMinute = await span('1m');
    expect(oneMinute.first).toBeGreaterThanOrEqual(last - 5000 * MINUTE);
    expect(oneMinute.first).toBeLessThan(last - 5000 * MINUTE + HOUR);
    expect(await span('5m')).toEqual({ n: 7 * 24, first: last - 7 * DAY, last: last - HOUR });
    expect(await span('15m')).toEqual({ n: 7 * 24, first: last - 7 * DAY, last: last - HOUR });
    // Paging back: `to` = the first candle's time gives the candles before it.
    const older = await get(
      `/api/prices/XAUUSD/candles?interval=1h&from=2020-01-01T00:00:00Z&to=${iso(last - 366 * DAY)}`,
    );
    const olderCandles = older.json().candles as Candle[];
    expect(olderCandles).toHaveLength(34 * 24);
    expect(olderCandles[0]!.time * 1000).toBe(START);
  });
});
