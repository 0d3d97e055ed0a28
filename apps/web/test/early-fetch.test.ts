import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchEarly, takeEarly } from '../src/lib/early-fetch';

/** The trading screen's early calls (main.tsx): asked once before the app loads, answered once, never stale. */
describe('early fetch', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('starts one GET per path, hands its answer out once, then lets the caller ask again', async () => {
    const fetch = vi.fn(async () => new Response('{"ok":true}'));
    vi.stubGlobal('fetch', fetch);
    fetchEarly('/api/prices/EURUSD/candles?interval=1m', 'en');
    fetchEarly('/api/prices/EURUSD/candles?interval=1m', 'en');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith('/api/prices/EURUSD/candles?interval=1m', {
      credentials: 'same-origin',
      headers: { Accept: 'application/json', 'Accept-Language': 'en' },
    });
    const early = takeEarly('/api/prices/EURUSD/candles?interval=1m');
    expect(await (await early!).json()).toEqual({ ok: true });
    expect(takeEarly('/api/prices/EURUSD/candles?interval=1m')).toBeUndefined();
    expect(takeEarly('/api/auth/me')).toBeUndefined();
  });

  it('does not hand out an answer older than 15 s', () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{}')),
    );
    fetchEarly('/api/auth/me', null);
    vi.advanceTimersByTime(15_001);
    expect(takeEarly('/api/auth/me')).toBeUndefined();
  });
});
