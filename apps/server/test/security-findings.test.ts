import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { jsonDeeperThan, nulCharacterAt } from '../src/platform/http/error-handler.js';
import { createTestApp, dbKinds, PASSWORD, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, fund, registerClient } from './trading-helpers.js';

/**
 * Issue 9: the security probe's findings, each reproduced through the HTTP API as the probe ran it. Finding 3 (the
 * socket's Origin) is in live-updates.test.ts and auth.test.ts, finding 4 (watches after a reassignment) in
 * live-staff-watch.test.ts, finding 6 (staff e-mails outside the whitelist) in ip-whitelist.test.ts.
 */
const KEY = randomBytes(32).toString('base64');
const TZ = 'Europe/Kyiv';
const VISA = '4111111111111111';

function expiryIn(months: number): string {
  const { year, month } = monthIn(TZ, new Date());
  const total = year * 12 + (month - 1) + months;
  return `${String((total % 12) + 1).padStart(2, '0')}/${String(Math.floor(total / 12) % 100).padStart(2, '0')}`;
}
const card = (amount: number) => ({ amount, card_number: VISA, card_holder: 'Ivan Petrov', card_expiry: expiryIn(24) });

describe.each(dbKinds())('security findings on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };
  let admin: { id: string; token: string };
  let teamLead: { id: string; token: string };
  let retention: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind, { CARD_ENCRYPTION_KEY: KEY, LOGIN_RATE_PER_MINUTE: '100000', BUSINESS_TIMEZONE: TZ });
    superadmin = await t.userWithToken('superadmin');
    admin = await t.userWithToken('admin');
    teamLead = await t.userWithToken('team_lead_retention');
    retention = await t.userWithToken('retention_manager');
  });
  afterAll(() => t.close());
  afterEach(() => expectLedgerConsistent(t));

  const unique = () => randomBytes(4).toString('hex');
  /** A CRM lead with recorded deposits (no platform user yet), as the sales team leaves it. */
  async function leadWithDeposits(amounts: number[]) {
    const email = `lead.${unique()}@example.com`;
    const created = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: superadmin.token,
      payload: {
        name: 'Real Lead',
        email,
        phone: `+7701${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
        country: 'KZ',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const clientId = created.json().id as number;
    for (const amount of amounts) {
      const d = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: superadmin.token,
        payload: { client_id: clientId, amount, notes: 'recorded by sales' },
      });
      expect(d.statusCode, d.body).toBe(201);
    }
    return { clientId, email };
  }
  async function registerAs(email: string, password = 'attacker123') {
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register-client',
      payload: { name: 'Attacker', email, password },
      remoteAddress: `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`,
    });
    expect(res.statusCode, res.body).toBe(201);
    // Issue 22: even with the e-mail link opened, the identity check of issue 9 finding 1 still holds.
    await t.db
      .updateTable('users')
      .set({ email_verified_at: new Date() })
      .where('id', '=', res.json().user.id as string)
      .execute();
    return res.json().access_token as string;
  }
  const balanceOf = async (token: string) =>
    (await t.inject({ method: 'GET', url: '/api/trading/balance', token })).json().balance as number;
  const clientOf = async (clientId: number) =>
    (await t.inject({ method: 'GET', url: `/api/clients/${clientId}`, token: superadmin.token })).json();

  describe('1. registering with a lead’s e-mail', () => {
    it('links the lead unverified: its deposits stay uncredited and withdrawals are refused', async () => {
      const lead = await leadWithDeposits([40, 20]);
      const attacker = await registerAs(lead.email.toUpperCase());
      // Today's attack answered {"balance":6000}: the lead's recorded deposits, credited to whoever typed the e-mail.
      expect(await balanceOf(attacker)).toBe(0);
      const withdraw = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: attacker,
        payload: card(60),
      });
      expect(withdraw.statusCode).toBe(409);
      expect(withdraw.json().code).toBe('withdraw_identity_unverified');
      expect(withdraw.json().detail).toMatch(/подтверждения личности/);

      const client = await clientOf(lead.clientId);
      expect(client).toMatchObject({ identity_verified: false, total_deposits: 60 });
      expect(client.user_id).not.toBeNull();
      const list = await t.inject({
        method: 'GET',
        url: `/api/clients?search=${encodeURIComponent(lead.email)}`,
        token: superadmin.token,
      });
      expect(list.json().items.find((c: { id: number }) => c.id === lead.clientId)).toMatchObject({
        identity_verified: false,
      });
      // Deposits recorded after the link wait too.
      const later = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: superadmin.token,
        payload: { client_id: lead.clientId, amount: 5 },
      });
      expect(later.statusCode).toBe(201);
      expect(later.json().credited).toBe(false);
      expect(await balanceOf(attacker)).toBe(0);
    });

    it('credits the pending deposits once when a finance approver confirms the identity, then allows withdrawals', async () => {
      const lead = await leadWithDeposits([40, 20]);
      const client = await registerAs(lead.email);
      const verify = (token: string) =>
        t.inject({ method: 'POST', url: `/api/clients/${lead.clientId}/verify-identity`, token });

      // finance.view is not enough: the retention team lead sees withdrawals but may not confirm identities.
      expect((await verify(teamLead.token)).statusCode).toBe(403);
      expect((await verify(retention.token)).statusCode).toBe(403);
      expect(await balanceOf(client)).toBe(0);

      const ok = await verify(admin.token);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({
        client_id: lead.clientId,
        identity_verified: true,
        credited_deposits: 2,
        credited_amount: 60,
      });
      expect(await balanceOf(client)).toBe(60);
      const again = await verify(superadmin.token);
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('identity_already_verified');
      expect(await balanceOf(client)).toBe(60);
      const entries = await t.db
        .selectFrom('ledger_entries')
        .innerJoin('trading_accounts', 'trading_accounts.id', 'ledger_entries.account_id')
        .select(['ledger_entries.reference', 'ledger_entries.amount_cents'])
        .where('trading_accounts.client_id', '=', lead.clientId)
        .execute();
      expect(entries.map((e) => Number(e.amount_cents)).sort()).toEqual([2000, 4000]);
      expect(new Set(entries.map((e) => e.reference)).size).toBe(2);

      const [row] = (await t.auditRows('client.verify_identity')).slice(-1);
      expect(row).toMatchObject({
        actor_id: admin.id,
        entity_id: String(lead.clientId),
        after: { identity_verified: true, credited_deposits: 2, credited_amount: 60 },
      });
      expect(await clientOf(lead.clientId)).toMatchObject({ identity_verified: true });

      const withdraw = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: client,
        payload: card(50),
      });
      expect(withdraw.statusCode, withdraw.body).toBe(201);
      expect(await balanceOf(client)).toBe(10);
    });

    it('verifies a self-registration that creates a new lead by that act; a login made by staff waits (issue 20)', async () => {
      const fresh = await registerClient(t, 'New Person');
      expect(await clientOf(fresh.clientId)).toMatchObject({ identity_verified: true, login_created_by: null });

      // Issue 20 finding 1: staff chose the e-mail and the password, so the login is unverified like a linked one,
      // and its creator is not the one who may confirm it.
      const lead = await leadWithDeposits([30]);
      const reg = await t.inject({
        method: 'POST',
        url: `/api/clients/${lead.clientId}/register-user`,
        token: superadmin.token,
        payload: { name: 'Real Lead', email: lead.email, password: 'lead-pass-1' },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      expect(reg.json().identity_verified).toBe(false);
      expect(await clientOf(lead.clientId)).toMatchObject({
        identity_verified: false,
        login_created_by: superadmin.id,
      });
      expect(await balanceCents(t, reg.json().trading_account_id)).toBe(0);
      const verify = (token: string) =>
        t.inject({ method: 'POST', url: `/api/clients/${lead.clientId}/verify-identity`, token });
      const own = await verify(superadmin.token);
      expect(own.statusCode).toBe(409);
      expect(own.json().code).toBe('identity_verifier_created_login');
      expect(await balanceCents(t, reg.json().trading_account_id)).toBe(0);
      const other = await verify(admin.token);
      expect(other.statusCode, other.body).toBe(200);
      expect(other.json()).toMatchObject({ credited_deposits: 1, credited_amount: 30 });
      expect(await balanceCents(t, reg.json().trading_account_id)).toBe(3000);
    });

    it('answers 404 for a client outside the approver’s scope and for none at all', async () => {
      const missing = await t.inject({
        method: 'POST',
        url: '/api/clients/99999999/verify-identity',
        token: admin.token,
      });
      expect(missing.statusCode).toBe(404);
    });
  });

  describe('2. one retention manager creating money, taking the login and approving the payout', () => {
    async function assignedTrader() {
      const trader = await registerClient(t, 'Managed Trader');
      await t.db
        .updateTable('clients')
        .set({ assigned_manager: retention.id })
        .where('id', '=', trader.clientId)
        .execute();
      return trader;
    }
    const balanceChange = (accountId: number, body: Record<string, unknown>, token = retention.token) =>
      t.inject({ method: 'POST', url: `/api/trading/admin/accounts/${accountId}/balance`, token, payload: body });

    it('refuses a staff balance change above MANUAL_CREDIT_MAX, however it is phrased', async () => {
      const trader = await assignedTrader();
      const huge = await balanceChange(trader.accountId, { action: 'add', amount: 99_999_999, reason: 'bonus' });
      expect(huge.statusCode).toBe(400);
      expect(huge.json().code).toBe('balance_change_too_large');
      expect(huge.json().detail).toContain('100000.00');
      const set = await balanceChange(trader.accountId, { action: 'set', amount: 100_000.01, reason: 'bonus' });
      expect(set.statusCode).toBe(400);
      expect(await balanceCents(t, trader.accountId)).toBe(0);
      // At the limit it is accepted, and (D20, above MANUAL_CREDIT_SECOND_APPROVAL) waits for a second person.
      const atLimit = await balanceChange(trader.accountId, { action: 'add', amount: 100_000, reason: 'bonus' });
      expect(atLimit.statusCode, atLimit.body).toBe(202);
      expect(atLimit.json()).toMatchObject({ status: 'awaiting_confirmation', amount: 100_000 });
      expect(await balanceCents(t, trader.accountId)).toBe(0);
      // A recorded deposit is not bounded by it.
      const deposit = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: superadmin.token,
        payload: { client_id: trader.clientId, amount: 150_000 },
      });
      expect(deposit.statusCode, deposit.body).toBe(201);
    });

    it('stops the manager who added the money and reset the password from approving; another approver may', async () => {
      const trader = await assignedTrader();
      expect((await balanceChange(trader.accountId, { action: 'add', amount: 500, reason: 'bonus' })).statusCode).toBe(
        200,
      );
      const pw = await t.inject({
        method: 'PUT',
        url: `/api/clients/${trader.clientId}/change-password`,
        token: retention.token,
        payload: { new_password: 'insider999' },
      });
      expect(pw.statusCode).toBe(200);
      const signIn = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: trader.email, password: 'insider999' },
      });
      const asClient = signIn.json().access_token as string;
      const filed = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: asClient,
        payload: card(500),
      });
      expect(filed.statusCode, filed.body).toBe(201);
      const id = filed.json().id as number;

      const approve = (token: string) =>
        t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/approve`, token });
      const refused = await approve(retention.token);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().code).toBe('withdraw_approver_balance_change');
      expect(refused.json().detail).toMatch(/меняли баланс/);
      expect(
        (await t.db.selectFrom('withdraw_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow())
          .status,
      ).toBe('pending');
      const approved = await approve(teamLead.token);
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json().status).toBe('approved');
    });

    it('names the password change, and the recorded deposit, as the reason when that is all the approver did', async () => {
      const trader = await assignedTrader();
      await fund(t, trader.accountId, 20_000);
      expect(
        (
          await t.inject({
            method: 'PUT',
            url: `/api/clients/${trader.clientId}/change-password`,
            token: retention.token,
            payload: { new_password: 'insider999' },
          })
        ).statusCode,
      ).toBe(200);
      const token = (
        await t.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: trader.email, password: 'insider999' },
        })
      ).json().access_token as string;
      const first = await t.inject({ method: 'POST', url: '/api/withdraw-requests', token, payload: card(50) });
      const byPassword = await t.inject({
        method: 'PUT',
        url: `/api/withdraw-requests/${first.json().id}/approve`,
        token: retention.token,
      });
      expect(byPassword.statusCode).toBe(409);
      expect(byPassword.json().code).toBe('withdraw_approver_password_changed');

      // The team lead records a deposit of this client: the same rule keeps them off its payouts.
      const dep = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: teamLead.token,
        payload: { client_id: trader.clientId, amount: 10 },
      });
      expect(dep.statusCode, dep.body).toBe(201);
      const byDeposit = await t.inject({
        method: 'PUT',
        url: `/api/withdraw-requests/${first.json().id}/approve`,
        token: teamLead.token,
      });
      expect(byDeposit.statusCode).toBe(409);
      expect(byDeposit.json().code).toBe('withdraw_approver_deposit_recorded');
      const bySomeoneElse = await t.inject({
        method: 'PUT',
        url: `/api/withdraw-requests/${first.json().id}/approve`,
        token: superadmin.token,
      });
      expect(bySomeoneElse.statusCode).toBe(200);
    });
  });

  describe('5. deeply nested JSON', () => {
    it('answers 400 with a detail before login, never 500', async () => {
      const deep = `{"email": ${'['.repeat(10_000)}${']'.repeat(10_000)}, "password":"x"}`;
      const res = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: deep,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'json_too_deep' });
      expect(res.json().detail).toMatch(/32/);
      // Within the limit, the body is read and refused for what it is (a bad e-mail), not for its shape.
      const shallow = `{"email": ${'['.repeat(20)}${']'.repeat(20)}, "password":"x"}`;
      const ok = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: shallow,
      });
      expect(ok.statusCode).toBe(400);
      expect(ok.json().code).not.toBe('json_too_deep');
      // Brackets inside strings are text, not nesting.
      const texty = JSON.stringify({ email: `${'['.repeat(5000)}@example.com`, password: PASSWORD });
      const text = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: texty,
      });
      expect(text.json().code).not.toBe('json_too_deep');
    });

    it('walks any nesting without recursion', () => {
      let value: unknown = 'x\u0000';
      for (let i = 0; i < 100_000; i += 1) value = { a: value };
      expect(nulCharacterAt(value)).toBe(Array.from({ length: 100_000 }, () => 'a').join('.'));
      expect(jsonDeeperThan('{"a":"[[[[[[[[[[[[[["}', 2)).toBe(false);
      expect(jsonDeeperThan('{"a":"\\"[[[","b":[[1]]}', 2)).toBe(true);
    });
  });

  describe('7. a blocked account', () => {
    it('files no withdrawal request; requests filed before the block stay for staff', async () => {
      const trader = await registerClient(t, 'Blocked Trader');
      await fund(t, trader.accountId, 10_000);
      const before = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: trader.token,
        payload: card(30),
      });
      expect(before.statusCode).toBe(201);
      const block = await t.inject({
        method: 'POST',
        url: `/api/trading/admin/accounts/${trader.accountId}/block`,
        token: superadmin.token,
        payload: {},
      });
      expect(block.statusCode, block.body).toBe(200);
      const after = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: trader.token,
        payload: card(30),
      });
      expect(after.statusCode).toBe(409);
      expect(after.json().code).toBe('withdraw_account_blocked');
      expect(await balanceCents(t, trader.accountId)).toBe(7000);
      const reject = await t.inject({
        method: 'PUT',
        url: `/api/withdraw-requests/${before.json().id}/reject`,
        token: superadmin.token,
        payload: {},
      });
      expect(reject.statusCode, reject.body).toBe(200);
      expect(await balanceCents(t, trader.accountId)).toBe(10_000);
    });
  });
});
