import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ASSETS, DEFAULT_PAYOUT_PERCENTAGE } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEFAULT_SITE_CONTENT_FILE, SETTLEMENT_FIGURE_MIN_TRADES } from '../src/modules/site-content/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { T0, createTradingApp, fund, placeTrade, registerClient, type TradingTestApp } from './trading-helpers.js';

const shipped = JSON.parse(fs.readFileSync(DEFAULT_SITE_CONTENT_FILE, 'utf8'));

describe.each(dbKinds())('site content (D6) on %s', (kind) => {
  describe('the shipped default file', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind);
    });
    afterAll(async () => t.close());

    it('is served publicly, and states no figure about the company', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/site-content' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual(shipped);
      expect(body.brand.name).toBeTruthy();
      expect(body.legal.risk_disclosure.ru).toBeTruthy();
      // Blocks the operator has not filled are empty, so the landing page hides them.
      expect(Object.values(body.stats ?? {}).every((v) => v === null)).toBe(true);
      expect(body.milestones ?? []).toEqual([]);
      expect(body.testimonials ?? []).toEqual([]);
      expect(body.registration).toBeUndefined();
    });
  });

  describe('SITE_CONTENT_FILE', () => {
    let t: TestApp;
    let dir: string;
    let file: string;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-content-'));
      file = path.join(dir, 'site.json');
      fs.writeFileSync(file, JSON.stringify({ brand: { name: 'Acme Trade' } }));
      t = await createTestApp(kind, { SITE_CONTENT_FILE: file });
    });
    afterAll(async () => {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('serves the operator file, and a change shows on the next request without a restart', async () => {
      expect((await t.inject({ method: 'GET', url: '/api/site-content' })).json()).toEqual({
        brand: { name: 'Acme Trade' },
      });
      const next = {
        brand: { name: 'Acme Trade' },
        stats: { clients: 1200 },
        registration: { ru: 'Рег. № 123', en: 'Reg. No. 123' },
        testimonials: [{ name: 'Aigerim', years: 2, quote: { ru: 'Понятные цены', kk: 'Түсінікті бағалар' } }],
      };
      fs.writeFileSync(file, JSON.stringify(next));
      fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
      expect((await t.inject({ method: 'GET', url: '/api/site-content' })).json()).toEqual(next);
    });

    it('keeps serving the last good content when the file is broken, and answers 503 when there never was one', async () => {
      fs.writeFileSync(file, '{"brand": {');
      fs.utimesSync(file, new Date(), new Date(Date.now() + 10_000));
      const kept = await t.inject({ method: 'GET', url: '/api/site-content' });
      expect(kept.statusCode).toBe(200);
      expect(kept.json().brand.name).toBe('Acme Trade');

      const fresh = await createTestApp(kind, { SITE_CONTENT_FILE: path.join(dir, 'missing.json') });
      try {
        const res = await fresh.inject({ method: 'GET', url: '/api/site-content' });
        expect(res.statusCode).toBe(503);
        expect(res.json().detail).toBe('Содержимое сайта временно недоступно');
      } finally {
        await fresh.close();
      }
    });

    it('refuses a file that does not match the schema (503 with a detail, never a 500)', async () => {
      fs.writeFileSync(path.join(dir, 'wrong.json'), JSON.stringify({ brand: { name: '' }, stats: { clients: -3 } }));
      const other = await createTestApp(kind, { SITE_CONTENT_FILE: path.join(dir, 'wrong.json') });
      try {
        const res = await other.inject({
          method: 'GET',
          url: '/api/site-content',
          headers: { 'accept-language': 'en' },
        });
        expect(res.statusCode).toBe(503);
        expect(res.json().detail).toBe('The site content is temporarily unavailable');
      } finally {
        await other.close();
      }
    });
  });

  describe('the figures computed from the running system', () => {
    let app: TradingTestApp;
    beforeAll(async () => {
      const rows = [];
      for (let s = 0; s <= 150; s += 1) {
        rows.push({ t: s * 1000, symbol: 'EURUSD', price: (1.1 + Math.min(s, 120) * 0.0001).toFixed(5) });
        rows.push({ t: s * 1000, symbol: 'BTCUSD', price: (50000 - s * 10).toFixed(2) });
      }
      app = await createTradingApp(kind, rows);
    });
    afterAll(async () => app.close());

    it('counts the catalogue, uses the default payout with no account, and has no settlement time before any trade', async () => {
      const res = await app.t.inject({ method: 'GET', url: '/api/site/facts' });
      expect(res.statusCode).toBe(200);
      const facts = res.json();
      expect(facts.asset_count).toBe(ASSETS.length);
      expect(facts.max_payout_percentage).toBe(DEFAULT_PAYOUT_PERCENTAGE);
      expect(facts.median_settlement_ms).toBeNull();
      expect(facts.settled_trades_measured).toBe(0);
      expect(facts.changes).toHaveLength(ASSETS.length);
    });

    it('reports the highest payout in force and the 24 h change; one settled trade is too few for a settlement figure', async () => {
      const client = await registerClient(app.t);
      await fund(app.t, client.accountId, 100_00);
      await app.t.db
        .updateTable('trading_accounts')
        .set({ payout_percentage: 92 })
        .where('id', '=', client.accountId)
        .execute();
      app.clock.set(T0 + 1000);
      await app.pump();
      const trade = await placeTrade(app.t, client.token, {
        asset: 'EURUSD',
        direction: 'call',
        amount: 10,
        duration: 5,
      });
      expect(trade.statusCode, trade.body).toBe(201);
      await app.settleAt(T0 + 8000); // expired at T0 + 6 s, settled at T0 + 8 s
      app.clock.set(T0 + 120_000);
      await app.pump();

      const facts = (await app.t.inject({ method: 'GET', url: '/api/site/facts' })).json();
      expect(facts.max_payout_percentage).toBe(92);
      expect(facts.settled_trades_measured).toBe(1);
      // Issue 15 defect 2: hidden (null) below SETTLEMENT_FIGURE_MIN_TRADES live-settled trades.
      expect(facts.median_settlement_ms).toBeNull();
      const eur = facts.changes.find((c: { symbol: string }) => c.symbol === 'EURUSD');
      const btc = facts.changes.find((c: { symbol: string }) => c.symbol === 'BTCUSD');
      // EURUSD rose from 1.10000 to 1.11200; BTCUSD fell from 50000 to 48800.
      expect(eur.change_percent).toBeCloseTo(1.09, 2);
      expect(btc.change_percent).toBeCloseTo(-2.4, 2);
      expect(new Date(eur.since).getTime()).toBe(T0);
      const never = facts.changes.find((c: { symbol: string }) => c.symbol === 'DAX');
      expect(never).toEqual({ symbol: 'DAX', change_percent: null, since: null });
    });

    it('measures the median settlement delay from the live worker only, not the backfilled demo history', async () => {
      const client = await registerClient(app.t, 'Second trader');
      await fund(app.t, client.accountId, 100_00);
      app.clock.set(T0 + 130_000);
      await app.pump();
      for (let i = 0; i < SETTLEMENT_FIGURE_MIN_TRADES; i++) {
        const trade = await placeTrade(app.t, client.token, {
          asset: 'EURUSD',
          direction: 'put',
          amount: 1,
          duration: 5,
        });
        expect(trade.statusCode, trade.body).toBe(201);
      }
      await app.settleAt(T0 + 137_000); // expired at T0 + 135 s, settled 2 s later
      // The demo seed's history: trades settled in one go long after they expired, marked backfilled.
      await sql`
        insert into trades (account_id, asset, direction, amount_cents, duration_seconds, payout_percentage, strike_price,
          strike_at, expires_at, status, close_price, close_at, profit_cents, settled_at, backfilled, created_at)
        select account_id, asset, direction, amount_cents, duration_seconds, payout_percentage, strike_price, strike_at,
          expires_at, status, close_price, close_at, profit_cents, expires_at + interval '50 minutes', true, created_at
        from trades cross join generate_series(1, 2) where settled_at is not null`.execute(app.t.db);
      const facts = (await app.t.inject({ method: 'GET', url: '/api/site/facts' })).json();
      expect(facts.settled_trades_measured).toBe(SETTLEMENT_FIGURE_MIN_TRADES + 1);
      expect(facts.median_settlement_ms).toBeGreaterThanOrEqual(0);
      expect(facts.median_settlement_ms).toBeLessThanOrEqual(2000);
    });
  });
});
