import { API_ROUTES, wsClientMessageSchema } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { connectLive, type LiveClient } from './live-helpers.js';
import {
  T0,
  balanceCents,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * decisions.md D1: nobody chooses a trade's outcome. No route, request field, setting or column exists through which
 * anyone could: no force-result mode, no profit switch, no win probability, no close-as-win button.
 */
const CHOOSES_OUTCOME = /force|result|outcome|profit_enabled|probab|(^|[^a-z])win(s|ner|ning)?([^a-z]|$)|close_as/i;

function propertyNames(schema: unknown, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Record<string, unknown>;
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, child] of Object.entries(s.properties as Record<string, unknown>)) {
      out.push(name);
      propertyNames(child, out);
    }
  }
  for (const key of ['items', 'additionalProperties']) propertyNames(s[key], out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const child of (s[key] as unknown[] | undefined) ?? []) propertyNames(child, out);
  return out;
}

describe('the pattern itself', () => {
  it('catches the names the original brief had and lets ordinary ones through', () => {
    for (const bad of [
      'force_result_mode',
      'profit_enabled',
      'win_probability',
      'close-as-win',
      'result',
      'outcome',
      'win',
      'winner',
    ])
      expect(bad).toMatch(CHOOSES_OUTCOME);
    for (const fine of [
      'window',
      'payout_percentage',
      'profit_loss',
      'status',
      'close_price',
      'trading_enabled',
      'twin',
    ])
      expect(fine).not.toMatch(CHOOSES_OUTCOME);
  });
});

describe.each(dbKinds())('no way to choose an outcome on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('has no such route in the route registry', () => {
    const offending = Object.keys(API_ROUTES).filter((key) =>
      key.split(/[ /]/).some((segment) => CHOOSES_OUTCOME.test(segment)),
    );
    expect(offending).toEqual([]);
  });

  it('has no such path, parameter or request field in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string }[]; requestBody?: { content: Record<string, { schema: unknown }> } }
        >
      >;
    };
    const found: string[] = [];
    // Every route that can take a body is in the document, so no request field escapes the walk (a GET-only
    // route such as a WebSocket upgrade may be left out of it; its path is checked with the registry above).
    const undocumented = Object.keys(API_ROUTES).filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return !doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    });
    expect(undocumented.filter((key) => !key.startsWith('GET '))).toEqual([]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.split('/').some((segment) => CHOOSES_OUTCOME.test(segment))) found.push(path);
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? [])
          if (CHOOSES_OUTCOME.test(p.name)) found.push(`${method} ${path} ?${p.name}`);
        for (const media of Object.values(op.requestBody?.content ?? {})) {
          for (const name of propertyNames(media.schema))
            if (CHOOSES_OUTCOME.test(name)) found.push(`${method} ${path} body.${name}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('has no such setting', () => {
    const keys = Object.keys(loadConfig({ DATA_DIR: '/nonexistent' }));
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => CHOOSES_OUTCOME.test(k))).toEqual([]);
  });

  it('has no such column in the database', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns where table_schema = 'public'`.execute(t.db);
    expect(rows.length).toBeGreaterThan(50);
    expect(
      rows.filter((r) => CHOOSES_OUTCOME.test(r.column_name)).map((r) => `${r.table_name}.${r.column_name}`),
    ).toEqual([]);
  });

  it('refuses such fields where a client or staff member might try them, and has no call that writes a balance', async () => {
    const client = await registerClient(t);
    const staff = await t.userWithToken('superadmin');
    const tries = [
      {
        token: client.token,
        method: 'POST' as const,
        url: '/api/trading/place-trade',
        payload: { direction: 'call', amount: 1, duration: 300, asset: 'EURUSD', force_result: 'win' },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { profit_enabled: false },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { force_result_mode: 'lose' },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { win_probability: 0.1 },
      },
    ];
    for (const { token, ...req } of tries) {
      const res = await t.inject({ ...req, token });
      expect(res.statusCode, `${req.url} ${JSON.stringify(req.payload)}`).toBe(400);
    }
    for (const [method, url] of [
      ['PUT', '/api/trading/balance'],
      ['POST', '/api/trading/save-completed-trade'],
      ['POST', `/api/trading/admin/accounts/${client.accountId}/close-trade`],
    ] as const) {
      const res = await t.inject({ method, url, token: method === 'PUT' ? client.token : staff.token, payload: {} });
      expect(res.statusCode, url).toBe(404);
    }
  });
});

/**
 * The WebSocket (decisions.md D11) is the other way in: a client may only send the messages of
 * wsClientMessageSchema (packages/shared/src/live.ts). None names a trade, a result, a price or a balance, and whatever
 * a client or staff socket sends, an open trade is left to the price at its expiry.
 */
