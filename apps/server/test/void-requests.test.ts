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

    // Who may confirm is the server's answer on each row (D20): not its requester, and finance.approve.
    expect(asked.json()).toMatchObject({ can_confirm: false, confirm_blocked: 'void_request_own' });
    const rowFor = async (token: string) =>
      ((await list(token, 'pending')).json().items as { id: number }[]).find((i) => i.id === requestId);
    expect(await rowFor(admin.token)).toMatchObject({ can_confirm: true, confirm_blocked: null });
    expect(await rowFor(manager.token)).toMatchObject({ can_confirm: false, confirm_blocked: 'forbidden' });

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
    // A trade whose request a confirmation held locked was skipped by that run (settlement does not wait for a lock);
    // the confirmation then found it expired (lapsed), so the next run settles it.
    const next = await app.t.app.engine.settleDueTrades({ now: new Date(at(207)) });
    let expected = before;
    for (const [i, id] of ids.entries()) {
      const trade = await tradeRow(id);
      const entries = await settleEntries(id);
      expect(entries).toHaveLength(1);
      const settled = [...report.settled, ...next.settled].some((s) => s.id === id);
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

  it('reading the list writes nothing: a request whose trade expired reads as lapsed while its row stays as it was', async () => {
    const id = await openTrade(320, { direction: 'call', duration: 10 }); // expires at 330 s
    const requestId = (await askVoid(id, manager.token)).json().id as number;
    const requestRow = () =>
      app.t.db.selectFrom('trade_void_requests').selectAll().where('id', '=', requestId).executeTakeFirstOrThrow();
    const auditRows = () =>
      app.t.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
    expect((await list(admin.token)).json().items.map((r: { id: number }) => r.id)).toEqual([requestId]);

    // Past the expiry, before any settlement run: nobody decided, yet the request no longer waits.
    app.clock.set(at(331));
    const stored = await requestRow();
    const audited = await auditRows();
    const pending = (await list(admin.token)).json();
    expect(pending.items.map((r: { id: number }) => r.id)).not.toContain(requestId);
    expect(pending.pending_count).toBe(0);
    const lapsed = (await list(manager.token, 'lapsed')).json();
    expect(lapsed.items.find((r: { id: number }) => r.id === requestId)).toMatchObject({
      status: 'lapsed',
      trade_status: 'active',
      decided_by: null,
      decided_at: new Date(at(330)).toISOString(),
      account_id: client.accountId,
    });
    expect(
      (await inject('GET', `/api/trading/admin/accounts/${client.accountId}`, manager.token)).json().pendingVoids,
    ).toEqual([]);
    // The GETs changed no row and wrote no audit row.
    expect(await requestRow()).toEqual(stored);
    expect(stored.status).toBe('pending');
    expect(await auditRows()).toEqual(audited);

    // A decision that meets it stores the lapse (one audit row) and the request reads the same as before.
    const lapses = await app.t.auditCount('trade.void_lapse');
    expect((await reject(requestId, admin.token, 'поздно')).json().code).toBe('void_request_lapsed');
    expect((await requestRow()).status).toBe('lapsed');
    expect(await app.t.auditCount('trade.void_lapse')).toBe(lapses + 1);
    const after = (await list(manager.token, 'lapsed')).json();
    const sameButAge = (r: { id: number; age_seconds: number }) => ({ ...r, age_seconds: 0 });
    expect(sameButAge(after.items.find((r: { id: number }) => r.id === requestId))).toEqual(
      sameButAge(lapsed.items.find((r: { id: number }) => r.id === requestId)),
    );
    await app.settleAt(at(332));
  });

  it('a trade past its expiry, not yet settled, cannot be asked to be voided: 409 with a clear detail', async () => {
    const id = await openTrade(335, { direction: 'put', duration: 5 }); // expires at 340 s
    app.clock.set(at(341));
    const before = await app.t.auditCount('trade.void_request');
    const late = await askVoid(id, manager.token);
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json()).toMatchObject({
      code: 'void_trade_expired',
      detail: 'Срок сделки уже истек: ее исход определен котировкой на момент экспирации, аннулировать ее нельзя',
    });
    expect((await tradeRow(id)).status).toBe('active');
    expect(await app.t.auditCount('trade.void_request')).toBe(before);
    const rows = await app.t.db.selectFrom('trade_void_requests').select('id').where('trade_id', '=', id).execute();
    expect(rows).toEqual([]);
    await app.settleAt(at(342));
  });

  it('its requester withdraws a waiting request: nothing moves, no one else may, and the trade can be asked again', async () => {
    const id = await openTrade(345, { direction: 'call', duration: 10 }); // expires at 355 s
    const before = await balanceCents(app.t, client.accountId);
    const requestId = (await askVoid(id, manager.token)).json().id as number;
    const withdraw = (rid: number, token: string) => inject('POST', `/api/void-requests/${rid}/withdraw`, token);

    // The admin has no trading.manage; the superadmin has it but did not ask; another manager does not see it.
    expect((await withdraw(requestId, admin.token)).statusCode).toBe(403);
    const notOwn = await withdraw(requestId, superadmin.token);
    expect(notOwn.statusCode).toBe(403);
    expect(notOwn.json().code).toBe('void_request_withdraw_not_own');
    expect((await withdraw(requestId, otherManager.token)).statusCode).toBe(404);

    const done = await withdraw(requestId, manager.token);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      id: requestId,
      status: 'withdrawn',
      trade_status: 'active',
      decided_by: manager.id,
      ledger_entry_id: null,
    });
    const audit = await app.t.auditRows('trade.void_withdraw');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: manager.id, entity_id: String(id) });
    expect(audit[0]!.after).toMatchObject({ status: 'withdrawn' });

    const again = await withdraw(requestId, manager.token);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('void_request_withdrawn');
    expect((await confirm(requestId, admin.token)).json().code).toBe('void_request_withdrawn');
    expect((await reject(requestId, admin.token, 'нет')).json().code).toBe('void_request_withdrawn');
    expect((await list(admin.token)).json().items.map((r: { id: number }) => r.id)).not.toContain(requestId);
    expect((await list(admin.token, 'withdrawn')).json().items).toEqual([
      expect.objectContaining({ id: requestId, status: 'withdrawn' }),
    ]);
    expect((await tradeRow(id)).status).toBe('active');
    expect(await balanceCents(app.t, client.accountId)).toBe(before);

    // The trade may be asked for again; a withdrawal after its expiry finds the request lapsed.
    const second = await askVoid(id, manager.token, 'Снова: котировка была ошибочной');
    expect(second.statusCode, second.body).toBe(202);
    app.clock.set(at(356));
    const late = await withdraw(second.json().id as number, manager.token);
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('void_request_lapsed');
    await app.settleAt(at(357));
  });

  it('asking for a void honours Idempotency-Key: a retry answers the first request, another body is refused', async () => {
    const id = await openTrade(360, { direction: 'call', duration: 10 });
    const ask = (key: string, reason: string) =>
      app.t.inject({
        method: 'POST',
        url: `/api/trading/admin/accounts/${client.accountId}/void-trade`,
        token: manager.token,
        headers: { 'idempotency-key': key },
        payload: { trade_id: id, reason },
      });
    const before = await app.t.auditCount('trade.void_request');
    const first = await ask('void-retry-1', 'Ошибочная котировка');
    expect(first.statusCode, first.body).toBe(202);
    const retry = await ask('void-retry-1', 'Ошибочная котировка');
    expect(retry.statusCode, retry.body).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().id).toBe(first.json().id);
    const reused = await ask('void-retry-1', 'Другая причина');
    expect(reused.statusCode).toBe(409);
    expect(reused.json().code).toBe('idempotency_key_reused');
    // Without the key, a second ask is the second request it is: refused while the first waits.
    expect((await askVoid(id, manager.token)).json().code).toBe('void_request_pending');
    const rows = await app.t.db.selectFrom('trade_void_requests').select('id').where('trade_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    expect(await app.t.auditCount('trade.void_request')).toBe(before + 1);
    await app.settleAt(at(372));
  });
});
