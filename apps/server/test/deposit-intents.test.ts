import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPOSIT_INTENTS_PER_HOUR } from '@brokerage/shared';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { balanceCents, registerClient, type TestClient } from './trading-helpers.js';

type Staff = { id: string; email: string; token: string };

/** Decision D21: a confirmed top-up is stored as an intent and reaches a person; it never moves money. */
describe.each(dbKinds())('deposit intents on %s', (kind) => {
  let t: TestApp;
  let retention: Staff;
  let otherRetention: Staff;
  let leadRetention: Staff;
  let secondLead: Staff;
  let methodId: number;
  let disabledId: number;

  const notes = async (who: Staff) => {
    const res = await t.inject({ method: 'GET', url: '/api/notifications', token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { type: string; client_id: number; amount: number; method: string | null }[]).filter(
      (n) => n.type === 'deposit_intent',
    );
  };
  const post = (client: TestClient, payload: unknown) =>
    t.inject({ method: 'POST', url: '/api/deposit-intents', token: client.token, payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' });
    retention = await t.userWithToken('retention_manager');
    otherRetention = await t.userWithToken('retention_manager');
    leadRetention = await t.userWithToken('team_lead_retention');
    secondLead = await t.userWithToken('team_lead_retention');
    const methods = await t.db.selectFrom('deposit_methods').select(['id']).orderBy('id').execute();
    methodId = Number(methods[0]!.id);
    disabledId = Number(methods[1]!.id);
    await t.db.updateTable('deposit_methods').set({ enabled: false }).where('id', '=', disabledId).execute();
  });
  afterAll(() => t.close());

  it("stores the intent, notifies the client's manager only, and moves no money", async () => {
    const client = await registerClient(t, 'Intent Client');
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: retention.id })
      .where('id', '=', client.clientId)
      .execute();
    const before = await balanceCents(t, client.accountId);
    const res = await post(client, { amount: 250.5, method_id: methodId });
    expect(res.statusCode, res.body).toBe(201);
    const method = await t.db
      .selectFrom('deposit_methods')
      .select('title')
      .where('id', '=', methodId)
      .executeTakeFirstOrThrow();
    expect(res.json()).toMatchObject({ client_id: client.clientId, amount: 250.5, method_title: method.title });
    expect(await balanceCents(t, client.accountId)).toBe(before);
    const ledger = await t.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('account_id', '=', client.accountId)
      .execute();
    expect(ledger).toHaveLength(0);

    const mine = await notes(retention);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ client_id: client.clientId, amount: 250.5, method: method.title });
    expect(await notes(otherRetention)).toHaveLength(0);
    expect(await notes(leadRetention)).toHaveLength(0);

    // The card lists it for the manager; another manager's scope does not hold the client (404 like a missing one).
    const card = await t.inject({
      method: 'GET',
      url: `/api/clients/${client.clientId}/deposit-intents`,
      token: retention.token,
    });
    expect(card.statusCode, card.body).toBe(200);
    expect(card.json()).toMatchObject({ total: 1, items: [{ amount: 250.5, method_title: method.title }] });
    const other = await t.inject({
      method: 'GET',
      url: `/api/clients/${client.clientId}/deposit-intents`,
      token: otherRetention.token,
    });
    expect(other.statusCode).toBe(404);
    // A client cannot read the staff route.
    const self = await t.inject({
      method: 'GET',
      url: `/api/clients/${client.clientId}/deposit-intents`,
      token: client.token,
    });
    expect(self.statusCode).toBe(403);
  });

  it('notifies every retention team lead when the client has no manager', async () => {
    const client = await registerClient(t, 'Unassigned Client');
    await t.db.updateTable('clients').set({ assigned_manager: null }).where('id', '=', client.clientId).execute();
    const res = await post(client, { amount: 100, method_id: methodId });
    expect(res.statusCode, res.body).toBe(201);
    for (const lead of [leadRetention, secondLead]) {
      const n = (await notes(lead)).filter((x) => x.client_id === client.clientId);
      expect(n).toHaveLength(1);
      expect(n[0]!.amount).toBe(100);
    }
    expect((await notes(retention)).filter((x) => x.client_id === client.clientId)).toHaveLength(0);
  });

  it('refuses bad input with a detail naming the problem, never a 5xx', async () => {
    const client = await registerClient(t, 'Bad Input');
    const cases: [unknown, number, RegExp][] = [
      [{ amount: 5, method_id: methodId }, 400, /\$10/],
      [{ amount: 2_000_000, method_id: methodId }, 400, /1000000/],
      [{ amount: 10.001, method_id: methodId }, 400, /двух знаков/],
      [{ amount: 50, method_id: 999_999 }, 404, /Способ пополнения/],
      [{ amount: 50, method_id: disabledId }, 404, /Способ пополнения/],
      [{ amount: '50', method_id: methodId }, 400, /amount/],
      [{ amount: 50 }, 400, /method_id/],
      [{ amount: 50, method_id: methodId, card: '4111' }, 400, /card/],
    ];
    for (const [payload, status, detail] of cases) {
      const res = await post(client, payload);
      expect(res.statusCode, `${JSON.stringify(payload)} ${res.body}`).toBe(status);
      expect(res.json().detail).toMatch(detail);
    }
    const stored = await t.db
      .selectFrom('deposit_intents')
      .select('id')
      .where('client_id', '=', client.clientId)
      .execute();
    expect(stored).toHaveLength(0);
    // Staff are not clients.
    const staff = await t.inject({
      method: 'POST',
      url: '/api/deposit-intents',
      token: retention.token,
      payload: { amount: 50, method_id: methodId },
    });
    expect(staff.statusCode).toBe(403);
  });

  it(`allows ${DEPOSIT_INTENTS_PER_HOUR} an hour per client, then 429 with Retry-After; other clients are not held up`, async () => {
    const client = await registerClient(t, 'Busy Client');
    for (let i = 0; i < DEPOSIT_INTENTS_PER_HOUR; i++) {
      const res = await post(client, { amount: 20 + i, method_id: methodId });
      expect(res.statusCode, res.body).toBe(201);
    }
    const refused = await post(client, { amount: 99, method_id: methodId });
    expect(refused.statusCode, refused.body).toBe(429);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(refused.json().detail).toBeTruthy();
    const other = await registerClient(t, 'Calm Client');
    expect((await post(other, { amount: 99, method_id: methodId })).statusCode).toBe(201);
    // An hour later the window has moved on.
    await t.db
      .updateTable('deposit_intents')
      .set({ created_at: new Date(Date.now() - 3_601_000) })
      .where('client_id', '=', client.clientId)
      .execute();
    expect((await post(client, { amount: 99, method_id: methodId })).statusCode).toBe(201);
  });
});
