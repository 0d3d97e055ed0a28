import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dbKinds } from './helpers.js';
import {
  T0,
  balanceCents,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * Issue 20 finding 11: voiding an open trade took one person (and a losing trade could be voided a second before its
 * expiry). Now the void call records a request that a second staff member with finance.approve, not its requester,
 * confirms or rejects; a trade that settles first makes it lapse. Through the HTTP API, with a replayed feed and a
 * controlled clock; reconcile after every test.
 *
 * EURUSD, a tick every second: 1.10000 until 10 s, 1.09900 until 20 s, 1.09950 until 40 s, 1.09800 until 200 s,
 * then 1.10100.
 */
const price = (s: number) =>
  s < 10 ? '1.10000' : s < 20 ? '1.09900' : s < 40 ? '1.09950' : s < 200 ? '1.09800' : '1.10100';
const ROWS = Array.from({ length: 401 }, (_, s) => ({ t: s * 1000, symbol: 'EURUSD', price: price(s) }));

describe.each(dbKinds())('trade void requests on %s', (kind) => {
  let app: TradingTestApp;
  let client: TestClient;
  /** trading.manage and finance.approve: may ask, may not confirm their own. */
  let superadmin: { id: string; token: string };
  /** finance.approve: the second person. */
  let admin: { id: string; token: string };
  /** trading.manage and finance.view, the client's manager: may ask, may never confirm. */
  let manager: { id: string; token: string };
  /** finance.view, another manager: the client is out of scope. */
  let otherManager: { id: string; token: string };

  const at = (s: number) => T0 + s * 1000;
  const inject = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
    app.t.inject({ method, url, token, ...(payload === undefined ? {} : { payload }) });
  const askVoid = (tradeId: number, token: string, reason = 'Котировка поставщика была ошибочной') =>
    inject('POST', `/api/trading/admin/accounts/${client.accountId}/void-trade`, token, { trade_id: tradeId, reason });
  const confirm = (id: number, token: string) => inject('POST', `/api/void-requests/${id}/confirm`, token);
  const reject = (id: number, token: string, reason?: unknown) =>
    inject('POST', `/api/void-requests/${id}/reject`, token, reason === undefined ? {} : { reason });
  const list = (token: string, status = 'pending') => inject('GET', `/api/void-requests?status=${status}`, token);
  const tradeRow = (id: number) =>
    app.t.db.selectFrom('trades').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const settleEntries = (id: number) =>
    app.t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_cents', 'actor_id'])
      .where('reference', '=', `trade:${id}:settle`)
      .execute();

  async function openTrade(s: number, body: Record<string, unknown>): Promise<number> {
    app.clock.set(at(s));
    await app.pump();
    const res = await placeTrade(app.t, client.token, { asset: 'EURUSD', amount: 25, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().trade.id as number;
  }

  beforeAll(async () => {
    app = await createTradingApp(kind, ROWS);
    client = await registerClient(app.t, 'Void Client');
    await fund(app.t, client.accountId, 100_000);
    superadmin = await app.t.userWithToken('superadmin');
    admin = await app.t.userWithToken('admin');
    manager = await app.t.userWithToken('retention_manager');
    otherManager = await app.t.userWithToken('retention_manager');
    await app.t.db
      .updateTable('clients')
      .set({ assigned_manager: manager.id })
      .where('id', '=', client.clientId)
      .execute();
  });
  afterAll(() => app.close());
  afterEach(() => expectLedgerConsistent(app.t));

  it('a request for a trade that settles first lapses: settlement does not wait, confirm answers 409, nothing returns', async () => {
    const id = await openTrade(5, { direction: 'call', duration: 5 }); // strike 1.10000, closes at 1.09900: lost
    const asked = await askVoid(id, manager.token);
    expect(asked.statusCode, asked.body).toBe(202);
    const request = asked.json();
    const before = await balanceCents(app.t, client.accountId);

    const report = await app.settleAt(at(12));
    expect(report.settled.find((s) => s.id === id)).toMatchObject({ status: 'lost', creditCents: 0 });

    const late = await confirm(request.id, admin.token);
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().code).toBe('void_request_lapsed');
    expect(late.json().detail).toBe(
      'Сделка закрылась по экспирации раньше, чем аннулирование подтвердили: запрос больше не действует, ничего не возвращено',
    );
    expect((await reject(request.id, admin.token, 'поздно')).json().code).toBe('void_request_lapsed');
    expect((await tradeRow(id)).status).toBe('lost');
    expect(await balanceCents(app.t, client.accountId)).toBe(before);
    expect(await settleEntries(id)).toEqual([]);
    const lapsed = (await list(admin.token, 'lapsed')).json();
    expect(lapsed.items).toEqual([
      expect.objectContaining({ id: request.id, status: 'lapsed', trade_status: 'lost', decided_by: null }),
    ]);
    expect(await app.t.auditCount('trade.void_lapse')).toBe(1);
    expect(await app.t.auditCount('trade.void')).toBe(0);
  });

  it('one person cannot void alone: the call only asks; its requester cannot confirm, nor can a manager', async () => {
    const id = await openTrade(15, { direction: 'call', duration: 10 }); // strike 1.09900, closes at 1.09950: won
    const before = await balanceCents(app.t, client.accountId);

    const blank = await askVoid(id, superadmin.token, '   ');
    expect(blank.statusCode).toBe(400);
    expect(blank.json().detail).toContain('reason');

    const asked = await askVoid(id, superadmin.token);
    expect(asked.statusCode, asked.body).toBe(202);
    expect(asked.json()).toMatchObject({
      status: 'pending',
      trade_id: id,
      account_id: client.accountId,
      client_id: client.clientId,
      client_name: 'Void Client',
      asset: 'EURUSD',
      direction: 'call',
      amount: 25,
      trade_status: 'active',
      reason: 'Котировка поставщика была ошибочной',
      requested_by: superadmin.id,
      decided_by: null,
      ledger_entry_id: null,
    });
    const requestId = asked.json().id as number;
    // A second request for the same trade while one waits.
    const twice = await askVoid(id, manager.token, 'ещё раз');
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('void_request_pending');

    const own = await confirm(requestId, superadmin.token);
    expect(own.statusCode, own.body).toBe(409);
    expect(own.json().code).toBe('void_request_own');
    // A manager with trading.manage and finance.view has no finance.approve.
    expect((await confirm(requestId, manager.token)).statusCode).toBe(403);
    expect((await reject(requestId, manager.token, 'нет')).statusCode).toBe(403);

    expect((await tradeRow(id)).status).toBe('active');
    expect(await balanceCents(app.t, client.accountId)).toBe(before);
    expect(await settleEntries(id)).toEqual([]);
    expect(await app.t.auditCount('trade.void')).toBe(0);

    // The account detail (trading.manage) shows the waiting void with who asked and why.
    const detail = await inject('GET', `/api/trading/admin/accounts/${client.accountId}`, manager.token);
    expect(detail.json().pendingVoids).toEqual([
      expect.objectContaining({ id: requestId, trade_id: id, requested_by_name: expect.any(String) }),
    ]);
    // The list (finance.view) is scoped (D5): the client's manager sees it, another manager does not.
    expect((await list(manager.token)).json().items.map((r: { id: number }) => r.id)).toEqual([requestId]);
    const hidden = (await list(otherManager.token)).json();
    expect(hidden).toEqual({ items: [], total: 0, pending_count: 0 });
    expect((await confirm(requestId, otherManager.token)).statusCode).toBe(403);
  });

  it('a second person with finance.approve confirms: the trade is voided, the stake comes back exactly once', async () => {
    const [request] = (await list(admin.token)).json().items as { id: number; trade_id: number; reason: string }[];
    const id = request!.trade_id;
    const before = await balanceCents(app.t, client.accountId);
    const requestedBy = superadmin.id;

    const done = await confirm(request!.id, admin.token);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      status: 'confirmed',
      trade_status: 'voided',
      requested_by: requestedBy,
      decided_by: admin.id,
      ledger_entry_id: expect.any(Number),
    });
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 2500);
    const trade = await tradeRow(id);
    expect(trade).toMatchObject({ status: 'voided', void_reason: request!.reason, voided_by: requestedBy });
    // The ledger entry is the requester's void (their reason); the audit row names who confirmed it.
    expect(await settleEntries(id)).toEqual([
      { kind: 'trade_refund', amount_cents: expect.anything(), actor_id: requestedBy },
    ]);
    const audit = await app.t.auditRows('trade.void');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: admin.id, entity_id: String(id) });
    expect(audit[0]!.before).toMatchObject({ status: 'active', void_request_id: request!.id });
    expect(audit[0]!.after).toMatchObject({ status: 'voided', refunded: 25 });

    // Again (a retry after a lost answer): the same answer, nothing moves.
    const again = await confirm(request!.id, admin.token);
    expect(again.statusCode).toBe(200);
    expect(again.json().ledger_entry_id).toBe(done.json().ledger_entry_id);
    expect((await reject(request!.id, admin.token, 'передумал')).json().code).toBe('void_request_already_confirmed');
    expect((await askVoid(id, superadmin.token)).json().code).toBe('trade_not_active');

    // Its expiry passes: settlement leaves the voided trade alone (it would have won).
    const report = await app.settleAt(at(30));
    expect(report.settled.map((s) => s.id)).not.toContain(id);
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 2500);
    expect(await settleEntries(id)).toHaveLength(1);
    expect((await tradeRow(id)).status).toBe('voided');

    const detail = (await inject('GET', `/api/trading/admin/accounts/${client.accountId}`, superadmin.token)).json();
    expect(detail.pendingVoids).toEqual([]);
    expect(detail.tradeHistory.find((t: { id: number }) => t.id === id)).toMatchObject({
      status: 'voided',
      voided_by: requestedBy,
      void_confirmed_by_name: expect.stringContaining('admin'),
    });
  });

  it('a rejected void moves nothing and the trade settles at its expiry', async () => {
    const id = await openTrade(35, { direction: 'put', duration: 10 }); // strike 1.09950, closes at 1.09800: won
    const asked = await askVoid(id, manager.token, 'Клиент просит отменить');
    expect(asked.statusCode, asked.body).toBe(202);
    const requestId = asked.json().id as number;
    const before = await balanceCents(app.t, client.accountId);

    const noReason = await reject(requestId, admin.token);
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().detail).toContain('reason');
    const rejected = await reject(requestId, admin.token, 'Котировка была верной');
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({
      status: 'rejected',
      decided_by: admin.id,
      reject_reason: 'Котировка была верной',
      reason: 'Клиент просит отменить',
      trade_status: 'active',
    });
    expect((await confirm(requestId, superadmin.token)).json().code).toBe('void_request_already_rejected');
    expect(await app.t.auditCount('trade.void_reject')).toBe(1);

    const report = await app.settleAt(at(47));
    expect(report.settled.find((s) => s.id === id)).toMatchObject({ status: 'won' });
    expect(await balanceCents(app.t, client.accountId)).toBe(before + 2500 + 2125);
  });

  it('confirming while settlement runs: each trade is either voided or settled, never both, its stake back once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await openTrade(195, { direction: 'call', duration: 10 })); // win at 205 s
    const requests: number[] = [];
    for (const id of ids) requests.push((await askVoid(id, manager.token)).json().id as number);
    const before = await balanceCents(app.t, client.accountId);

    app.clock.set(at(207));
    await app.pump();
    const [report, ...answers] = await Promise.all([
      app.t.app.engine.settleDueTrades({ now: new Date(at(207)) }),
      ...requests.map((r) => confirm(r, admin.token)),
    ]);
    let expected = before;
    for (const [i, id] of ids.entries()) {
      const trade = await tradeRow(id);
      const entries = await settleEntries(id);
      expect(entries).toHaveLength(1);
      const settled = report.settled.some((s) => s.id === id);
      if (trade.status === 'voided') {
        expect(settled).toBe(false);
        expect(answers[i]!.statusCode).toBe(200);
        expect(entries[0]!.kind).toBe('trade_refund');
        expected += 2500;
      } else {
        expect(trade.status).toBe('won');
        expect(settled).toBe(true);
        expect(answers[i]!.statusCode).toBe(409);
        expect(answers[i]!.json().code).toBe('void_request_lapsed');
        expect(entries[0]!.kind).toBe('trade_payout');
        expected += 2500 + 2125;
      }
    }
    expect(await balanceCents(app.t, client.accountId)).toBe(expected);
    // Nothing is left pending: every request was confirmed or lapsed.
    expect((await list(admin.token)).json().pending_count).toBe(0);
  });

  it("a request not confirmed by its trade's expiry lapses: nobody undoes a trade whose outcome is known", async () => {
    const id = await openTrade(300, { direction: 'call', duration: 10 }); // expires at 310 s
    const requestId = (await askVoid(id, manager.token)).json().id as number;
    // Past the expiry, before any settlement run: the price at expiry already decides it (D1).
    app.clock.set(at(311));
    const late = await confirm(requestId, admin.token);
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('void_request_lapsed');
    expect((await tradeRow(id)).status).toBe('active');
    expect(await settleEntries(id)).toHaveLength(0);
    expect((await list(admin.token)).json().pending_count).toBe(0);
  });
});
