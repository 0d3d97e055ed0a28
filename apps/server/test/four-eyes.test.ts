import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, fund, registerClient, type TestClient } from './trading-helpers.js';

/**
 * Four-eyes withdrawals (issue 13 item 2, decisions.md D20): above WITHDRAWAL_SECOND_APPROVAL a payout needs two
 * different staff members, the second with finance.approve; the hold stays in between; either may reject.
 */
const KEY = randomBytes(32).toString('base64');
const { year, month } = monthIn('UTC', new Date());
const EXPIRY = `${String(month).padStart(2, '0')}/${String((year + 2) % 100).padStart(2, '0')}`;

describe.each(dbKinds())('four-eyes withdrawals on %s', (kind) => {
  let t: TestApp;
  let admin1: { id: string; token: string };
  let admin2: { id: string; token: string };
  let retention: { id: string; token: string };

  const approve = (id: number, token: string) =>
    t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/approve`, token });
  const reject = (id: number, token: string, reason: string) =>
    t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/reject`, token, payload: { reason } });

  async function clientWithRequest(amount: number): Promise<{ client: TestClient; id: number }> {
    const client = await registerClient(t, 'Four Eyes Client');
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: retention.id })
      .where('id', '=', client.clientId)
      .execute();
    await fund(t, client.accountId, 500_000);
    const res = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: client.token,
      payload: { amount, card_number: '4111111111111111', card_holder: 'Four Eyes', card_expiry: EXPIRY },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { client, id: res.json().id as number };
  }

  const entries = (accountId: number) =>
    t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_cents', 'reference'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    t = await createTestApp(kind, {
      CARD_ENCRYPTION_KEY: KEY,
      LOGIN_RATE_PER_MINUTE: '100000',
      WITHDRAWAL_SECOND_APPROVAL: '1000',
    });
    admin1 = await t.userWithToken('admin');
    admin2 = await t.userWithToken('admin');
    retention = await t.userWithToken('retention_manager');
  });
  afterAll(() => t.close());
  afterEach(() => expectLedgerConsistent(t));

  it('a 1,500.00 withdrawal takes two different admins; the ledger and the audit log show both', async () => {
    const { client, id } = await clientWithRequest(1500);
    expect(await balanceCents(t, client.accountId)).toBe(500_000 - 150_000);

    const first = await approve(id, admin1.token);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      id,
      status: 'awaiting_second_approval',
      first_approved_by: admin1.id,
      processed_by: null,
      needs_second_approval: true,
    });
    expect(first.json().first_approved_by_name).toBeTruthy();
    expect(Date.parse(first.json().first_approved_at)).not.toBeNaN();
    // The hold stays: nothing came back, nothing more went.
    expect(await balanceCents(t, client.accountId)).toBe(350_000);

    // The client's own list shows the real state.
    const mine = await t.inject({ method: 'GET', url: '/api/my-withdraw-requests', token: client.token });
    expect(mine.json().items[0]).toMatchObject({ id, status: 'awaiting_second_approval' });

    // The staff list filters by it and counts it on its own card.
    const listed = await t.inject({
      method: 'GET',
      url: `/api/withdraw-requests?status=awaiting_second_approval&client_id=${client.clientId}`,
      token: admin2.token,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().items.map((r: { id: number }) => r.id)).toEqual([id]);
    expect(listed.json().summary).toMatchObject({
      awaiting_second_approval_count: 1,
      awaiting_second_approval_amount: 1500,
      pending_count: 0,
    });

    const again = await approve(id, admin1.token);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('withdraw_second_approver_same');
    expect(again.json().detail).toBeTruthy();

    // finance.view gives a first approval, not the second.
    const byManager = await approve(id, retention.token);
    expect(byManager.statusCode).toBe(403);
    expect(byManager.json().code).toBe('withdraw_second_approval_forbidden');

    const second = await approve(id, admin2.token);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({
      status: 'approved',
      first_approved_by: admin1.id,
      processed_by: admin2.id,
    });
    expect(await balanceCents(t, client.accountId)).toBe(350_000);
    // One hold, no release: the money left once.
    expect((await entries(client.accountId)).filter((e) => e.reference.startsWith(`withdrawal:${id}:`))).toEqual([
      { kind: 'withdrawal_hold', amount_cents: expect.anything(), reference: `withdrawal:${id}:hold` },
    ]);

    const firstAudit = (await t.auditRows('withdrawal.first_approve')).filter((r) => r.entity_id === String(id));
    expect(firstAudit).toHaveLength(1);
    expect(firstAudit[0]!.actor_id).toBe(admin1.id);
    expect(firstAudit[0]!.after).toEqual({ status: 'awaiting_second_approval' });
    const finalAudit = (await t.auditRows('withdrawal.approve')).filter((r) => r.entity_id === String(id));
    expect(finalAudit).toHaveLength(1);
    expect(finalAudit[0]!.actor_id).toBe(admin2.id);
    expect(finalAudit[0]!.before).toMatchObject({ status: 'awaiting_second_approval', first_approved_by: admin1.id });

    // Approved is final.
    expect((await approve(id, admin1.token)).statusCode).toBe(409);
    const mineAfter = await t.inject({ method: 'GET', url: '/api/my-withdraw-requests', token: client.token });
    expect(mineAfter.json().items[0]).toMatchObject({ id, status: 'approved' });
  });

  it('a manager with finance.view gives the first approval of a client in scope; an admin the second', async () => {
    const { id } = await clientWithRequest(2000);
    const first = await approve(id, retention.token);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'awaiting_second_approval', first_approved_by: retention.id });
    const second = await approve(id, admin1.token);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ status: 'approved', processed_by: admin1.id });
  });

  it('rejecting from the awaiting state releases the hold once, with the reason staff see in the list', async () => {
    const { client, id } = await clientWithRequest(1500);
    expect((await approve(id, admin1.token)).json().status).toBe('awaiting_second_approval');
    const rejected = await reject(id, admin1.token, 'Карта не принадлежит клиенту');
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({
      status: 'rejected',
      reject_reason: 'Карта не принадлежит клиенту',
      balance: 5000,
    });
    expect(await balanceCents(t, client.accountId)).toBe(500_000);
    const release = (await entries(client.accountId)).filter((e) => e.reference === `withdrawal:${id}:release`);
    expect(release).toHaveLength(1);
    expect(Number(release[0]!.amount_cents)).toBe(150_000);
    expect((await approve(id, admin2.token)).statusCode).toBe(409);
    const audit = (await t.auditRows('withdrawal.reject')).filter((r) => r.entity_id === String(id));
    expect(audit[0]!.before).toMatchObject({ status: 'awaiting_second_approval', first_approved_by: admin1.id });

    const listed = await t.inject({
      method: 'GET',
      url: `/api/withdraw-requests?status=rejected&client_id=${client.clientId}`,
      token: admin2.token,
    });
    expect(listed.json().items[0]).toMatchObject({ id, reject_reason: 'Карта не принадлежит клиенту' });
  });

  it('at or below the threshold one approval pays, as before', async () => {
    const { client, id } = await clientWithRequest(1000);
    const res = await approve(id, admin1.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'approved',
      processed_by: admin1.id,
      first_approved_by: null,
      first_approved_at: null,
      needs_second_approval: false,
    });
    expect(await balanceCents(t, client.accountId)).toBe(400_000);
    expect((await t.auditRows('withdrawal.first_approve')).some((r) => r.entity_id === String(id))).toBe(false);
  });
});

describe.each(dbKinds())('four-eyes turned off on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      CARD_ENCRYPTION_KEY: KEY,
      LOGIN_RATE_PER_MINUTE: '100000',
      WITHDRAWAL_SECOND_APPROVAL: '0',
    });
  });
  afterAll(() => t.close());

  it('WITHDRAWAL_SECOND_APPROVAL=0 approves any amount in one step', async () => {
    const admin = await t.userWithToken('admin');
    const client = await registerClient(t, 'No Four Eyes');
    await fund(t, client.accountId, 1_000_000);
    const filed = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: client.token,
      payload: { amount: 9000, card_number: '4111111111111111', card_holder: 'X', card_expiry: EXPIRY },
    });
    expect(filed.statusCode, filed.body).toBe(201);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/withdraw-requests/${filed.json().id}/approve`,
      token: admin.token,
    });
    expect(res.json()).toMatchObject({ status: 'approved', needs_second_approval: false });
    await expectLedgerConsistent(t);
  });
});
