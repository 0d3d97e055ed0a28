import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TradeProof } from '@brokerage/shared';
import { expect } from 'vitest';
import { createTestApp, type DbKind, type TestApp } from './helpers.js';
import { T0, fund, placeTrade, registerClient, voidTradeByTwo, type TestClient } from './trading-helpers.js';

/**
 * The trades of every result on one replayed EURUSD feed, with a controlled clock, for the price log's proof and
 * command-line tests (issue 30). One tick a second, the price rising by 0.00010 a tick from 1.08000, except tick 25
 * (the price of tick 20: a tie) and a gap from 55 s to 89 s (the gap rule). Heads are published by the feed itself
 * (at most one a second of its clock, after a write), so every settlement happens under D27's gate.
 *
 *   won     call opened at 10.5 s for 5 s  (strike tick 10, close tick 15: higher)
 *   lost    put  opened at 10.5 s for 5 s  (the same ticks)
 *   tie     call opened at 20.5 s for 5 s  (close tick 25 = tick 20)
 *   void    call opened at 30.5 s for 300 s, voided by two staff at 40 s
 *   noPrice call opened at 54.5 s for 10 s (expiry 64.5 s; the last tick, 54 s, is 10.5 s older: no_price)
 *   active  call opened at 100.5 s for 300 s, never settled
 */
export const PRICE = (i: number) => (1.08 + (i === 25 ? 20 : i) * 0.0001).toFixed(5);
const TICKS = [...Array.from({ length: 55 }, (_, i) => i), ...Array.from({ length: 111 }, (_, i) => 90 + i)];

export type ScenarioTrade = 'won' | 'lost' | 'tie' | 'void' | 'noPrice' | 'active';

export interface Scenario {
  t: TestApp;
  kind: DbKind;
  clock: { now(): number; set(ms: number): void };
  alice: TestClient;
  bob: TestClient;
  /** The staff who voided (trading.manage) and confirmed (finance.approve); both see every client. */
  boss: string;
  admin: string;
  trades: Record<ScenarioTrade, number>;
  /** The server's price log key, PKCS#8 PEM (PRICE_LOG_KEY). */
  keyPem: string;
  /** The replay file's directory (removed by close). */
  dir: string;
  close(): Promise<void>;
}

export function newEd25519Pem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Builds the scenario. `dataDir`: a file-backed embedded database (the command line can open it after the app is
 * closed: runAdminCommand).
 */
export async function buildScenario(kind: DbKind, options: { dataDir?: string } = {}): Promise<Scenario> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'price-log-'));
  const file = path.join(dir, 'ticks.csv');
  fs.writeFileSync(file, ['t_ms,symbol,price', ...TICKS.map((i) => `${i * 1000},EURUSD,${PRICE(i)}`)].join('\n'));
  const keyPem = newEd25519Pem();
  const t = await createTestApp(
    kind,
    {
      PRICE_SOURCE: `replay:${file}`,
      TRADE_DURATIONS: '5,10,300',
      LOGIN_RATE_PER_MINUTE: '100000',
      PRICE_LOG_KEY: keyPem,
    },
    options.dataDir ? { dataDir: options.dataDir } : {},
  );
  let now = T0;
  t.app.engine.useClock(() => new Date(now));
  await t.app.engine.startPriceFeed({ timers: false });
  const clock = { now: () => now, set: (ms: number) => void (now = ms) };
  const at = async (s: number) => {
    clock.set(T0 + s * 1000);
    await t.app.engine.prices.pump();
  };
  const settleAt = async (s: number) => {
    await at(s);
    return t.app.engine.settleDueTrades({ now: new Date(clock.now()) });
  };

  const alice = await registerClient(t, 'Alice');
  const bob = await registerClient(t, 'Bob');
  await fund(t, alice.accountId, 100_000);
  await fund(t, bob.accountId, 100_000);
  const boss = (await t.userWithToken('superadmin')).token;
  const admin = (await t.userWithToken('admin')).token;

  const place = async (direction: 'call' | 'put', duration: number, amount = 20): Promise<number> => {
    const res = await placeTrade(t, alice.token, { asset: 'EURUSD', direction, amount, duration });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().trade.id as number;
  };

  await at(10.5);
  const won = await place('call', 5, 25);
  const lost = await place('put', 5, 10);
  await settleAt(16.5);
  await at(20.5);
  const tie = await place('call', 5);
  await settleAt(26.5);
  await at(30.5);
  const voided = await place('call', 300, 15);
  await at(35);
  await at(40);
  await voidTradeByTwo(t, alice.accountId, voided, 'Client complaint: test', boss, admin);
  await at(54.5);
  const noPrice = await place('call', 10);
  await settleAt(70);
  await settleAt(91);
  await at(100.5);
  const active = await place('call', 300);
  await at(102);

  const statuses = await t.db
    .selectFrom('trades')
    .select(['id', 'status'])
    .where('id', 'in', [won, lost, tie, voided, noPrice, active])
    .execute();
  const byId = new Map(statuses.map((r) => [Number(r.id), r.status]));
  expect([won, lost, tie, voided, noPrice, active].map((id) => byId.get(id))).toEqual([
    'won',
    'lost',
    'tie',
    'voided',
    'no_price',
    'active',
  ]);

  const scenario: Scenario = {
    t,
    kind,
    clock,
    alice,
    bob,
    boss,
    admin,
    trades: { won, lost, tie, void: voided, noPrice, active },
    keyPem,
    dir,
    async close() {
      // The app of the moment: a command-line run on the embedded database replaces it (runAdminCommand).
      await scenario.t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return scenario;
}

/** GET a trade's proof as its client; asserts the download's headers. */
export async function clientProof(s: Scenario, id: number): Promise<TradeProof> {
  const res = await s.t.inject({ method: 'GET', url: `/api/trading/trades/${id}/proof`, token: s.alice.token });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-disposition']).toBe(`attachment; filename="trade-${id}-proof.json"`);
  return res.json<TradeProof>();
}
