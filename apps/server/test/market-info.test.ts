import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FUNDAMENTALS_SELECTOR } from '@brokerage/shared';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { FinnhubProvider } from '../src/modules/market-info/finnhub.js';
import { MarketInfoService, sortCalendar } from '../src/modules/market-info/service.js';
import { SNAPSHOT_FILE, SnapshotProvider } from '../src/modules/market-info/snapshot.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => fs.readFileSync(path.join(here, 'fixtures/finnhub', name), 'utf8');
const snapshot = JSON.parse(fs.readFileSync(SNAPSHOT_FILE, 'utf8')) as {
  snapshot_date: string;
  calendar: { type: string }[];
  fundamentals: Record<string, unknown>;
};
/** Selector order. */
const bySelector = (a: string, b: string) =>
  (FUNDAMENTALS_SELECTOR as readonly string[]).indexOf(a) - (FUNDAMENTALS_SELECTOR as readonly string[]).indexOf(b);
const KEY = 'fh-test-key-3f9a1c0b7d';

/** Stands in for Finnhub at FINNHUB_BASE_URL: answers the recorded responses, and records what it was asked. */
async function fakeFinnhub(options: { failMetric?: boolean; economicStatus?: number } = {}) {
  const requests: { url: string; token: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ url: req.url ?? '', token: req.headers['x-finnhub-token'] as string | undefined });
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.headers['x-finnhub-token'] !== KEY) return send(401, '{"error":"Invalid API key"}');
    const symbol = url.searchParams.get('symbol');
    switch (url.pathname) {
      case '/api/v1/calendar/earnings':
        return send(200, fixture('calendar-earnings.json'));
      case '/api/v1/calendar/economic':
        return options.economicStatus
          ? send(options.economicStatus, '{"error":"You don\'t have access to this resource."}')
          : send(200, fixture('calendar-economic.json'));
      case '/api/v1/stock/profile2':
        return send(200, fixture(symbol === 'AAPL' ? 'profile2-AAPL.json' : 'profile2-unknown.json'));
      case '/api/v1/stock/metric':
        if (options.failMetric) return send(500, 'upstream trouble');
        return send(200, fixture(symbol === 'AAPL' ? 'metric-AAPL.json' : 'metric-unknown.json'));
      default:
        return send(404, '{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  return { url, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe.each(dbKinds())('market information on %s (D14)', (kind) => {
  describe('with the default provider: the shipped dated snapshot', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind);
    });
    afterAll(async () => t.close());

    it('answers the calendar from the snapshot and says so, with its date', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/economic-calendar' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.source).toMatchObject({ provider: 'snapshot', demo: true, snapshot_date: snapshot.snapshot_date });
      expect(body.events).toHaveLength(snapshot.calendar.length);
      const dates = body.events.map((e: { date: string; time: string | null }) => `${e.date}${e.time ?? '99:99'}`);
      // Every snapshot event is in the past: the newest first (issue 15 defect 13), not the oldest.
      expect(dates).toEqual([...dates].sort().reverse());
    });

    it.each(['earnings', 'dividends', 'splits', 'economic'])('filters the calendar by type=%s', async (type) => {
      const res = await t.inject({ method: 'GET', url: `/api/economic-calendar?type=${type}` });
      expect(res.statusCode).toBe(200);
      const events = res.json().events as { type: string }[];
      expect(events.length).toBe(snapshot.calendar.filter((e) => e.type === type).length);
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.type === type)).toBe(true);
    });

    it('refuses an unknown filter with 400 and names the problem', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/economic-calendar?type=gossip' });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/type/);
    });

    it('answers fundamentals of a stock from the snapshot, marked demo', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/fundamentals/aapl' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.source).toMatchObject({ provider: 'snapshot', demo: true, snapshot_date: snapshot.snapshot_date });
      expect(body.data.symbol).toBe('AAPL');
      expect(body.data.profile.name).toBe('Apple Inc.');
      expect(Object.keys(body.data.ratios).sort()).toEqual(
        ['beta', 'current_ratio', 'debt_to_equity', 'pb', 'pe', 'quick_ratio', 'roa', 'roe'].sort(),
      );
      expect(Object.keys(body.data.financials).sort()).toEqual(['dividend_yield', 'eps', 'net_income', 'revenue']);
    });

    it('says that fundamentals are for stocks only for a currency pair, in ru and en', async () => {
      const ru = await t.inject({ method: 'GET', url: '/api/fundamentals/EURUSD' });
      expect(ru.statusCode).toBe(400);
      expect(ru.json().detail).toBe('Фундаментальный анализ доступен только для акций');
      const en = await t.inject({
        method: 'GET',
        url: '/api/fundamentals/BTCUSD',
        headers: { 'accept-language': 'en' },
      });
      expect(en.json().detail).toBe('Fundamental analysis is available for stocks only');
    });

    it('lists only the stocks the snapshot has data for (issue 27 item 13)', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/fundamentals' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ source: 'snapshot', symbols: Object.keys(snapshot.fundamentals).sort(bySelector) });
      // Every listed stock answers figures, none 'no data' (AMD, INTC, … were listed and answered 404).
      for (const symbol of res.json().symbols as string[])
        expect((await t.inject({ method: 'GET', url: `/api/fundamentals/${symbol}` })).statusCode, symbol).toBe(200);
      expect(res.json().symbols).not.toContain('AMD');
    });

    it('answers 404 for a listed stock the snapshot has no data for and for an unknown symbol, 400 for garbage', async () => {
      expect((await t.inject({ method: 'GET', url: '/api/fundamentals/AMD' })).statusCode).toBe(404);
      const unknown = await t.inject({ method: 'GET', url: '/api/fundamentals/ZZZZ' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().detail).toContain('ZZZZ');
      const bad = await t.inject({ method: 'GET', url: '/api/fundamentals/%3Cscript%3E' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().detail).toBeTruthy();
    });
  });

  describe('with MARKET_INFO_PROVIDER=finnhub, against recorded responses', () => {
    let t: TestApp;
    let finnhub: Awaited<ReturnType<typeof fakeFinnhub>>;
    beforeAll(async () => {
      finnhub = await fakeFinnhub();
      t = await createTestApp(kind, {
        MARKET_INFO_PROVIDER: 'finnhub',
        FINNHUB_API_KEY: KEY,
        FINNHUB_BASE_URL: finnhub.url,
      });
    });
    afterAll(async () => {
      await t.close();
      await finnhub.close();
    });

    it('lists every stock of the selector with a live provider', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/fundamentals' });
      expect(res.json()).toEqual({ source: 'live', symbols: [...FUNDAMENTALS_SELECTOR] });
    });

    it('maps the earnings and economic calendars, skipping malformed rows, and is not demo', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/economic-calendar' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.source).toMatchObject({ provider: 'finnhub', demo: false, snapshot_date: null });
      const ids = body.events.map((e: { id: string }) => e.id);
      expect(ids).toHaveLength(6); // 3 of 4 earnings rows and 3 of 4 economic rows are well formed
      const nvda = body.events.find((e: { asset: string | null }) => e.asset === 'NVDA');
      expect(nvda).toMatchObject({
        type: 'earnings',
        date: '2026-11-23',
        time: '20:00',
        forecast: '0.85',
        actual: null,
      });
      const jobless = body.events.find((e: { title: string }) => e.title === 'Unemployment Rate');
      expect(jobless).toMatchObject({
        type: 'economic',
        date: '2026-11-22',
        time: '13:30',
        impact: 'high',
        currency: 'US',
        forecast: '4.1%',
        previous: '4.2%',
      });
      expect(body.events.some((e: { title: string }) => e.title === 'Broken row')).toBe(false);
    });

    it('maps profile and basic financials into the fundamentals fields', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/fundamentals/AAPL' });
      expect(res.statusCode).toBe(200);
      const { source, data } = res.json();
      expect(source).toMatchObject({ provider: 'finnhub', demo: false });
      expect(data.profile).toEqual({ name: 'Apple Inc', sector: 'Technology', market_capitalization: 3521000.5e6 });
      expect(data.ratios).toMatchObject({ pe: 35.33, pb: 52.18, roe: 160.58, debt_to_equity: 1.5134, beta: 1.2403 });
      expect(data.margins).toEqual({ gross_margin: 46.21, operating_margin: 31.51, net_margin: 23.97 });
      expect(data.financials.revenue).toBe(Math.round(15204.14e6 * 25.4851));
      expect(data.financials.eps).toBe(6.5749);
    });

    it('answers 404 when the provider does not know a listed symbol', async () => {
      expect((await t.inject({ method: 'GET', url: '/api/fundamentals/AMD' })).statusCode).toBe(404);
    });

    it('sends the key only in the X-Finnhub-Token header: never in a URL, never in an answer', async () => {
      expect(finnhub.requests.length).toBeGreaterThan(0);
      expect(finnhub.requests.every((r) => r.token === KEY)).toBe(true);
      expect(finnhub.requests.some((r) => r.url.includes(KEY))).toBe(false);
      for (const url of [
        '/api/economic-calendar',
        '/api/fundamentals/AAPL',
        '/api/fundamentals/AMD',
        '/api/docs/json',
      ]) {
        const res = await t.inject({ method: 'GET', url });
        expect(res.body).not.toContain(KEY);
        expect(JSON.stringify(res.headers)).not.toContain(KEY);
      }
    });
  });

  describe('when the provider fails', () => {
    let t: TestApp;
    let finnhub: Awaited<ReturnType<typeof fakeFinnhub>>;
    beforeAll(async () => {
      finnhub = await fakeFinnhub({ failMetric: true, economicStatus: 403 });
      t = await createTestApp(kind, {
        MARKET_INFO_PROVIDER: 'finnhub',
        FINNHUB_API_KEY: KEY,
        FINNHUB_BASE_URL: finnhub.url,
      });
    });
    afterAll(async () => {
      await t.close();
      await finnhub.close();
    });

    it('answers fundamentals from the snapshot and says it is demo data', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/fundamentals/MSFT' });
      expect(res.statusCode).toBe(200);
      expect(res.json().source).toMatchObject({
        provider: 'snapshot',
        demo: true,
        snapshot_date: snapshot.snapshot_date,
      });
      expect(res.json().data.profile.name).toBe('Microsoft Corporation');
    });

    it('still gives the earnings when the paid economic calendar is refused', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/economic-calendar' });
      expect(res.json().source.provider).toBe('finnhub');
      const types = new Set(res.json().events.map((e: { type: string }) => e.type));
      expect([...types]).toEqual(['earnings']);
    });
  });
});