describe.each(dbKinds())('no socket message decides a trade on %s', (kind) => {
  let app: TradingTestApp;
  let base: string;
  const sockets: LiveClient[] = [];

  beforeAll(async () => {
    // EURUSD falls at 5 s: a call opened before that is lost, whatever anyone says.
    app = await createTradingApp(kind, [
      { t: 0, symbol: 'EURUSD', price: '1.10000' },
      { t: 5000, symbol: 'EURUSD', price: '1.09000' },
    ]);
    await app.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.t.app.server.address() as { port: number };
    base = `ws://127.0.0.1:${port}/api/ws`;
    app.clock.set(T0 + 100);
    await app.pump();
  });
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.close();
    await app.close();
  });

  it('accepts only messages about prices, pings, resuming and watching an account: none names a trade, result or balance', () => {
    const options = wsClientMessageSchema.options;
    expect(options.map((o) => o.shape.type.value).sort()).toEqual([
      'ping',
      'resume',
      'subscribe',
      'unsubscribe',
      'unwatch_account',
      'watch_account',
    ]);
    const fields = [...new Set(options.flatMap((o) => Object.keys(o.shape)))].sort();
    // resume's streams and watch_account's seq: the last sequence a socket saw of each stream (issue 21 §7).
    expect(fields).toEqual(['account_id', 'assets', 'seq', 'streams', 'type']);
    for (const name of [...fields, ...options.map((o) => o.shape.type.value)]) {
      expect(name).not.toMatch(CHOOSES_OUTCOME);
      expect(name).not.toMatch(/trade|settle|close|void|balance|price|amount|status|profit/i);
    }
  });

  it('leaves an open trade to the price whatever a client or staff socket sends', async () => {
    const client = await registerClient(app.t);
    await fund(app.t, client.accountId, 10_000);
    const placed = await placeTrade(app.t, client.token, {
      direction: 'call',
      amount: 10,
      duration: 5,
      asset: 'EURUSD',
    });
    expect(placed.statusCode).toBe(201);
    const tradeId = placed.json().trade.id as number;
    const balanceBefore = await balanceCents(app.t, client.accountId);
    const entriesBefore = await ledgerCount(app.t, client.accountId);

    const staff = await app.t.userWithToken('superadmin');
    const clientSocket = await connectLive(`${base}?token=${client.token}`);
    const staffSocket = await connectLive(`${base}?token=${staff.token}`);
    sockets.push(clientSocket, staffSocket);
    // The staff socket watches the account (the one staff message there is): it hears the trade's events too.
    staffSocket.send({ type: 'watch_account', account_id: client.accountId });
    await staffSocket.next((f) => f.type === 'watching', 5000, 'watching');

    const forged: unknown[] = [
      { type: 'close_trade', trade_id: tradeId },
      { type: 'settle', trade_id: tradeId, result: 'won' },
      { type: 'void_trade', trade_id: tradeId, reason: 'x' },
      { type: 'trade.settled', payload: { trade: { id: tradeId, status: 'won', close_price: 2 } } },
      { type: 'balance.changed', payload: { balance: 1_000_000 } },
      { type: 'tick', symbol: 'EURUSD', price: 2, at: new Date(T0 + 200).toISOString() },
      { type: 'place_trade', direction: 'call', amount: 10, duration: 5, asset: 'EURUSD' },
      { type: 'subscribe', assets: ['EURUSD'], force_result: 'win' },
      { type: 'subscribe', assets: ['EURUSD'], trade_id: tradeId, status: 'won' },
      { type: 'ping', outcome: 'won' },
      { type: 'watch_account', account_id: client.accountId, result: 'won' },
      { type: 'unwatch_account', account_id: client.accountId, close_price: 2 },
    ];
    for (const socket of [clientSocket, staffSocket]) {
      for (const message of forged) socket.send(message);
      // The allowed messages too, each with its ordinary answer or none.
      socket.send({ type: 'subscribe', assets: ['EURUSD'] });
      socket.send({ type: 'unsubscribe', assets: ['EURUSD'] });
      // Messages are handled in order: the pong comes after every answer above.
      socket.send({ type: 'ping' });
      await socket.next((f) => f.type === 'pong', 5000, 'pong');
      const errors = socket.frames.filter((f) => f.type === 'error');
      expect(errors.map((f) => f.detail)).toEqual(forged.map(() => 'bad_message'));
    }
    // A client may not watch accounts at all.
    clientSocket.send({ type: 'watch_account', account_id: client.accountId });
    await clientSocket.next((f) => f.type === 'error' && f.detail === 'forbidden', 5000, 'forbidden');

    // Nothing changed: the trade is open, the balance and the ledger as they were, the price still the server's.
    const open = await app.t.db.selectFrom('trades').selectAll().where('id', '=', tradeId).executeTakeFirstOrThrow();
    expect([open.status, open.close_price, open.settled_at]).toEqual(['active', null, null]);
    expect(await balanceCents(app.t, client.accountId)).toBe(balanceBefore);
    expect(await ledgerCount(app.t, client.accountId)).toBe(entriesBefore);
    const prices = (await app.t.inject({ method: 'GET', url: '/api/prices' })).json() as {
      symbol: string;
      price: number;
    }[];
    expect(prices.find((p) => p.symbol === 'EURUSD')?.price).toBe(1.1);
    expect([...clientSocket.frames, ...staffSocket.frames].some((f) => f.type === 'trade.settled')).toBe(false);

    // At expiry the price decides: it fell, so the call is lost, and both sockets are told so.
    const report = await app.settleAt(T0 + 7000);
    expect(report.settled.map((s) => [s.id, s.status])).toEqual([[tradeId, 'lost']]);
    for (const socket of [clientSocket, staffSocket]) {
      const settled = await socket.next((f) => f.type === 'trade.settled', 5000, 'trade.settled');
      expect((settled.payload as { trade: { id: number; status: string; close_price: number } }).trade).toMatchObject({
        id: tradeId,
        status: 'lost',
        close_price: 1.09,
      });
    }
    expect(await balanceCents(app.t, client.accountId)).toBe(balanceBefore);
    await expectLedgerConsistent(app.t);
  });
});

async function ledgerCount(t: TestApp, accountId: number): Promise<number> {
  const { n } = await t.db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}
