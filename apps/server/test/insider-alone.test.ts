import { randomBytes } from 'node:crypto';
import { departmentOfRole, type Role } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/platform/auth/actor.js';
import { createDeposit, SEED_CREDITS } from '../src/modules/deposits/service.js';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, fund, registerClient } from './trading-helpers.js';

/**
 * Issue 20 findings 1–4, "one insider can still move money alone": each attack of the issue through the HTTP API,
 * with the production thresholds ($1,000 for manual credits and for payouts). Reconcile passes after every test.
 * One superadmin and one admin hold finance.approve here, so "nobody may approve" is a state a test can reach.
 */
const KEY = randomBytes(32).toString('base64');
const { year, month } = monthIn('UTC', new Date());
const EXPIRY = `${String(month).padStart(2, '0')}/${String((year + 2) % 100).padStart(2, '0')}`;

type Staff = { id: string; email: string; token: string };

describe.each(dbKinds())('one insider alone on %s', (kind) => {
  let t: TestApp;
  let superadmin: Staff;
  let admin: Staff;
  let retention: Staff;
  let teamLead: Staff;
  let sales: Staff;

  beforeAll(async () => {
    t = await createTestApp(kind, {
      CARD_ENCRYPTION_KEY: KEY,
      LOGIN_RATE_PER_MINUTE: '100000',
      MANUAL_CREDIT_SECOND_APPROVAL: '1000',
      WITHDRAWAL_SECOND_APPROVAL: '1000',
    });
    superadmin = await t.userWithToken('superadmin');
    admin = await t.userWithToken('admin');
    retention = await t.userWithToken('retention_manager');
    teamLead = await t.userWithToken('team_lead_retention');
    sales = await t.userWithToken('sales_manager');
  });
  afterAll(() => t.close());
  afterEach(() => expectLedgerConsistent(t));

  const actorOf = (user: Staff, role: Role): Actor => ({
    id: user.id,
    name: user.email,
    role,
    department: departmentOfRole(role),
    ip: null,
  });
  const assign = (clientId: number, manager: Staff) =>
    t.db.updateTable('clients').set({ assigned_manager: manager.id }).where('id', '=', clientId).execute();
  async function trader(name: string, manager: Staff) {
    const c = await registerClient(t, name);
    await assign(c.clientId, manager);
    return c;
  }
  const withdraw = (token: string, amount: number) =>
    t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token,
      payload: { amount, card_number: '4111111111111111', card_holder: 'INSIDER', card_expiry: EXPIRY },
    });
  async function filed(token: string, amount: number): Promise<number> {
    const res = await withdraw(token, amount);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  }
  const approve = (id: number, who: Staff) =>
    t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/approve`, token: who.token });
  const reject = (id: number, who: Staff) =>
    t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/reject`, token: who.token, payload: { reason: 'x' } });
  /** The request as `who` sees it in the list. */
  async function seenBy(who: Staff, clientId: number, id: number) {
    const res = await t.inject({
      method: 'GET',
      url: `/api/withdraw-requests?client_id=${clientId}`,
      token: who.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { id: number }[]).find((r) => r.id === id) as Record<string, unknown>;
  }
  const deposit = (who: Staff, clientId: number, amount: number) =>
    t.inject({ method: 'POST', url: '/api/deposits', token: who.token, payload: { client_id: clientId, amount } });
  const balanceChange = (who: Staff, accountId: number, amount: number) =>
    t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${accountId}/balance`,
      token: who.token,
      payload: { action: 'add', amount, reason: 'Бонус' },
    });
  const confirm = (id: number, who: Staff, amount: number) =>
    t.inject({ method: 'POST', url: `/api/manual-credits/${id}/confirm`, token: who.token, payload: { amount } });

  describe('1. a login created by staff', () => {
    /** A CRM lead in the manager's scope with deposits its manager recorded more than 30 days ago, and no login. */
    async function leadWithOldDeposits(manager: Staff, amounts: number[]) {
      const email = `lead.${randomBytes(4).toString('hex')}@example.com`;
      const created = await t.inject({
        method: 'POST',
        url: '/api/clients',
        token: superadmin.token,
        payload: {
          name: 'Lead',
          email,
          phone: `+7701${String(randomBytes(3).readUIntBE(0, 3) % 10_000_000).padStart(7, '0')}`,
          country: 'KZ',
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const clientId = created.json().id as number;
      await assign(clientId, manager);
      await t.db.transaction().execute(async (trx) => {
        for (const amount of amounts) {
          await createDeposit(
            trx,
            actorOf(manager, 'retention_manager'),
            { client_id: clientId, amount },
            SEED_CREDITS,
          );
        }
      });
      await t.db
        .updateTable('deposits')
        .set({ created_at: sql`now() - interval '40 days'` })
        .where('client_id', '=', clientId)
        .execute();
      return clientId;
    }

    it("the lead's manager creates the lead's login to their own e-mail: no money leaves on their word alone", async () => {
      const clientId = await leadWithOldDeposits(retention, [1000, 1500, 500]);
      const email = `rm.alias.${randomBytes(3).toString('hex')}@evil.test`;
      const reg = await t.inject({
        method: 'POST',
        url: `/api/clients/${clientId}/register-user`,
        token: retention.token,
        payload: { email, password: 'evilpass123', name: 'x' },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      // Issue 22: the address is one its creator controls, so its verification link proves nothing more; opened here.
      await t.db.updateTable('users').set({ email_verified_at: new Date() }).where('email', '=', email).execute();
      const accountId = reg.json().trading_account_id as number;
      // The recorded deposits were not credited by the registration.
      expect(await balanceCents(t, accountId)).toBe(0);
      expect(reg.json().identity_verified).toBe(false);
      const alias = await t.login(email, 'evilpass123');
      const refused = await withdraw(alias, 1000);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().code).toBe('withdraw_identity_unverified');

      // The manager cannot confirm it; a finance approver who did not create the login does, and the money arrives.
      const verify = (who: Staff) =>
        t.inject({ method: 'POST', url: `/api/clients/${clientId}/verify-identity`, token: who.token });
      expect((await verify(retention)).statusCode).toBe(403);
      const verified = await verify(admin);
      expect(verified.statusCode, verified.body).toBe(200);
      expect(verified.json()).toMatchObject({ credited_deposits: 3, credited_amount: 3000 });

      const ids = [await filed(alias, 1000), await filed(alias, 1000), await filed(alias, 1000)];
      for (const id of ids) {
        const res = await approve(id, retention);
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().code).toBe('withdraw_approver_login_created');
        expect(res.json().detail).toMatch(/создали логин/);
        expect(await seenBy(retention, clientId, id)).toMatchObject({
          status: 'pending',
          can_approve: false,
          approve_blocked: 'withdraw_approver_login_created',
          can_reject: true,
        });
      }
      // The admin confirmed the identity (which credited the money): barred as well.
      expect((await approve(ids[0]!, admin)).json().code).toBe('withdraw_approver_identity_verified');

      // The superadmin, who did neither, pays $1,000 in one step. The next $1,000 that day takes two people, and the
      // superadmin is the only approver left for the second: the team lead gives the first.
      expect((await approve(ids[0]!, superadmin)).json().status).toBe('approved');
      expect(await seenBy(superadmin, clientId, ids[1]!)).toMatchObject({
        needs_second_approval: true,
        can_approve: false,
        approve_blocked: 'withdraw_no_second_approver',
        no_eligible_approver: false,
      });
      expect((await approve(ids[1]!, superadmin)).json().code).toBe('withdraw_no_second_approver');
      expect((await approve(ids[1]!, teamLead)).json().status).toBe('awaiting_second_approval');
      expect((await approve(ids[1]!, superadmin)).json().status).toBe('approved');
      // Rejecting stays open to the manager: it gives the money back.
      expect((await reject(ids[2]!, retention)).statusCode).toBe(200);
      expect(await balanceCents(t, accountId)).toBe(100_000);
      const paid = await t.db
        .selectFrom('withdraw_requests')
        .select(['processed_by', 'first_approved_by'])
        .where('client_id', '=', clientId)
        .where('status', '=', 'approved')
        .orderBy('id')
        .execute();
      expect(paid).toEqual([
        { processed_by: superadmin.id, first_approved_by: null },
        { processed_by: superadmin.id, first_approved_by: teamLead.id },
      ]);
    });

    it('a finance approver who creates a login cannot confirm it, nor approve its payouts for 30 days', async () => {
      const clientId = await leadWithOldDeposits(retention, [800]);
      const email = `login.${randomBytes(3).toString('hex')}@test.local`;
      const reg = await t.inject({
        method: 'POST',
        url: `/api/clients/${clientId}/register-user`,
        token: admin.token,
        payload: { email, password: 'secret-123', name: 'Lead' },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      // Issue 22: the address is one its creator controls, so its verification link proves nothing more; opened here.
      await t.db.updateTable('users').set({ email_verified_at: new Date() }).where('email', '=', email).execute();
      const own = await t.inject({
        method: 'POST',
        url: `/api/clients/${clientId}/verify-identity`,
        token: admin.token,
      });
      expect(own.statusCode).toBe(409);
      expect(own.json().code).toBe('identity_verifier_created_login');
      const audited = (await t.auditRows('client.register_user')).filter((r) => r.entity_id === String(clientId));
      expect(audited[0]).toMatchObject({
        actor_id: admin.id,
        after: expect.objectContaining({ identity_verified: false }),
      });
      const other = await t.inject({
        method: 'POST',
        url: `/api/clients/${clientId}/verify-identity`,
        token: superadmin.token,
      });
      expect(other.statusCode, other.body).toBe(200);
      const id = await filed(await t.login(email, 'secret-123'), 500);
      const res = await approve(id, admin);
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('withdraw_approver_login_created');
      // Both approvers touched it; the client's manager, who did not, may approve a one-step payout.
      expect(await seenBy(retention, clientId, id)).toMatchObject({ can_approve: true, no_eligible_approver: false });
      expect((await approve(id, retention)).json().status).toBe('approved');
    });
  });

  describe('2. a pending credit is bound to its amount', () => {
    it('the author raises a deposit after the second person looked: the confirmation never credits 95,000', async () => {
      const c = await trader('Bound Credit', retention);
      const made = await deposit(retention, c.clientId, 1500);
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json()).toMatchObject({ credited: false, credit_status: 'pending' });
      const creditId = made.json().credit_id as number;
      const seen = await t.inject({
        method: 'GET',
        url: `/api/manual-credits?status=pending&client_id=${c.clientId}`,
        token: admin.token,
      });
      expect(seen.json().items).toEqual([expect.objectContaining({ id: creditId, amount: 1500 })]);

      const edited = await t.inject({
        method: 'PUT',
        url: `/api/deposits/${made.json().id}`,
        token: retention.token,
        payload: { amount: 95000 },
      });
      expect(edited.statusCode, edited.body).toBe(200);

      // The confirmer confirms what they saw: refused, and nothing moves.
      const stale = await confirm(creditId, admin, 1500);
      expect(stale.statusCode, stale.body).toBe(409);
      expect(await balanceCents(t, c.accountId)).toBe(0);
      expect(stale.json().code).toBe('credit_amount_changed');
      expect(stale.json().detail).toContain('$95,000.00');
      const newId = edited.json().credit_id as number;
      expect(newId).not.toBe(creditId);
      expect(edited.json()).toMatchObject({ credited: false, credit_status: 'pending' });
      const noAmount = await t.inject({
        method: 'POST',
        url: `/api/manual-credits/${newId}/confirm`,
        token: admin.token,
      });
      expect(noAmount.statusCode).toBe(400);
      const wrong = await confirm(newId, admin, 1500);
      expect(wrong.statusCode).toBe(409);
      expect(wrong.json().code).toBe('credit_amount_changed');
      expect(await balanceCents(t, c.accountId)).toBe(0);

      // The old credit was cancelled by the edit, audited, and names the one that replaced it.
      const cancelled = (await t.auditRows('manual_credit.cancel')).filter((r) => r.entity_id === String(creditId));
      expect(cancelled).toEqual([
        expect.objectContaining({
          actor_id: retention.id,
          after: { status: 'cancelled', reason: 'deposit amount edited' },
        }),
      ]);
      const history = await t.inject({
        method: 'GET',
        url: `/api/manual-credits?status=cancelled&client_id=${c.clientId}`,
        token: admin.token,
      });
      expect(history.json().items).toEqual([expect.objectContaining({ id: creditId, replaced_by: newId })]);

      // Seen and named, the new amount is what a confirmation posts.
      const ok = await confirm(newId, admin, 95000);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(await balanceCents(t, c.accountId)).toBe(9_500_000);
    });

    it('a lowered amount also asks anew; the confirmation posts exactly it', async () => {
      const c = await trader('Lowered Credit', retention);
      const made = await deposit(retention, c.clientId, 1500);
      const lowered = await t.inject({
        method: 'PUT',
        url: `/api/deposits/${made.json().id}`,
        token: retention.token,
        payload: { amount: 800 },
      });
      expect(lowered.json()).toMatchObject({ credited: false, credit_status: 'pending' });
      expect((await confirm(made.json().credit_id, admin, 1500)).json().code).toBe('credit_amount_changed');
      expect((await confirm(lowered.json().credit_id, admin, 800)).statusCode).toBe(200);
      expect(await balanceCents(t, c.accountId)).toBe(80_000);
    });
  });

  describe('3. thresholds over 24 hours, not single operations', () => {
    it('three $600 raises by one manager in a day: at most $1,000 is credited before a second person confirms', async () => {
      const c = await trader('Split Raises', retention);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await balanceChange(retention, c.accountId, 600));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 202, 202]);
      expect(await balanceCents(t, c.accountId)).toBe(60_000);
      // Whoever the authors: the team lead's $400 fits under $1,000, a cent more waits.
      expect((await balanceChange(teamLead, c.accountId, 400)).statusCode).toBe(200);
      expect((await balanceChange(teamLead, c.accountId, 0.01)).statusCode).toBe(202);
      expect(await balanceCents(t, c.accountId)).toBe(100_000);
      // A second person's confirmation moves the rest.
      const ok = await confirm(answers[1]!.json().credit_id, admin, 600);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(await balanceCents(t, c.accountId)).toBe(160_000);
    });

    it('three $600 deposits by one sales manager in a day: the second and third wait', async () => {
      const c = await trader('Split Deposits', sales);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await deposit(sales, c.clientId, 600));
      expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201]);
      expect(answers.map((r) => [r.json().credited, r.json().credit_status])).toEqual([
        [true, null],
        [false, 'pending'],
        [false, 'pending'],
      ]);
      expect(await balanceCents(t, c.accountId)).toBe(60_000);
    });

    it('two $600 raises at the same moment by two people: one is credited, the other waits', async () => {
      const c = await trader('Raced Raises', retention);
      const both = await Promise.all([
        balanceChange(retention, c.accountId, 600),
        balanceChange(teamLead, c.accountId, 600),
      ]);
      expect(both.map((r) => r.statusCode).sort()).toEqual([200, 202]);
      expect(await balanceCents(t, c.accountId)).toBe(60_000);
    });

    it('$600 payouts one by one: past $1,000 of one-step approvals in 24 hours the next takes a second person', async () => {
      const c = await trader('Split Payouts', retention);
      await fund(t, c.accountId, 500_000);
      const ids = [await filed(c.token, 600), await filed(c.token, 600), await filed(c.token, 600)];
      expect((await approve(ids[0]!, admin)).json().status).toBe('approved');
      expect(await seenBy(admin, c.clientId, ids[1]!)).toMatchObject({ needs_second_approval: true });
      expect((await approve(ids[1]!, retention)).json().status).toBe('awaiting_second_approval');
      expect((await approve(ids[1]!, superadmin)).json().status).toBe('approved');
      // A second person's approval does not use up the one-step $1,000; the first $600 still does.
      expect((await approve(ids[2]!, admin)).json().status).toBe('awaiting_second_approval');

      // A day later the window is clear again.
      await t.db
        .updateTable('withdraw_requests')
        .set({ processed_at: sql`now() - interval '25 hours'` })
        .where('id', '=', ids[0]!)
        .execute();
      const next = await filed(c.token, 600);
      expect(await seenBy(admin, c.clientId, next)).toMatchObject({ needs_second_approval: false });
      expect((await approve(next, admin)).json().status).toBe('approved');
      expect((await reject(ids[2]!, admin)).statusCode).toBe(200);
    });

    it('two $600 one-step approvals at the same moment: one is approved, the other waits', async () => {
      const c = await trader('Raced Payouts', retention);
      await fund(t, c.accountId, 200_000);
      const a = await filed(c.token, 600);
      const b = await filed(c.token, 600);
      const both = await Promise.all([approve(a, admin), approve(b, superadmin)]);
      expect(both.map((r) => r.json().status).sort()).toEqual(['approved', 'awaiting_second_approval']);
    });
  });

  describe('4. requests that can be finished, or say why not', () => {
    it('a request nobody may approve says so to every viewer, offers no approval, and is rejected with its hold released', async () => {
      const c = await trader('Nobody Left', retention);
      // Both finance approvers recorded a deposit of this client.
      expect((await deposit(superadmin, c.clientId, 700)).json().credited).toBe(true);
      expect((await deposit(admin, c.clientId, 300)).json().credited).toBe(true);
      await fund(t, c.accountId, 100_000);
      const id = await filed(c.token, 1500);
      const blocked = {
        [superadmin.id]: 'withdraw_approver_deposit_recorded',
        [admin.id]: 'withdraw_approver_deposit_recorded',
        // The manager could give a first approval, but nobody the second.
        [retention.id]: 'withdraw_no_second_approver',
      };
      for (const who of [superadmin, admin, retention]) {
        expect(await seenBy(who, c.clientId, id)).toMatchObject({
          needs_second_approval: true,
          can_approve: false,
          approve_blocked: blocked[who.id],
          can_reject: true,
          no_eligible_approver: true,
        });
        const res = await approve(id, who);
        expect(res.statusCode).toBe(409);
        expect(res.json().code).toBe(blocked[who.id]);
      }
      expect((await approve(id, retention)).json().detail).toContain('нужен ещё один сотрудник');
      const rejected = await reject(id, admin);
      expect(rejected.statusCode, rejected.body).toBe(200);
      expect(rejected.json()).toMatchObject({
        status: 'rejected',
        balance: 2000,
        can_approve: false,
        can_reject: false,
      });
      expect(await balanceCents(t, c.accountId)).toBe(200_000);
    });

    it("with one approver free, the client's manager gives the first approval and that approver the second", async () => {
      const c = await trader('One Free', retention);
      expect((await deposit(admin, c.clientId, 500)).json().credited).toBe(true);
      await fund(t, c.accountId, 150_000);
      const id = await filed(c.token, 1500);
      // The superadmin's first approval would leave nobody for the second.
      expect(await seenBy(superadmin, c.clientId, id)).toMatchObject({
        can_approve: false,
        approve_blocked: 'withdraw_no_second_approver',
        no_eligible_approver: false,
      });
      expect(await seenBy(retention, c.clientId, id)).toMatchObject({ can_approve: true, approve_blocked: null });
      expect((await approve(id, retention)).json().status).toBe('awaiting_second_approval');
      expect(await seenBy(retention, c.clientId, id)).toMatchObject({
        can_approve: false,
        approve_blocked: 'withdraw_second_approver_same',
      });
      expect(await seenBy(admin, c.clientId, id)).toMatchObject({
        can_approve: false,
        approve_blocked: 'withdraw_approver_deposit_recorded',
      });
      expect(await seenBy(superadmin, c.clientId, id)).toMatchObject({
        can_approve: true,
        no_eligible_approver: false,
      });
      const done = await approve(id, superadmin);
      expect(done.json()).toMatchObject({ status: 'approved', can_approve: false, can_reject: false });
    });

    it('a team lead without finance.approve is told so on a request awaiting its second approval', async () => {
      const c = await trader('Second Step', retention);
      await fund(t, c.accountId, 200_000);
      const id = await filed(c.token, 1500);
      expect((await approve(id, admin)).json().status).toBe('awaiting_second_approval');
      expect(await seenBy(teamLead, c.clientId, id)).toMatchObject({
        can_approve: false,
        approve_blocked: 'withdraw_second_approval_forbidden',
        can_reject: true,
      });
      expect((await approve(id, teamLead)).statusCode).toBe(403);
      expect((await approve(id, superadmin)).json().status).toBe('approved');
    });

    it('the staff page counts the finance approvers', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/users', token: superadmin.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().summary.finance_approvers).toBe(2);
    });
  });
});