describe('market information service', () => {
  it('logs a provider failure without the key, and with a wrong key answers demo data', async () => {
    const finnhub = await fakeFinnhub();
    const lines: string[] = [];
    const log = { warn: (m: unknown) => lines.push(String(m)) } as unknown as FastifyBaseLogger;
    const wrongKey = 'fh-wrong-key-77d1e2';
    const service = new MarketInfoService(
      new FinnhubProvider({ apiKey: wrongKey, baseUrl: finnhub.url }),
      new SnapshotProvider(),
      log,
      () => new Date('2026-11-22T12:00:00Z'),
      60,
    );
    try {
      const answer = await service.fundamentals('AAPL');
      expect(answer.source.demo).toBe(true);
      expect(lines.join('\n')).toMatch(/HTTP 401/);
      expect(lines.join('\n')).not.toContain(wrongKey);
      expect(JSON.stringify(answer)).not.toContain(wrongKey);
    } finally {
      await finnhub.close();
    }
  });

  it("sorts today's events first, then the coming ones soonest first, then the past ones latest first", () => {
    const e = (id: string, date: string, time: string | null) => ({
      id,
      type: 'economic' as const,
      date,
      time,
      title: id,
      description: null,
      impact: null,
      asset: null,
      currency: null,
      forecast: null,
      actual: null,
      previous: null,
      amount: null,
      ratio: null,
    });
    const sorted = sortCalendar(
      [
        e('later', '2026-11-25', '09:00'),
        e('today-late', '2026-11-22', '18:00'),
        e('past', '2026-11-20', null),
        e('older', '2026-11-02', '10:00'),
        e('today', '2026-11-22', '08:00'),
        e('sooner', '2026-11-23', null),
      ],
      '2026-11-22',
    );
    expect(sorted.map((x) => x.id)).toEqual(['today', 'today-late', 'sooner', 'later', 'past', 'older']);
  });

  it('refuses to start with the finnhub provider and no key, and with an unknown provider', () => {
    expect(() => loadConfig({ MARKET_INFO_PROVIDER: 'finnhub' })).toThrow(/FINNHUB_API_KEY/);
    expect(() => loadConfig({ MARKET_INFO_PROVIDER: 'crystal-ball' })).toThrow(/MARKET_INFO_PROVIDER/);
    expect(loadConfig({ MARKET_INFO_PROVIDER: 'finnhub', FINNHUB_API_KEY: KEY }).MARKET_INFO_PROVIDER).toBe('finnhub');
  });
});
