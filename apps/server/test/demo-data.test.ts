import { randomBytes } from 'node:crypto';
import { CLIENT_STATUSES, normalisePhone, settleTrade } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../src/modules/ledger/service.js';
import { SecretsVault } from '../src/platform/crypto/vault.js';
import { DEMO_LEAD_COUNT } from '../src/seed/demo-leads.js';
import { DEMO_CROWD_SIZE, demoAccounts, seedDemoData } from '../src/seed/demo.js';
import { computeRiskFigure } from '../src/modules/site-content/risk.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const DEMO_CLIENTS = ['client@demo.local', 'client2@demo.local', 'client3@demo.local'];
const MANAGER_ROLES = [
  'sales_manager',
  'retention_manager',
  'manager',
  'team_lead_sales',
  'team_lead_retention',
] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(dbKinds())('the demo traders on %s', (kind) => {
  let t: TestApp;
  const now = new Date();

  const cardKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    // The production thresholds of D20 ($1,000), so the four-eyes paths of the demo are the ones a new user meets.
    t = await createTestApp(kind, {
      LOGIN_RATE_PER_MINUTE: '100000',
      CARD_ENCRYPTION_KEY: cardKey,
      WITHDRAWAL_SECOND_APPROVAL: '1000',
      MANUAL_CREDIT_SECOND_APPROVAL: '1000',
    });
    await seedDemoData(t.db, new SecretsVault({ key: cardKey, dataDir: '/nonexistent' }), {
      durations: [300, 900, 1800, 3600, 14400],
      now,
      priceLogSigner: t.app.engine.priceLogSigner,
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('lists three demo clients, who log in and see a trading account whose balance the ledger explains', async () => {
    expect(
      demoAccounts()
        .filter((a) => a.role === 'client')
        .map((a) => a.email),
    ).toEqual(DEMO_CLIENTS);
    for (const email of DEMO_CLIENTS) {
      const token = await t.login(email, 'demo12345');
      const res = await t.inject({ method: 'GET', url: '/api/trading/balance', token });
      expect(res.statusCode, email).toBe(200);
      const user = await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      const account = await t.db
        .selectFrom('trading_accounts')
        .innerJoin('clients', 'clients.id', 'trading_accounts.client_id')
        .select(['trading_accounts.id', 'trading_accounts.balance_cents', 'clients.assigned_manager'])
        .where('trading_accounts.user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(account.assigned_manager, email).not.toBeNull();
      expect(res.json().balance).toBe(Number(account.balance_cents) / 100);
    }
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('lists one account per staff role plus the demo clients, the extra staff and traders unlisted but able to sign in', async () => {
    const accounts = demoAccounts();
    const staff = accounts.filter((a) => a.role !== 'client').map((a) => a.role);
    expect(new Set(staff).size).toBe(staff.length);
    expect(accounts.map((a) => a.email)).not.toContain('sales.manager.2@demo.local');
    expect(accounts.map((a) => a.email)).not.toContain('client4@demo.local');
    for (const email of ['sales.manager.2@demo.local', 'retention.manager.2@demo.local', 'client4@demo.local'])
      expect(await t.login(email, 'demo12345'), email).toBeTruthy();
  });

  it('seeds a few hundred leads of every status, country and age, spread over the managers with some unassigned', async () => {
    const clients = await t.db
      .selectFrom('clients')
      .leftJoin('users', 'users.id', 'clients.assigned_manager')
      .select([
        'clients.id',
        'clients.name',
        'clients.email',
        'clients.phone',
        'clients.country',
        'clients.status',
        'clients.source',
        'clients.campaign',
        'clients.created_at',
        'clients.user_id',
        'users.email as manager_email',
        'users.role as manager_role',
      ])
      .execute();
    expect(clients.length).toBeGreaterThanOrEqual(DEMO_LEAD_COUNT);
    expect(clients.length).toBeLessThanOrEqual(DEMO_LEAD_COUNT + 20 + DEMO_CROWD_SIZE);
    expect(new Set(clients.map((c) => c.email)).size).toBe(clients.length);
    expect(new Set(clients.map((c) => c.phone)).size).toBe(clients.length);
    // D17: each phone is stored as E.164 too, as add-client and the import store it.
    const e164 = await t.db.selectFrom('clients').select(['phone', 'phone_e164']).execute();
    expect(e164.filter((c) => c.phone_e164 === null || c.phone_e164 !== normalisePhone(c.phone))).toEqual([]);

    // Every demo manager and team lead, and the extra managers, carry clients; some wait unassigned.
    const managers = await t.db
      .selectFrom('users')
      .select(['id', 'email', 'role'])
      .where('role', 'in', MANAGER_ROLES)
      .execute();
    expect(managers.length).toBe(MANAGER_ROLES.length + 2);
    for (const m of managers) {
      const own = clients.filter((c) => c.manager_email === m.email).length;
      expect(own, m.email).toBeGreaterThanOrEqual(m.role.startsWith('team_lead') ? 5 : 15);
    }
    const unassigned = clients.filter((c) => c.manager_email === null).length;
    expect(unassigned).toBeGreaterThanOrEqual(10);
    expect(unassigned).toBeLessThanOrEqual(clients.length * 0.25);

    // Every status of §4, none taking over: new and ftd the largest, fake and under_18 rare.
    const byStatus = new Map<string, number>();
    for (const c of clients) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + 1);
    expect([...byStatus.keys()].sort()).toEqual([...CLIENT_STATUSES].sort());
    for (const [status, n] of byStatus) expect(n, status).toBeLessThan(clients.length * 0.35);
    expect(byStatus.get('ftd')!).toBeGreaterThanOrEqual(clients.length * 0.15);
    expect(byStatus.get('fake')!).toBeLessThan(byStatus.get('in_progress')!);

    // Countries with phones of their numbering; names in Cyrillic and Latin; several sources and campaigns.
    const prefixes: Record<string, RegExp> = {
      Россия: /^\+79\d{9}$/,
      Казахстан: /^\+77\d{9}$/,
      Germany: /^\+491[5-7]\d{8,9}$/,
      'United Kingdom': /^\+447\d{9}$/,
      Беларусь: /^\+375(29|33|44)\d{7}$/,
    };
    for (const [country, re] of Object.entries(prefixes)) {
      const of = clients.filter((c) => c.country === country && c.user_id === null);
      expect(of.length, country).toBeGreaterThanOrEqual(country === 'Беларусь' ? 3 : 20);
      for (const c of of) expect(c.phone, `${c.name} (${country})`).toMatch(re);
    }
    expect(clients.filter((c) => /^[А-ЯЁӘҒҚҢӨҰҮҺІ]/u.test(c.name)).length).toBeGreaterThan(clients.length / 2);
    expect(clients.filter((c) => /^[A-Z]/.test(c.name)).length).toBeGreaterThan(20);
    expect(new Set(clients.map((c) => c.source)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(clients.map((c) => c.campaign)).size).toBeGreaterThanOrEqual(8);

    // Created over the last ~90 days, more of them recently.
    const ages = clients.map((c) => (now.getTime() - new Date(c.created_at).getTime()) / DAY_MS);
    expect(Math.max(...ages)).toBeGreaterThan(60);
    expect(Math.max(...ages)).toBeLessThanOrEqual(91);
    expect(ages.filter((a) => a <= 30).length).toBeGreaterThan(ages.filter((a) => a > 60).length);
  });

  it('gives the leads comments, some pinned, and reminders ahead, overdue, done and cancelled', async () => {
    const comments = await t.db
      .selectFrom('comments')
      .innerJoin('clients', 'clients.id', 'comments.client_id')
      .select([
        'comments.client_id',
        'comments.is_pinned',
        'comments.created_at',
        'clients.created_at as client_created',
        'clients.last_comment_date',
      ])
      .execute();
    expect(comments.length).toBeGreaterThanOrEqual(300);
    expect(new Set(comments.map((c) => c.client_id)).size).toBeGreaterThanOrEqual(150);
    expect(comments.filter((c) => c.is_pinned).length).toBeGreaterThanOrEqual(15);
    for (const c of comments) {
      expect(new Date(c.created_at).getTime()).toBeGreaterThanOrEqual(new Date(c.client_created).getTime());
      expect(new Date(c.created_at).getTime()).toBeLessThanOrEqual(new Date(c.last_comment_date!).getTime());
    }
    const reminders = await t.db.selectFrom('reminders').select(['status', 'scheduled_time', 'created_by']).execute();
    const at = (r: (typeof reminders)[number]) => new Date(r.scheduled_time).getTime();
    const ahead = reminders.filter((r) => r.status === 'pending' && at(r) > now.getTime());
    const overdue = reminders.filter((r) => r.status === 'pending' && at(r) <= now.getTime());
    expect(ahead.length).toBeGreaterThanOrEqual(30);
    expect(ahead.every((r) => at(r) <= now.getTime() + 8 * DAY_MS)).toBe(true);
    expect(overdue.length).toBeGreaterThanOrEqual(5);
    expect(reminders.filter((r) => r.status === 'completed').length).toBeGreaterThanOrEqual(10);
    expect(reminders.filter((r) => r.status === 'cancelled').length).toBeGreaterThanOrEqual(5);
    // Their authors are several managers, and no pending one is due within the notification windows of the seed.
    expect(new Set(reminders.map((r) => r.created_by)).size).toBeGreaterThanOrEqual(5);
    expect(
      reminders.filter((r) => r.status === 'pending' && Math.abs(at(r) - now.getTime()) < 2 * 60 * 60_000),
    ).toEqual([]);
  });

  it("records the leads' deposits through the deposits service: uncredited, the earliest ftd, the totals agree", async () => {
    const deposits = await t.db
      .selectFrom('deposits')
      .innerJoin('clients', 'clients.id', 'deposits.client_id')
      .select([
        'deposits.client_id',
        'deposits.amount_cents',
        'deposits.deposit_type',
        'deposits.created_at',
        'deposits.credited_at',
        'deposits.created_by',
        'clients.created_at as client_created',
        'clients.user_id',
        'clients.ftd',
        'clients.total_deposits_cents',
        'clients.assigned_manager',
      ])
      .where('deposits.deleted_at', 'is', null)
      .orderBy('deposits.created_at')
      .orderBy('deposits.id')
      .execute();
    const leads = deposits.filter((d) => d.user_id === null);
    const clientsWithDeposits = new Set(leads.map((d) => d.client_id));
    expect(clientsWithDeposits.size).toBeGreaterThanOrEqual(50);
    expect(leads.every((d) => d.credited_at === null)).toBe(true);
    // Recorded by the lead's manager, with the manager's own scope, after the lead came in.
    expect(leads.filter((d) => d.created_by === d.assigned_manager).length).toBeGreaterThanOrEqual(leads.length - 5);
    for (const id of clientsWithDeposits) {
      const own = leads.filter((d) => d.client_id === id);
      expect(
        own.map((d) => d.deposit_type),
        `client ${id}`,
      ).toEqual(own.map((_, i) => (i === 0 ? 'ftd' : 'reload')));
      expect(own[0]!.ftd).toBe(true);
      expect(Number(own[0]!.total_deposits_cents)).toBe(own.reduce((s, d) => s + Number(d.amount_cents), 0));
      for (const d of own)
        expect(new Date(d.created_at).getTime()).toBeGreaterThanOrEqual(new Date(d.client_created).getTime());
    }
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('has withdrawal requests of every status, their holds and releases in the ledger', async () => {
    const requests = await t.db.selectFrom('withdraw_requests').select(['id', 'status', 'client_id']).execute();
    expect(requests.length).toBeGreaterThanOrEqual(10);
    const count = (s: string) => requests.filter((r) => r.status === s).length;
    expect(count('pending')).toBeGreaterThanOrEqual(4);
    expect(count('approved')).toBeGreaterThanOrEqual(3);
    expect(count('rejected')).toBeGreaterThanOrEqual(2);
    expect(new Set(requests.map((r) => r.client_id)).size).toBeGreaterThanOrEqual(5);
    const entries = await t.db.selectFrom('ledger_entries').select(['kind', 'reference']).execute();
    for (const r of requests) {
      expect(entries.some((e) => e.reference === `withdrawal:${r.id}:hold` && e.kind === 'withdrawal_hold')).toBe(true);
      expect(entries.some((e) => e.reference === `withdrawal:${r.id}:release`)).toBe(r.status === 'rejected');
    }
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('a manager sees exactly their own clients through GET /api/clients, a team lead their department', async () => {
    const counted = async (token: string) => {
      const ids: number[] = [];
      for (let page = 1; ; page++) {
        const res = await t.inject({ method: 'GET', url: `/api/clients?per_page=100&page=${page}`, token });
        expect(res.statusCode).toBe(200);
        const body = res.json() as { total: number; items: { id: number; assigned_manager: string | null }[] };
        ids.push(...body.items.map((c) => c.id));
        if (body.items.length < 100) return { ids, total: body.total, body };
      }
    };
    for (const email of ['sales.manager@demo.local', 'sales.manager.2@demo.local', 'retention.manager@demo.local']) {
      const user = await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      const expected = await t.db.selectFrom('clients').select('id').where('assigned_manager', '=', user.id).execute();
      const seen = await counted(await t.login(email, 'demo12345'));
      expect(seen.total, email).toBe(expected.length);
      expect(
        seen.ids.sort((a, b) => a - b),
        email,
      ).toEqual(expected.map((c) => Number(c.id)).sort((a, b) => a - b));
    }
    const all = await t.db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const lead = await counted(await t.login('team.lead.sales@demo.local', 'demo12345'));
    const retentionStaff = await t.db.selectFrom('users').select('id').where('department', '=', 'retention').execute();
    const retained = await t.db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(
        'assigned_manager',
        'in',
        retentionStaff.map((u) => u.id),
      )
      .executeTakeFirstOrThrow();
    expect(lead.total).toBe(Number(all.n) - Number(retained.n));
    expect(lead.total).toBeLessThan(Number(all.n));
  });

  it('funds the new traders only by recorded deposits', async () => {
    for (const email of DEMO_CLIENTS.slice(1)) {
      const entries = await t.db
        .selectFrom('ledger_entries')
        .innerJoin('trading_accounts', 'trading_accounts.id', 'ledger_entries.account_id')
        .innerJoin('users', 'users.id', 'trading_accounts.user_id')
        .select(['ledger_entries.kind', 'ledger_entries.amount_cents'])
        .where('users.email', '=', email)
        .execute();
      const credits = entries.filter(
        (e) => Number(e.amount_cents) > 0 && !['trade_payout', 'trade_refund'].includes(e.kind),
      );
      expect(credits.length, email).toBeGreaterThan(0);
      expect(
        credits.every((e) => e.kind === 'deposit'),
        email,
      ).toBe(true);
      expect(
        entries.some((e) => e.kind === 'trade_stake'),
        email,
      ).toBe(true);
    }
  });

  it('has settled trades at stored ticks, with the outcome of the D1 rule, and none active that expired', async () => {
    const trades = await t.db.selectFrom('trades').selectAll().orderBy('id').execute();
    const settled = trades.filter((tr) => tr.status !== 'active');
    expect(settled.length).toBeGreaterThanOrEqual(6);
    const outcomes = new Set(settled.map((tr) => tr.status));
    expect(outcomes).toContain('won');
    expect(outcomes).toContain('lost');
    for (const o of outcomes) expect(['won', 'lost', 'tie']).toContain(o);
    for (const tr of trades.filter((x) => x.status === 'active'))
      expect(new Date(tr.expires_at).getTime()).toBeGreaterThan(now.getTime());
    for (const tr of settled) {
      const strike = await t.db
        .selectFrom('price_ticks')
        .select('price')
        .where('symbol', '=', tr.asset)
        .where('at', '=', new Date(tr.strike_at))
        .execute();
      expect(
        strike.map((s) => s.price),
        `strike of trade ${tr.id}`,
      ).toContain(tr.strike_price);
      // The close is the last stored tick at or before expiry.
      const close = await t.db
        .selectFrom('price_ticks')
        .select(['price', 'at'])
        .where('symbol', '=', tr.asset)
        .where('at', '<=', new Date(tr.expires_at))
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect(close.price, `close of trade ${tr.id}`).toBe(tr.close_price);
      expect(new Date(close.at).getTime()).toBe(new Date(tr.close_at!).getTime());
      expect(new Date(tr.strike_at).getTime()).toBe(new Date(tr.created_at).getTime());
      expect(new Date(tr.expires_at).getTime()).toBeLessThanOrEqual(now.getTime());
      const rule = settleTrade({
        direction: tr.direction,
        strikePrice: tr.strike_price,
        closePrice: tr.close_price!,
        amountCents: Number(tr.amount_cents),
        payoutPercentage: tr.payout_percentage,
      });
      expect([tr.status, Number(tr.profit_cents)], `trade ${tr.id}`).toEqual([rule.status, rule.profitCents]);
    }
  });

  it("records the traders' deposits the way a desk does: by each client's own manager, never a finance approver", async () => {
    const rows = await t.db
      .selectFrom('deposits')
      .innerJoin('clients', 'clients.id', 'deposits.client_id')
      .innerJoin('users', 'users.id', 'deposits.created_by')
      .select(['deposits.created_by', 'clients.assigned_manager', 'clients.user_id', 'users.role'])
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.role === 'superadmin' || r.role === 'admin')).toEqual([]);
    const traders = rows.filter((r) => r.user_id !== null);
    expect(traders.length).toBeGreaterThanOrEqual(20);
    expect(traders.every((r) => r.created_by === r.assigned_manager)).toBe(true);
  });

  it("issue 20 finding 4: client3's $1,500 withdrawal is finished by two demo staff, the admin first, the superadmin second", async () => {
    const client = await t.login('client3@demo.local', 'demo12345');
    const balance = (await t.inject({ method: 'GET', url: '/api/trading/balance', token: client })).json().balance;
    expect(balance).toBeGreaterThanOrEqual(1500);
    const { year, month } = { year: now.getUTCFullYear() + 2, month: now.getUTCMonth() + 1 };
    const filed = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: client,
      payload: {
        amount: 1500,
        card_number: '4111111111111111',
        card_holder: 'DEMO TRADER THREE',
        card_expiry: `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`,
      },
    });
    expect(filed.statusCode, filed.body).toBe(201);
    const id = filed.json().id as number;
    const admin = await t.login('admin@demo.local', 'demo12345');
    const superadmin = await t.login('superadmin@demo.local', 'demo12345');
    const first = await t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/approve`, token: admin });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().status).toBe('awaiting_second_approval');
    const second = await t.inject({ method: 'PUT', url: `/api/withdraw-requests/${id}/approve`, token: superadmin });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ status: 'approved', can_approve: false, can_reject: false });
    // Every open request of the demo can be finished by its staff.
    const open = await t.inject({
      method: 'GET',
      url: '/api/withdraw-requests?status=pending&per_page=200',
      token: superadmin,
    });
    const items = open.json().items as { no_eligible_approver: boolean }[];
    expect(items.length).toBeGreaterThanOrEqual(4);
    expect(new Set(items.map((r) => r.no_eligible_approver))).toEqual(new Set([false]));
    expect(await reconcile(t.db)).toEqual([]);
  });

  it("issue 20 finding 3: the demo's deposits lie outside the 24-hour window, so a manager's small credit needs nobody else", async () => {
    // Right after seeding, client3's own manager records a $100 deposit ($2,000 recorded by them before): credited now.
    const client3 = await t.db
      .selectFrom('clients')
      .select(['id'])
      .where('email', '=', 'client3@demo.local')
      .executeTakeFirstOrThrow();
    const manager = await t.login('sales.manager@demo.local', 'demo12345');
    const deposit = await t.inject({
      method: 'POST',
      url: '/api/deposits',
      token: manager,
      payload: { client_id: Number(client3.id), amount: 100, notes: 'Пополнение по звонку' },
    });
    expect(deposit.statusCode, deposit.body).toBe(201);
    expect(deposit.json()).toMatchObject({ credited: true, credit_id: null, credit_status: null });
    expect(await reconcile(t.db)).toEqual([]);

    // Each seeded credited deposit and its ledger entry carry one time, past the window, after the client came in.
    const credited = await t.db
      .selectFrom('deposits')
      .innerJoin('clients', 'clients.id', 'deposits.client_id')
      .innerJoin('ledger_entries as e', (join) =>
        join.on('e.reference', '=', sql<string>`'deposit:' || deposits.id::text`),
      )
      .select([
        'deposits.created_at',
        'deposits.credited_at',
        'e.created_at as entry_at',
        'clients.created_at as joined',
      ])
      .where('deposits.id', '<>', deposit.json().id)
      .execute();
    expect(credited.length).toBeGreaterThanOrEqual(20);
    for (const d of credited) {
      expect(new Date(d.entry_at).getTime()).toBe(new Date(d.credited_at!).getTime());
      expect(new Date(d.entry_at).getTime()).toBe(new Date(d.created_at).getTime());
      expect(new Date(d.created_at).getTime()).toBeGreaterThanOrEqual(new Date(d.joined).getTime());
    }
    const recent = await t.db
      .selectFrom('deposits')
      .select('id')
      .where('created_by', 'is not', null)
      .where('created_at', '>=', new Date(now.getTime() - DAY_MS))
      .where('id', '<>', deposit.json().id)
      .execute();
    expect(recent).toEqual([]);
  });

  it('issue 20 finding 1: a login the retention manager makes for a demo lead credits nothing and pays nothing on their word', async () => {
    const rm = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'retention.manager@demo.local')
      .executeTakeFirstOrThrow();
    // A lead of theirs without a login whose deposits were all recorded more than 30 days ago.
    const lead = await t.db
      .selectFrom('clients')
      .innerJoin('deposits', 'deposits.client_id', 'clients.id')
      .select(['clients.id', (eb) => eb.fn.sum<string>('deposits.amount_cents').as('cents')])
      .where('clients.assigned_manager', '=', rm.id)
      .where('clients.user_id', 'is', null)
      .where('deposits.deleted_at', 'is', null)
      .groupBy('clients.id')
      .having((eb) => eb.fn.max('deposits.created_at'), '<', new Date(now.getTime() - 31 * DAY_MS))
      .orderBy('clients.id')
      .executeTakeFirstOrThrow();
    const manager = await t.login('retention.manager@demo.local', 'demo12345');
    const email = `rm.alias.${randomBytes(3).toString('hex')}@evil.test`;
    const reg = await t.inject({
      method: 'POST',
      url: `/api/clients/${lead.id}/register-user`,
      token: manager,
      payload: { email, password: 'evilpass123', name: 'x' },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    // Issue 22: the address is the manager's own, so they can open its verification link; that proves nothing more.
    await t.db.updateTable('users').set({ email_verified_at: new Date() }).where('email', '=', email).execute();
    const alias = await t.login(email, 'evilpass123');
    expect((await t.inject({ method: 'GET', url: '/api/trading/balance', token: alias })).json().balance).toBe(0);
    const admin = await t.login('admin@demo.local', 'demo12345');
    const verified = await t.inject({ method: 'POST', url: `/api/clients/${lead.id}/verify-identity`, token: admin });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().credited_amount * 100).toBe(Number(lead.cents));
    const { year, month } = { year: now.getUTCFullYear() + 2, month: now.getUTCMonth() + 1 };
    const filed = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: alias,
      payload: {
        amount: 10,
        card_number: '4111111111111111',
        card_holder: 'X',
        card_expiry: `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`,
      },
    });
    expect(filed.statusCode, filed.body).toBe(201);
    const approved = await t.inject({
      method: 'PUT',
      url: `/api/withdraw-requests/${filed.json().id}/approve`,
      token: manager,
    });
    expect(approved.statusCode).toBe(409);
    expect(approved.json().code).toBe('withdraw_approver_login_created');
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('has at least 20 client accounts with settled trades, so the risk warning shows its percentage (issue 14)', async () => {
    const figure = await computeRiskFigure(t.db, new Date(now.getTime() + 1000));
    expect(figure.accounts_traded).toBeGreaterThanOrEqual(20);
    expect(figure.losing_accounts_percent).toEqual(expect.any(Number));
    const facts = await t.inject({ method: 'GET', url: '/api/site/facts' });
    expect(facts.json().losing_accounts_percent).toBe(figure.losing_accounts_percent);
  });
});
