import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, fund, registerClient, type TestClient } from './trading-helpers.js';

/**
 * Maker-checker for manual money (issue 13 item 3, decisions.md D20): a staff balance change that raises a balance,
 * and the crediting of a CRM deposit, above MANUAL_CREDIT_SECOND_APPROVAL wait for a second staff member with
 * finance.approve who is not their author. Reconcile passes after every test.
 */
describe.each(dbKinds())('manual credits on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };
  let admin: { id: string; token: string };
  let admin2: { id: string; token: string };
  let retention: { id: string; token: string };
  /** trading.manage without finance.approve: makes balance changes, cannot confirm them. */
  let lead: { id: string; token: string };

  const balanceChange = (accountId: number, body: Record<string, unknown>, token: string, key?: string) =>
    t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${accountId}/balance`,
      token,
      payload: body,
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  /** Issue 20 finding 2: the confirmer names the amount they saw. */
  const confirm = (id: number, token: string, amount: number) =>
    t.inject({ method: 'POST', url: `/api/manual-credits/${id}/confirm`, token, payload: { amount } });
  const cancel = (id: number, token: string, reason: unknown) =>
    t.inject({ method: 'POST', url: `/api/manual-credits/${id}/cancel`, token, payload: { reason } });
  const pending = (token: string, query = '') =>
    t.inject({ method: 'GET', url: `/api/manual-credits?status=pending${query}`, token });
  const deposit = (clientId: number, amount: number, token = superadmin.token) =>
    t.inject({ method: 'POST', url: '/api/deposits', token, payload: { client_id: clientId, amount } });
  const ledger = (accountId: number) =>
    t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_cents', 'reference', 'actor_id'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
  const client = (id: number) =>
    t.db
      .selectFrom('clients')
      .select(['ftd', 'total_deposits_cents', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  async function trader(name: string, manager: string | null = null): Promise<TestClient> {
    const c = await registerClient(t, name);
    if (manager)
      await t.db.updateTable('clients').set({ assigned_manager: manager }).where('id', '=', c.clientId).execute();
    return c;
  }

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000', MANUAL_CREDIT_SECOND_APPROVAL: '1000' });
    superadmin = await t.userWithToken('superadmin');
    admin = await t.userWithToken('admin');
    admin2 = await t.userWithToken('admin');
    retention = await t.userWithToken('retention_manager');
    lead = await t.userWithToken('team_lead_retention');
  });
  afterAll(() => t.close());
  afterEach(() => expectLedgerConsistent(t));

  it("a 5,000.00 credit by a superadmin waits; its author cannot confirm; an admin's confirmation credits it once", async () => {
    const c = await trader('Credit Waiter');
    const res = await balanceChange(
      c.accountId,
      { action: 'add', amount: 5000, reason: 'Бонус VIP' },
      superadmin.token,
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ status: 'awaiting_confirmation', credit_id: expect.any(Number), amount: 5000 });
    const creditId = res.json().credit_id as number;
    expect(await balanceCents(t, c.accountId)).toBe(0);
    expect(await ledger(c.accountId)).toEqual([]);

    const list = await pending(admin.token, `&client_id=${c.clientId}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items).toEqual([
      expect.objectContaining({
        id: creditId,
        kind: 'balance_change',
        status: 'pending',
        client_id: c.clientId,
        client_name: 'Credit Waiter',
        account_id: c.accountId,
        amount: 5000,
        requested_action: 'add',
        requested_amount: 5000,
        reason: 'Бонус VIP',
        created_by: superadmin.id,
        age_seconds: expect.any(Number),
      }),
    ]);
    expect(list.json().pending_count).toBeGreaterThanOrEqual(1);
    // The account detail shows it waiting.
    const detail = await t.inject({
      method: 'GET',
      url: `/api/trading/admin/accounts/${c.accountId}`,
      token: lead.token,
    });
    expect(detail.json().pendingCredits.map((p: { id: number }) => p.id)).toEqual([creditId]);
    expect(detail.json().account.balance).toBe(0);
    // Who may be the second person is the server's answer on each row (D20): not its author, and finance.approve.
    const rowFor = async (token: string) =>
      ((await pending(token, `&client_id=${c.clientId}`)).json().items as { id: number }[]).find(
        (i) => i.id === creditId,
      );
    expect(await rowFor(superadmin.token)).toMatchObject({ can_confirm: false, confirm_blocked: 'manual_credit_own' });
    expect(await rowFor(admin.token)).toMatchObject({ can_confirm: true, confirm_blocked: null });
    expect(await rowFor(lead.token)).toMatchObject({ can_confirm: false, confirm_blocked: 'forbidden' });
    expect(detail.json().pendingCredits[0]).toMatchObject({ can_confirm: false, confirm_blocked: 'forbidden' });

    const own = await confirm(creditId, superadmin.token, 5000);
    expect(own.statusCode).toBe(409);
    expect(own.json().code).toBe('manual_credit_own');
    expect(await balanceCents(t, c.accountId)).toBe(0);

    // finance.view lists, finance.approve confirms.
    expect((await confirm(creditId, retention.token, 5000)).statusCode).toBe(403);

    const ok = await confirm(creditId, admin.token, 5000);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ id: creditId, status: 'confirmed', decided_by: admin.id });
    expect(await balanceCents(t, c.accountId)).toBe(500_000);
    const entries = await ledger(c.accountId);
    expect(entries).toEqual([
      {
        kind: 'adjustment',
        amount_cents: expect.anything(),
        reference: `manual-credit:${creditId}`,
        actor_id: superadmin.id,
      },
    ]);
    expect(Number(entries[0]!.amount_cents)).toBe(500_000);
    expect(ok.json().ledger_entry_id).toEqual(expect.any(Number));

    // A repeated confirmation (the same admin, or another) answers the confirmed state and moves nothing.
    for (const token of [admin.token, admin2.token]) {
      const again = await confirm(creditId, token, 5000);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ status: 'confirmed', decided_by: admin.id });
    }
    expect(await balanceCents(t, c.accountId)).toBe(500_000);
    expect(await ledger(c.accountId)).toHaveLength(1);
    expect((await t.auditRows('manual_credit.confirm')).filter((r) => r.entity_id === String(creditId))).toHaveLength(
      1,
    );
    const requested = (await t.auditRows('manual_credit.request')).find((r) => r.entity_id === String(creditId));
    expect(requested).toMatchObject({ actor_id: superadmin.id, after: expect.objectContaining({ amount: 5000 }) });
    expect((await pending(admin.token, `&client_id=${c.clientId}`)).json().items).toEqual([]);
    expect((await confirm(creditId, superadmin.token, 5000)).statusCode).toBe(409);
  });

  it('a set above the balance waits as the difference; lowering, small raises and subtracting move at once', async () => {
    const c = await trader('Setter');
    await fund(t, c.accountId, 200_000);
    const set = await balanceChange(c.accountId, { action: 'set', amount: 5000, reason: 'Коррекция' }, lead.token);
    expect(set.statusCode, set.body).toBe(202);
    expect(set.json()).toMatchObject({ status: 'awaiting_confirmation', amount: 3000 });
    expect(await balanceCents(t, c.accountId)).toBe(200_000);

    const small = await balanceChange(c.accountId, { action: 'add', amount: 1000, reason: 'Бонус' }, lead.token);
    expect(small.statusCode, small.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(300_000);
    const down = await balanceChange(c.accountId, { action: 'subtract', amount: 2500, reason: 'Списание' }, lead.token);
    expect(down.statusCode, down.body).toBe(200);
    const lower = await balanceChange(c.accountId, { action: 'set', amount: 10, reason: 'Списание' }, lead.token);
    expect(lower.statusCode, lower.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(1000);

    // The difference measured when asked is what is posted.
    const ok = await confirm(set.json().credit_id, admin.token, 3000);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(301_000);
  });

  it('keeps the Idempotency-Key behaviour: a retry answers the same 202 and records one credit', async () => {
    const c = await trader('Retry');
    const body = { action: 'add', amount: 2500, reason: 'Повтор' };
    const first = await balanceChange(c.accountId, body, lead.token, 'credit-key-1');
    const second = await balanceChange(c.accountId, body, lead.token, 'credit-key-1');
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    const rows = await t.db.selectFrom('manual_credits').select('id').where('account_id', '=', c.accountId).execute();
    expect(rows).toHaveLength(1);
    const other = await balanceChange(c.accountId, { ...body, amount: 2600 }, lead.token, 'credit-key-1');
    expect(other.statusCode).toBe(409);
  });

  it('cancel drops a credit with a reason: nothing moves, and it cannot be confirmed afterwards', async () => {
    const c = await trader('Cancelled');
    const res = await balanceChange(c.accountId, { action: 'add', amount: 4000, reason: 'Ошибка' }, lead.token);
    const id = res.json().credit_id as number;
    const noReason = await cancel(id, admin2.token, '  ');
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().detail).toBeTruthy();
    const done = await cancel(id, admin2.token, 'Не согласовано');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'cancelled', cancel_reason: 'Не согласовано', decided_by: admin2.id });
    expect((await confirm(id, admin.token, 4000)).json().code).toBe('manual_credit_already_cancelled');
    expect((await cancel(id, superadmin.token, 'again')).statusCode).toBe(409);
    expect(await balanceCents(t, c.accountId)).toBe(0);
    expect((await t.auditRows('manual_credit.cancel')).filter((r) => r.entity_id === String(id))).toHaveLength(1);
    expect((await confirm(999_999, admin.token, 1)).statusCode).toBe(404);
  });

  it('a large CRM deposit is recorded and counted at once but credited only once confirmed', async () => {
    const c = await trader('Depositor');
    const res = await deposit(c.clientId, 5000);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      amount: 5000,
      deposit_type: 'ftd',
      credited: false,
      credit_id: expect.any(Number),
      credit_status: 'pending',
      balance: 0,
    });
    const creditId = res.json().credit_id as number;
    expect(await client(c.clientId)).toMatchObject({ ftd: true, status: 'ftd' });
    expect(Number((await client(c.clientId)).total_deposits_cents)).toBe(500_000);
    const card = await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: admin.token });
    expect(card.json().summary).toMatchObject({ count: 1, total_amount: 5000, ftd_count: 1 });
    expect(card.json().items[0]).toMatchObject({ credited: false, credit_status: 'pending', credit_id: creditId });
    expect(await balanceCents(t, c.accountId)).toBe(0);
    // The deposit's affiliate postback and statistics do not wait for the credit.
    const listed = (await pending(admin.token, `&client_id=${c.clientId}`)).json().items;
    expect(listed).toEqual([expect.objectContaining({ id: creditId, kind: 'deposit', deposit_id: res.json().id })]);

    expect((await confirm(creditId, superadmin.token, 5000)).json().code).toBe('manual_credit_own');
    const ok = await confirm(creditId, admin.token, 5000);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(500_000);
    expect((await ledger(c.accountId)).map((e) => e.reference)).toEqual([`deposit:${res.json().id}`]);
    expect((await confirm(creditId, admin2.token, 5000)).statusCode).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(500_000);
    const after = await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: admin.token });
    expect(after.json().items[0]).toMatchObject({ credited: true, credit_status: 'confirmed' });
  });

  it('a cancelled deposit credit leaves the deposit recorded and uncredited', async () => {
    const c = await trader('Cancelled Depositor');
    const res = await deposit(c.clientId, 3000);
    const cancelled = await cancel(res.json().credit_id, admin.token, 'Платёж не поступил');
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const card = await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: admin.token });
    expect(card.json().items[0]).toMatchObject({ amount: 3000, credited: false, credit_status: 'cancelled' });
    expect(card.json().summary.total_amount).toBe(3000);
    expect(await balanceCents(t, c.accountId)).toBe(0);
    // Deleting it later takes nothing from the balance (it was never credited).
    const del = await t.inject({ method: 'DELETE', url: `/api/deposits/${res.json().id}`, token: superadmin.token });
    expect(del.statusCode, del.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(0);
  });

  it('an edit that raises a credited deposit above the threshold waits as the difference', async () => {
    const c = await trader('Editor');
    const made = await deposit(c.clientId, 800);
    expect(made.json()).toMatchObject({ credited: true, credit_id: null, credit_status: null });
    expect(await balanceCents(t, c.accountId)).toBe(80_000);
    const id = made.json().id as number;
    const edit = (amount: number) =>
      t.inject({ method: 'PUT', url: `/api/deposits/${id}`, token: superadmin.token, payload: { amount } });

    const raised = await edit(1800);
    expect(raised.statusCode, raised.body).toBe(200);
    expect(raised.json()).toMatchObject({ amount: 1800, credited: true, credit_status: 'pending' });
    expect(await balanceCents(t, c.accountId)).toBe(80_000);
    expect(Number((await client(c.clientId)).total_deposits_cents)).toBe(180_000);
    const creditId = raised.json().credit_id as number;
    const waiting = (await pending(admin.token, `&client_id=${c.clientId}`)).json().items;
    expect(waiting).toEqual([expect.objectContaining({ id: creditId, kind: 'deposit_edit', amount: 1000 })]);

    // Raised again while it waits: that credit is cancelled and one for the new difference replaces it (issue 20
    // finding 2), so there is still one pending credit per deposit.
    const reraised = await edit(2000);
    expect(reraised.statusCode).toBe(200);
    const newId = reraised.json().credit_id as number;
    expect(newId).not.toBe(creditId);
    const again = (await pending(admin.token, `&client_id=${c.clientId}`)).json().items;
    expect(again).toEqual([expect.objectContaining({ id: newId, kind: 'deposit_edit', amount: 1200 })]);
    expect((await confirm(creditId, admin.token, 1000)).json().code).toBe('credit_amount_changed');

    const ok = await confirm(newId, admin.token, 1200);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(200_000);
    expect((await ledger(c.accountId)).map((e) => e.reference)).toEqual([`deposit:${id}`, `manual-credit:${newId}`]);

    // Lowering moves at once, from what the ledger holds.
    const lowered = await edit(900);
    expect(lowered.statusCode, lowered.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(90_000);

    // Raised again and then deleted while the difference waits: only what was credited is taken back.
    expect((await edit(1500)).json().credit_status).toBe('pending');
    const del = await t.inject({ method: 'DELETE', url: `/api/deposits/${id}`, token: superadmin.token });
    expect(del.statusCode, del.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(0);
    expect((await pending(admin.token, `&client_id=${c.clientId}`)).json().items).toEqual([]);
  });

  it('a cancelled raise puts the deposit back to what was credited, so a later deletion takes back only that', async () => {
    const c = await trader('Refused raise');
    const made = await deposit(c.clientId, 700);
    const id = made.json().id as number;
    const raised = await t.inject({
      method: 'PUT',
      url: `/api/deposits/${id}`,
      token: superadmin.token,
      payload: { amount: 1700 },
    });
    expect(raised.json()).toMatchObject({ amount: 1700, credit_status: 'pending' });
    const creditId = raised.json().credit_id as number;
    expect((await cancel(creditId, admin.token, 'no proof of payment')).statusCode).toBe(200);
    // The deposit reads again as the $700 the ledger holds, and the client's total with it.
    const card = (
      await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: superadmin.token })
    ).json() as { items: { id: number; amount: number; credited: boolean }[] };
    expect(card.items.find((d) => d.id === id)).toMatchObject({ amount: 700, credited: true });
    expect(Number((await client(c.clientId)).total_deposits_cents)).toBe(70_000);
    expect(await balanceCents(t, c.accountId)).toBe(70_000);
    const del = await t.inject({ method: 'DELETE', url: `/api/deposits/${id}`, token: superadmin.token });
    expect(del.statusCode, del.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(0);
  });

  it('identity confirmation (security finding 1) and the second approval must both hold before a deposit credits', async () => {
    const c = await trader('Unverified');
    await t.db.updateTable('clients').set({ identity_verified: false }).where('id', '=', c.clientId).execute();
    const res = await deposit(c.clientId, 6000);
    expect(res.json()).toMatchObject({ credited: false, credit_status: 'pending' });
    const ok = await confirm(res.json().credit_id, admin.token, 6000);
    expect(ok.statusCode, ok.body).toBe(200);
    // Confirmed, but the identity is not: still uncredited.
    expect(await balanceCents(t, c.accountId)).toBe(0);
    const small = await deposit(c.clientId, 100);
    expect(small.json()).toMatchObject({ credited: false, credit_id: null });
    const big = await deposit(c.clientId, 2000);
    const verified = await t.inject({
      method: 'POST',
      url: `/api/clients/${c.clientId}/verify-identity`,
      token: admin2.token,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    // The confirmed and the small deposit are credited; the one still waiting for its second person is not.
    expect(verified.json()).toMatchObject({ credited_deposits: 2, credited_amount: 6100 });
    expect(await balanceCents(t, c.accountId)).toBe(610_000);
    const last = await confirm(big.json().credit_id, admin.token, 2000);
    expect(last.statusCode, last.body).toBe(200);
    expect(await balanceCents(t, c.accountId)).toBe(810_000);
  });

  it('staff see only the credits of clients in their scope', async () => {
    const mine = await trader('Mine', retention.id);
    const other = await trader('Not Mine');
    const a = await balanceChange(mine.accountId, { action: 'add', amount: 1500, reason: 'A' }, superadmin.token);
    const b = await balanceChange(other.accountId, { action: 'add', amount: 1500, reason: 'B' }, superadmin.token);
    const seen = (await pending(retention.token)).json();
    const ids = seen.items.map((i: { id: number }) => i.id);
    expect(ids).toContain(a.json().credit_id);
    expect(ids).not.toContain(b.json().credit_id);
    expect(seen.items.every((i: { client_id: number }) => i.client_id === mine.clientId)).toBe(true);
    const all = (await pending(admin.token)).json().items.map((i: { id: number }) => i.id);
    expect(all).toEqual(expect.arrayContaining([a.json().credit_id, b.json().credit_id]));
    // A role without finance.view does not reach the list at all.
    const sales = await t.userWithToken('sales_manager');
    expect((await pending(sales.token)).statusCode).toBe(403);
    for (const id of [a.json().credit_id, b.json().credit_id]) {
      expect((await cancel(id, admin.token, 'cleanup')).statusCode).toBe(200);
    }
  });
});

describe.each(dbKinds())('manual credits turned off on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000', MANUAL_CREDIT_SECOND_APPROVAL: '0' });
  });
  afterAll(() => t.close());

  it('MANUAL_CREDIT_SECOND_APPROVAL=0 credits at once, as before', async () => {
    const admin = await t.userWithToken('superadmin');
    const c = await registerClient(t, 'Off');
    const res = await t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${c.accountId}/balance`,
      token: admin.token,
      payload: { action: 'add', amount: 50_000, reason: 'x' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const dep = await t.inject({
      method: 'POST',
      url: '/api/deposits',
      token: admin.token,
      payload: { client_id: c.clientId, amount: 50_000 },
    });
    expect(dep.json()).toMatchObject({ credited: true, credit_id: null });
    expect(await balanceCents(t, c.accountId)).toBe(10_000_000);
    await expectLedgerConsistent(t);
  });
});
