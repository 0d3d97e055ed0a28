import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, registerClient, type TestClient } from './trading-helpers.js';

/** Deposits (D3): credited through the ledger, corrected on edit and delete, ftd/reload derived, scoped (D5), audited. */
describe.each(dbKinds())('deposits on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };
  let superadmin: { id: string; token: string };
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  let salesManager: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' });
    admin = await t.userWithToken('admin');
    superadmin = await t.userWithToken('superadmin');
    managerA = await t.userWithToken('retention_manager');
    managerB = await t.userWithToken('retention_manager');
    salesManager = await t.userWithToken('sales_manager');
  });
  afterEach(() => expectLedgerConsistent(t));
  afterAll(() => t.close());

  async function client(manager: string | null = managerA.id): Promise<TestClient> {
    const c = await registerClient(t, `Client ${randomBytes(2).toString('hex')}`);
    await t.db.updateTable('clients').set({ assigned_manager: manager }).where('id', '=', c.clientId).execute();
    return c;
  }
  const deposit = (token: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: '/api/deposits', token, payload, headers });
  const clientRow = (id: number) =>
    t.db
      .selectFrom('clients')
      .select(['ftd', 'total_deposits_cents', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('credits the trading account through the ledger; the first deposit is ftd, later ones reload', async () => {
    const c = await client();
    const first = await deposit(managerA.token, { client_id: c.clientId, amount: 250.5, notes: 'Карта' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      deposit_type: 'ftd',
      amount: 250.5,
      notes: 'Карта',
      balance: 250.5,
      credited: true,
      created_by: managerA.id,
    });
    expect(first.json().created_by_name).toMatch(/^Test retention_manager/);
    const entry = await t.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('reference', '=', `deposit:${first.json().id}`)
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ kind: 'deposit', account_id: expect.anything() });
    expect(Number(entry.amount_cents)).toBe(25_050);
    const second = await deposit(managerA.token, { client_id: c.clientId, amount: 100 });
    expect(second.json()).toMatchObject({ deposit_type: 'reload', balance: 350.5 });
    expect(await balanceCents(t, c.accountId)).toBe(35_050);
    const row = await clientRow(c.clientId);
    expect(row.ftd).toBe(true);
    expect(Number(row.total_deposits_cents)).toBe(35_050);
    expect(row.status).toBe('ftd');
    const audit = (await t.auditRows('deposit.create')).filter((r) => r.entity_id === String(first.json().id));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toMatchObject({
      client_id: c.clientId,
      amount: 250.5,
      deposit_type: 'ftd',
      client_status: 'ftd',
    });
  });

  it('sets status ftd on the first deposit only when the status is new', async () => {
    const c = await client();
    await t.db.updateTable('clients').set({ status: 'potential' }).where('id', '=', c.clientId).execute();
    await deposit(managerA.token, { client_id: c.clientId, amount: 10 });
    expect((await clientRow(c.clientId)).status).toBe('potential');
  });

  it('an edit posts a correction of the difference; a delete posts −amount; the earliest remaining deposit becomes ftd', async () => {
    const c = await client();
    const a = (await deposit(managerA.token, { client_id: c.clientId, amount: 100 })).json();
    const b = (await deposit(managerA.token, { client_id: c.clientId, amount: 50 })).json();
    const up = await t.inject({
      method: 'PUT',
      url: `/api/deposits/${a.id}`,
      token: managerA.token,
      payload: { amount: 120, notes: 'исправлено' },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json()).toMatchObject({ amount: 120, notes: 'исправлено', balance: 170, deposit_type: 'ftd' });
    const down = await t.inject({
      method: 'PUT',
      url: `/api/deposits/${a.id}`,
      token: managerA.token,
      payload: { amount: 90 },
    });
    expect(down.json()).toMatchObject({ amount: 90, notes: 'исправлено', balance: 140 });
    const corrections = await t.db
      .selectFrom('ledger_entries')
      .select(['amount_cents', 'reference'])
      .where('kind', '=', 'deposit_correction')
      .where('reference', 'like', `deposit:${a.id}:%`)
      .orderBy('id')
      .execute();
    expect(corrections.map((e) => Number(e.amount_cents))).toEqual([2_000, -3_000]);
    const audit = (await t.auditRows('deposit.update')).filter((r) => r.entity_id === String(a.id)).at(-1)!;
    expect(audit.before).toMatchObject({ amount: 120 });
    expect(audit.after).toMatchObject({ amount: 90 });

    const del = await t.inject({ method: 'DELETE', url: `/api/deposits/${a.id}`, token: managerA.token });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().balance).toBe(50);
    expect(await balanceCents(t, c.accountId)).toBe(5_000);
    const list = (
      await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: managerA.token })
    ).json();
    expect(list.items.map((d: { id: number; deposit_type: string }) => [d.id, d.deposit_type])).toEqual([
      [b.id, 'ftd'],
    ]);
    expect(Number((await clientRow(c.clientId)).total_deposits_cents)).toBe(5_000);
    expect((await t.auditRows('deposit.delete')).some((r) => r.entity_id === String(a.id))).toBe(true);
    // Gone: a second delete or an edit of it is 404.
    expect((await t.inject({ method: 'DELETE', url: `/api/deposits/${a.id}`, token: managerA.token })).statusCode).toBe(
      404,
    );
    await t.inject({ method: 'DELETE', url: `/api/deposits/${b.id}`, token: managerA.token });
    const none = await clientRow(c.clientId);
    expect(none.ftd).toBe(false);
    expect(Number(none.total_deposits_cents)).toBe(0);
  });

  it('refuses a delete or a reduction that would take the balance below 0, with a clear message, changing nothing', async () => {
    const c = await client();
    const d = (await deposit(managerA.token, { client_id: c.clientId, amount: 100 })).json();
    // The client spends most of it (a stake-like debit through the ledger).
    await t.db.transaction().execute(async (trx) => {
      const { postEntry } = await import('../src/modules/ledger/service.js');
      await postEntry(trx, {
        accountId: c.accountId,
        kind: 'trade_stake',
        amountCents: -8_000,
        reference: `test:stake:${d.id}`,
        actor: null,
      });
    });
    const del = await t.inject({ method: 'DELETE', url: `/api/deposits/${d.id}`, token: managerA.token });
    expect(del.statusCode).toBe(409);
    expect(del.json().detail).toBe(
      'Нельзя удалить депозит: на торговом счете $20.00, а списать нужно $100.00 — баланс стал бы меньше 0',
    );
    const edit = await t.inject({
      method: 'PUT',
      url: `/api/deposits/${d.id}`,
      token: managerA.token,
      payload: { amount: 50 },
    });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().detail).toContain('Нельзя уменьшить депозит');
    expect(await balanceCents(t, c.accountId)).toBe(2_000);
    expect(
      (
        await t.db
          .selectFrom('deposits')
          .select(['amount_cents', 'deleted_at'])
          .where('id', '=', d.id)
          .executeTakeFirstOrThrow()
      ).deleted_at,
    ).toBeNull();
    // A reduction the balance can take goes through.
    const ok = await t.inject({
      method: 'PUT',
      url: `/api/deposits/${d.id}`,
      token: managerA.token,
      payload: { amount: 85 },
    });
    expect(ok.json().balance).toBe(5);
  });

  it('a client without a trading account: the deposit is recorded, and credited once its account is opened by a verified owner', async () => {
    const email = `lead.${randomBytes(3).toString('hex')}@test.local`;
    const lead = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: admin.token,
      payload: { name: 'Lead', email, phone: '+380509998877', country: 'Украина' },
    });
    const clientId = lead.json().id as number;
    const d = await deposit(admin.token, { client_id: clientId, amount: 75 });
    expect(d.statusCode, d.body).toBe(201);
    expect(d.json()).toMatchObject({ credited: false, balance: null, deposit_type: 'ftd' });
    await deposit(admin.token, { client_id: clientId, amount: 25 });
    const reg = await t.inject({
      method: 'POST',
      url: '/api/auth/register-client',
      payload: { name: 'Lead', email, password: 'secret-123' },
      remoteAddress: '10.9.9.9',
    });
    expect(reg.statusCode, reg.body).toBe(201);
    const balance = async () =>
      Number(
        (
          await t.db
            .selectFrom('trading_accounts')
            .select('balance_cents')
            .where('client_id', '=', clientId)
            .executeTakeFirstOrThrow()
        ).balance_cents,
      );
    // A self-registration with the lead's e-mail is unverified (issue 9): nothing is credited until staff confirm it.
    expect(await balance()).toBe(0);
    const verified = await t.inject({
      method: 'POST',
      url: `/api/clients/${clientId}/verify-identity`,
      token: admin.token,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await balance()).toBe(10_000);
    const list = (
      await t.inject({ method: 'GET', url: `/api/deposits?client_id=${clientId}`, token: admin.token })
    ).json();
    expect(list.items.every((x: { credited: boolean }) => x.credited)).toBe(true);
  });

  it('Idempotency-Key: a retry returns the first answer and credits once', async () => {
    const c = await client();
    const headers = { 'idempotency-key': `dep-${randomBytes(4).toString('hex')}` };
    const one = await deposit(managerA.token, { client_id: c.clientId, amount: 40 }, headers);
    const two = await deposit(managerA.token, { client_id: c.clientId, amount: 40 }, headers);
    expect(two.statusCode).toBe(201);
    expect(two.headers['idempotent-replayed']).toBe('true');
    expect(two.json().id).toBe(one.json().id);
    expect(await balanceCents(t, c.accountId)).toBe(4_000);
    const other = await deposit(managerA.token, { client_id: c.clientId, amount: 41 }, headers);
    expect(other.statusCode).toBe(409);
  });

  it('validates the amount and the body', async () => {
    const c = await client();
    for (const amount of [0, -5, 0.001, 10.123, '10']) {
      const res = await deposit(managerA.token, { client_id: c.clientId, amount });
      expect(res.statusCode, String(amount)).toBe(400);
      expect(res.json().detail).toContain('amount');
    }
    const missing = await deposit(managerA.token, { amount: 10 });
    expect(missing.json().detail).toContain('client_id: Обязательное поле');
    const typed = await deposit(managerA.token, { client_id: c.clientId, amount: 10, deposit_type: 'ftd' });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().detail).toContain('deposit_type');
    expect((await deposit(managerA.token, { client_id: 987654, amount: 10 })).statusCode).toBe(404);
  });

  it('scope: another manager’s client, its deposits and their edits answer 404', async () => {
    const c = await client(managerA.id);
    const d = (await deposit(managerA.token, { client_id: c.clientId, amount: 30 })).json();
    const asB = [
      await deposit(managerB.token, { client_id: c.clientId, amount: 10 }),
      await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: managerB.token }),
      await t.inject({ method: 'PUT', url: `/api/deposits/${d.id}`, token: managerB.token, payload: { amount: 1 } }),
      await t.inject({ method: 'DELETE', url: `/api/deposits/${d.id}`, token: managerB.token }),
    ];
    for (const res of asB) expect(res.statusCode, res.body).toBe(404);
    const history = (await t.inject({ method: 'GET', url: '/api/deposits', token: managerB.token })).json();
    expect(history.items.some((x: { client_id: number }) => x.client_id === c.clientId)).toBe(false);
    expect(await balanceCents(t, c.accountId)).toBe(3_000);
  });

  it('the history: filters by type, date (business days), creator (superadmin only) and client name; summary cards; the deleted creator still named', async () => {
    const c = await client(salesManager.id);
    await t.db.updateTable('clients').set({ name: 'Зинаида Историческая' }).where('id', '=', c.clientId).execute();
    const creator = await t.userWithToken('team_lead_sales');
    await t.db.updateTable('clients').set({ assigned_manager: null }).where('id', '=', c.clientId).execute();
    const first = (await deposit(creator.token, { client_id: c.clientId, amount: 10 })).json();
    await deposit(superadmin.token, { client_id: c.clientId, amount: 20 });
    await deposit(superadmin.token, { client_id: c.clientId, amount: 30 });
    // 22:30 UTC on the 1st is already the 2nd in Kyiv.
    await t.db
      .updateTable('deposits')
      .set({ created_at: new Date('2026-03-01T22:30:00Z') })
      .where('id', '=', first.id)
      .execute();
    await t.db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', creator.id).execute();

    const get = async (q: string, token = superadmin.token) => {
      const res = await t.inject({
        method: 'GET',
        url: `/api/deposits?search=${encodeURIComponent('зинаида')}${q}`,
        token,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const all = await get('');
    expect(all.summary).toEqual({ count: 3, total_amount: 60, ftd_count: 1, reload_count: 2 });
    expect(all.items.map((d: { amount: number }) => d.amount)).toEqual([30, 20, 10]);
    expect((await get('&deposit_type=reload')).summary).toMatchObject({ count: 2, total_amount: 50 });
    expect((await get('&date_from=2026-03-02&date_to=2026-03-02')).items.map((d: { id: number }) => d.id)).toEqual([
      first.id,
    ]);
    expect((await get('&date_to=2026-03-01')).total).toBe(0);
    const byCreator = await get(`&created_by=${creator.id}`);
    expect(byCreator.items[0]).toMatchObject({
      id: first.id,
      created_by_name: expect.stringMatching(/^Test team_lead_sales/),
    });
    expect((await get('&per_page=2&page=2')).items).toHaveLength(1);
    const refused = await t.inject({
      method: 'GET',
      url: `/api/deposits?created_by=${creator.id}`,
      token: admin.token,
    });
    expect(refused.statusCode).toBe(403);
    expect(
      (await t.inject({ method: 'GET', url: '/api/deposits?deposit_type=bonus', token: admin.token })).statusCode,
    ).toBe(400);
  });
  it('the whole history (no client_id) is finance.view only; every role keeps its card’s deposits (client_id)', async () => {
    // §6 / D5: History is for everyone but team_lead_sales and sales_manager; the card's deposits card is for all staff.
    const expected: Record<string, number> = {
      superadmin: 200,
      admin: 200,
      team_lead_retention: 200,
      retention_manager: 200,
      manager: 200,
      team_lead_sales: 403,
      sales_manager: 403,
    };
    for (const [role, status] of Object.entries(expected)) {
      const u = await t.userWithToken(role as 'admin');
      // A client of theirs with a deposit: in every role's scope.
      const c = await client(u.id);
      expect((await deposit(admin.token, { client_id: c.clientId, amount: 5 })).statusCode).toBe(201);
      const denied0 = await t.auditCount('access.denied');

      const history = await t.inject({ method: 'GET', url: '/api/deposits?deposit_type=ftd', token: u.token });
      expect(history.statusCode, `${role}: ${history.body}`).toBe(status);
      if (status === 403) {
        expect(history.json().detail).toBeTruthy();
        expect(history.json()).not.toHaveProperty('items');
        expect(await t.auditCount('access.denied')).toBe(denied0 + 1);
        const [row] = (await t.auditRows('access.denied')).slice(-1);
        expect(row).toMatchObject({ actor_id: u.id, entity_id: 'GET /api/deposits', after: { reason: 'forbidden' } });
        // The history's export answers the same.
        const exported = await t.inject({ method: 'GET', url: '/api/deposits/export/excel', token: u.token });
        expect(exported.statusCode).toBe(403);
      } else {
        expect(history.json().items.map((d: { client_id: number }) => d.client_id)).toContain(c.clientId);
        expect(await t.auditCount('access.denied')).toBe(denied0);
      }

      const card = await t.inject({ method: 'GET', url: `/api/deposits?client_id=${c.clientId}`, token: u.token });
      expect(card.statusCode, `${role} card: ${card.body}`).toBe(200);
      expect(card.json().items).toEqual([expect.objectContaining({ client_id: c.clientId, amount: 5 })]);
    }
  });
});
