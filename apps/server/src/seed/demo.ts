import {
  STAFF_ROLES,
  departmentOfRole,
  isStaffRole,
  normalisePhone,
  type DepositCreate,
  type Role,
} from '@brokerage/shared';
import type { Actor } from '../platform/auth/actor.js';
import { sql } from 'kysely';
import type { Db } from '../platform/db/index.js';
import { hashPassword } from '../platform/auth/passwords.js';
import { postEntry } from '../modules/ledger/service.js';
import { openTradingAccount } from '../modules/trading/service.js';
import type { SecretsVault } from '../platform/crypto/vault.js';
import { createWithdrawRequest } from '../modules/withdrawals/service.js';
import type { Trx } from '../platform/db/types.js';
import { createDeposit, SEED_CREDITS } from '../modules/deposits/service.js';
import { placeTrade, type TradingDeps } from '../modules/trading/service.js';
import { settleDueTrades } from '../modules/trading/settlement.js';
import type { PriceLogSigner } from '../modules/price-log/keys.js';
import { PriceService } from '../modules/prices/service.js';
import { SimulatorSource } from '../modules/prices/simulator.js';
import { InProcessBus } from '../platform/bus/index.js';
import { approveWithdrawRequest, rejectWithdrawRequest } from '../modules/withdrawals/service.js';
import { EXTRA_DEMO_STAFF, seedDemoLeads, seededRandom, type DemoStaffMember } from './demo-leads.js';

/** The demo data set's logins: one staff member of every role and one client, all with a known password. */
const DEMO_PASSWORD = 'demo12345';
/** The demo client's starting balance: $1000, the demo balance of client-platform.md §9. */
const DEMO_CLIENT_BALANCE_CENTS = 100_000;
const DEMO_USERS: { email: string; name: string; role: Role }[] = [
  ...STAFF_ROLES.map((role) => ({
    email: `${role.replaceAll('_', '.')}@demo.local`,
    name: `Demo ${role.replaceAll('_', ' ')}`,
    role,
  })),
  { email: 'client@demo.local', name: 'Demo Client', role: 'client' },
];

/**
 * The demo traders: client users with a CRM client record assigned to a demo manager, a trading account funded only
 * by deposits recorded through the deposits service, and settled trades (seedDemoTrading).
 */
const DEMO_TRADERS = [
  {
    email: 'client2@demo.local',
    name: 'Demo Trader Two',
    phone: '+4915112340002',
    country: 'Germany',
    manager: 'retention_manager',
    deposits: [500, 250],
  },
  {
    email: 'client3@demo.local',
    name: 'Demo Trader Three',
    phone: '+77011230003',
    country: 'Казахстан',
    manager: 'sales_manager',
    deposits: [2000],
  },
] as const;

/**
 * More traders, so the withdrawal requests page has a queue: client users with a trading account assigned to the
 * retention staff, funded only by deposits (deposits service), each filing card withdrawal requests through
 * createWithdrawRequest, some then approved or rejected through the approve/reject services (decisions.md D3, D7).
 * They sign in with the demo password but, like EXTRA_DEMO_STAFF, are not listed among the demo accounts.
 */
const EXTRA_TRADERS: {
  email: string;
  name: string;
  phone: string;
  country: string;
  /** A role of the demo logins or the e-mail of an extra staff member. */
  manager: string;
  /** As embossed on the card. */
  holder: string;
  deposits: number[];
  withdrawals: { amount: number; card: string; outcome: 'pending' | 'approved' | 'rejected' }[];
}[] = [
  {
    email: 'client4@demo.local',
    holder: 'SERGEY MOROZOV',
    name: 'Сергей Морозов',
    phone: '+79161234504',
    country: 'Россия',
    manager: 'retention_manager',
    deposits: [1000, 500],
    withdrawals: [
      { amount: 300, card: '4242424242424242', outcome: 'approved' },
      { amount: 200, card: '4242424242424242', outcome: 'pending' },
    ],
  },
  {
    email: 'client5@demo.local',
    holder: 'AIGERIM OMAROVA',
    name: 'Айгерим Омарова',
    phone: '+77051234505',
    country: 'Казахстан',
    manager: 'retention.manager.2@demo.local',
    deposits: [500],
    withdrawals: [
      { amount: 150, card: '5105105105105100', outcome: 'rejected' },
      { amount: 120, card: '4012888888881881', outcome: 'pending' },
    ],
  },
  {
    email: 'client6@demo.local',
    holder: 'OLIVER HUGHES',
    name: 'Oliver Hughes',
    phone: '+447700900506',
    country: 'United Kingdom',
    manager: 'team_lead_retention',
    deposits: [2000, 1000, 500],
    withdrawals: [
      { amount: 1000, card: '5555555555554444', outcome: 'approved' },
      { amount: 400, card: '5555555555554444', outcome: 'approved' },
      { amount: 250, card: '4111111111111111', outcome: 'pending' },
    ],
  },
  {
    email: 'client7@demo.local',
    holder: 'ERLAN KASYMOV',
    name: 'Ерлан Касымов',
    phone: '+77771234507',
    country: 'Казахстан',
    manager: 'retention.manager.2@demo.local',
    deposits: [250],
    withdrawals: [{ amount: 100, card: '4000056655665556', outcome: 'pending' }],
  },
];

export function demoAccounts(): { email: string; password: string; role: string }[] {
  return [
    ...DEMO_USERS.map((u) => ({ email: u.email, password: DEMO_PASSWORD, role: u.role })),
    ...DEMO_TRADERS.map((u) => ({ email: u.email, password: DEMO_PASSWORD, role: 'client' })),
  ];
}

const DEMO_LEADS = [
  {
    name: 'Иван Петров',
    email: 'ivan.petrov@example.com',
    phone: '+380501234567',
    country: 'Украина',
    manager: 'sales_manager',
  },
  {
    name: 'Anna Schmidt',
    email: 'anna.schmidt@example.com',
    phone: '+4915112345678',
    country: 'Germany',
    manager: 'sales_manager',
  },
  {
    name: 'Олег Коваль',
    email: 'oleg.koval@example.com',
    phone: '+380671112233',
    country: 'Украина',
    manager: 'retention_manager',
  },
  {
    name: 'Айгуль Сапарова',
    email: 'aigul.saparova@example.com',
    phone: '+77011234567',
    country: 'Казахстан',
    manager: null,
  },
  {
    name: 'John Miller',
    email: 'john.miller@example.com',
    phone: '+447700900123',
    country: 'United Kingdom',
    manager: 'manager',
  },
] as const;

const HOUR_MS = 60 * 60 * 1000;
/**
 * When the demo desk took the demo clients on and recorded their deposits: more than a day before the seed, so they
 * lie outside D20's 24-hour window (issue 20 finding 3) and a fresh demo does not start with every staff credit on
 * those clients waiting for a second person; yet well within the 30 days in which recording a client's deposit bars
 * its payouts (issue 20 finding 4), so the demo's four-eyes paths stay the ones a desk meets. Deposit n of a client is
 * n hours later (at most three, so the last is still 27 hours old). Not older, so the demo's own clients stay near the
 * top of the staff's lists, above all but the newest generated leads.
 */
const DEMO_DESK_HOURS_AGO = 30;
function deskTime(now: Date, hour = 0): Date {
  return new Date(now.getTime() - (DEMO_DESK_HOURS_AGO - hour) * HOUR_MS);
}

/** Records one demo deposit through the deposits service as of `at` (the deposit and its ledger entry). */
async function depositAsOf(trx: Trx, actor: Actor, input: DepositCreate, at: Date): Promise<void> {
  await createDeposit(trx, actor, input, SEED_CREDITS, { at });
}

/**
 * Seeds a new database with the demo data set (DEMO_DATA=1). Later features add their own demo rows here.
 * `durations` are the trade durations the server offers (TRADE_DURATIONS); the demo trades use those up to an hour.
 */
export async function seedDemoData(
  db: Db,
  vault: SecretsVault,
  options: {
    durations?: readonly number[];
    now?: Date;
    /**
     * D27: the price log's key: the demo feed signs a head when it stops, so its trades can settle (a trade waits for
     * a head over the tick after its expiry). Without it the demo trades stay active.
     */
    priceLogSigner?: PriceLogSigner;
  } = {},
): Promise<void> {
  const hash = await hashPassword(DEMO_PASSWORD);
  const now = options.now ?? new Date();
  const traders = await db.transaction().execute(async (trx) => {
    const ids = new Map<string, string>();
    for (const u of DEMO_USERS) {
      const row = await trx
        .insertInto('users')
        .values({
          email: u.email,
          name: u.name,
          role: u.role,
          department: departmentOfRole(u.role),
          phone: null,
          password_hash: hash,
          deleted_at: null,
          last_login_at: null,
          // Issue 22: the demo accounts stand for established ones, whose addresses are verified.
          email_verified_at: sql`now()` as never,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(u.role, row.id);
    }
    for (const u of EXTRA_DEMO_STAFF) {
      const row = await trx
        .insertInto('users')
        .values({
          email: u.email,
          name: u.name,
          role: u.role,
          department: departmentOfRole(u.role),
          phone: null,
          password_hash: hash,
          deleted_at: null,
          last_login_at: null,
          // Issue 22: the demo accounts stand for established ones, whose addresses are verified.
          email_verified_at: sql`now()` as never,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(u.email, row.id);
    }
    // The crowd of traders first, so the demo logins' accounts stay the newest (the first rows of the staff's lists).
    const crowdIds = await seedDemoTraders(trx, hash, ids, DEMO_CROWD, now);
    const demoClient = await trx
      .insertInto('clients')
      .values({
        name: 'Demo Client',
        email: 'client@demo.local',
        phone: '+380501112299',
        phone_e164: normalisePhone('+380501112299'),
        country: 'Украина',
        campaign: '',
        source: 'website',
        notes: '',
        status: 'new',
        assigned_manager: ids.get('retention_manager') ?? null,
        affiliate_id: null,
        user_id: ids.get('client') ?? null,
        registration_date: sql`now()` as never,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Its trading account, opened with balance 0 like every client's, then funded by a ledger adjustment that says
    // what it is, so the demo client can trade at once and the ledger explains every dollar.
    const accountId = await openTradingAccount(trx, { clientId: demoClient.id, userId: ids.get('client')! });
    await postEntry(trx, {
      accountId,
      kind: 'adjustment',
      amountCents: DEMO_CLIENT_BALANCE_CENTS,
      reference: 'seed:demo-client:opening-balance',
      actor: null,
      reason: 'Демо-данные: стартовый баланс',
    });
    await seedDemoFunds(trx, vault, {
      clientId: Number(demoClient.id),
      userId: ids.get('client')!,
      accountId,
      superadminId: ids.get('superadmin')!,
      teamLeadRetentionId: ids.get('team_lead_retention')!,
    });
    const leadIds: number[] = [];
    for (const lead of DEMO_LEADS) {
      const lead_ = await trx
        .insertInto('clients')
        .values({
          name: lead.name,
          email: lead.email,
          phone: lead.phone,
          phone_e164: normalisePhone(lead.phone),
          country: lead.country,
          campaign: 'demo',
          source: 'demo',
          notes: '',
          status: 'new',
          assigned_manager: lead.manager ? (ids.get(lead.manager) ?? null) : null,
          affiliate_id: null,
          user_id: null,
          registration_date: null,
          last_comment_date: null,
          // Taken on by the desk with the demo traders, before their deposits (deskTime).
          created_at: deskTime(now),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      leadIds.push(Number(lead_.id));
    }
    await seedDemoClientBase(trx, ids, leadIds, now);
    await seedDemoLeads(trx, demoStaff(ids), now);
    const traderIds = [...(await seedDemoTraders(trx, hash, ids, DEMO_TRADERS, now)), ...crowdIds];
    const decisions = await seedExtraTraders(trx, vault, hash, ids, now);
    return { traderIds, decisions };
  });
  // Outside the transaction above: the withdrawal decisions, the price service and settlement open their own.
  // The seed acts as the system, which D20 exempts: its decisions take one approval (no secondApprovalCents) and its
  // deposits are credited at once (SEED_CREDITS), whatever the amounts.
  const deps = { db, vault, timeZone: 'UTC', now: () => new Date() };
  for (const d of traders.decisions) {
    if (d.outcome === 'approved') await approveWithdrawRequest(deps, d.decider, d.id);
    else await rejectWithdrawRequest(deps, d.decider, d.id, { reason: 'Демо-данные: карта выпущена на другое имя' });
  }
  await seedDemoTrading(
    db,
    traders.traderIds,
    options.durations ?? [300, 900, 1800, 3600],
    now,
    options.priceLogSigner,
  );
}

/** The staff the demo leads are assigned to: every manager and team lead of the demo logins, and the extra staff. */
function demoStaff(ids: Map<string, string>): DemoStaffMember[] {
  const staff = [
    ...DEMO_USERS.map((u) => ({ ...u, key: u.role as string })),
    ...EXTRA_DEMO_STAFF.map((u) => ({ ...u, key: u.email })),
  ];
  return staff.flatMap((u) =>
    isStaffRole(u.role) && u.role !== 'superadmin' && u.role !== 'admin'
      ? [{ id: ids.get(u.key)!, name: u.name, role: u.role, department: departmentOfRole(u.role) }]
      : [],
  );
}

/**
 * A demo staff member as an actor, by the key of `ids` (a role of the demo logins or an extra staff member's e-mail).
 * Issue 20 finding 4: the demo's money is recorded the way a desk does, by the clients' own managers, so the finance
 * approvers (superadmin, admin) stay free to approve its payouts (D20, issue 9 finding 2).
 */
function demoActor(ids: Map<string, string>, key: string): Actor {
  const member =
    DEMO_USERS.find((u) => u.role === key && u.email !== 'client@demo.local') ??
    EXTRA_DEMO_STAFF.find((u) => u.email === key);
  if (!member || !ids.has(key)) throw new Error(`no demo staff member ${key}`);
  return {
    id: ids.get(key)!,
    name: member.name,
    role: member.role,
    department: departmentOfRole(member.role),
    ip: null,
  };
}

/**
 * The extra traders (EXTRA_TRADERS) up to their requests; answers the requests to approve or reject afterwards, each
 * with who decides it: the retention team lead, or the demo admin for the team lead's own client (whose deposits the
 * team lead recorded, which bars them from its payouts).
 */
async function seedExtraTraders(
  trx: Trx,
  vault: SecretsVault,
  hash: string,
  ids: Map<string, string>,
  now: Date,
): Promise<{ id: number; outcome: 'approved' | 'rejected'; decider: Actor }[]> {
  const deps = { db: trx, vault, timeZone: 'UTC', now: () => new Date() };
  const expiry = `09/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
  const decisions: { id: number; outcome: 'approved' | 'rejected'; decider: Actor }[] = [];
  for (const trader of EXTRA_TRADERS) {
    const { user } = await seedTraderAccount(trx, hash, ids, trader, now);
    const decider = demoActor(ids, trader.manager === 'team_lead_retention' ? 'admin' : 'team_lead_retention');
    for (const w of trader.withdrawals) {
      const filed = await createWithdrawRequest(deps, trx, user.id, {
        amount: w.amount,
        card_number: w.card,
        card_holder: trader.holder,
        card_expiry: expiry,
      });
      if (w.outcome !== 'pending') decisions.push({ id: filed.id, outcome: w.outcome, decider });
    }
  }
  return decisions;
}

/** A demo trader: user, CRM client record and trading account, funded by its deposits (deposits service). */
interface DemoTraderSpec {
  email: string;
  name: string;
  phone: string;
  country: string;
  manager: string;
  deposits: readonly number[];
}

async function seedTraderAccount(trx: Trx, hash: string, ids: Map<string, string>, trader: DemoTraderSpec, now: Date) {
  const joined = deskTime(now);
  const user = await trx
    .insertInto('users')
    .values({
      email: trader.email,
      name: trader.name,
      role: 'client',
      department: departmentOfRole('client'),
      phone: null,
      password_hash: hash,
      deleted_at: null,
      last_login_at: null,
      created_at: joined,
      email_verified_at: joined as never,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const client = await trx
    .insertInto('clients')
    .values({
      name: trader.name,
      email: trader.email,
      phone: trader.phone,
      phone_e164: normalisePhone(trader.phone),
      country: trader.country,
      campaign: '',
      source: 'website',
      notes: '',
      status: 'new',
      assigned_manager: ids.get(trader.manager) ?? null,
      affiliate_id: null,
      user_id: user.id,
      registration_date: joined,
      last_comment_date: null,
      created_at: joined,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const accountId = await openTradingAccount(trx, { clientId: client.id, userId: user.id });
  await trx.updateTable('trading_accounts').set({ created_at: joined }).where('id', '=', accountId).execute();
  const manager = demoActor(ids, trader.manager);
  for (const [i, amount] of trader.deposits.entries()) {
    const notes = i === 0 ? 'Демо-данные: первый депозит' : 'Демо-данные: повторный депозит';
    await depositAsOf(trx, manager, { client_id: Number(client.id), amount, notes }, deskTime(now, i + 1));
  }
  return { user, client };
}

/** The demo traders' users, CRM client records and trading accounts, funded by deposits (deposits service). */
async function seedDemoTraders(
  trx: Trx,
  hash: string,
  ids: Map<string, string>,
  traders: readonly DemoTraderSpec[],
  now: Date,
): Promise<string[]> {
  const userIds: string[] = [];
  for (const trader of traders) {
    const { user } = await seedTraderAccount(trx, hash, ids, trader, now);
    userIds.push(user.id);
  }
  return userIds;
}

/**
 * Issue 14: enough traders for the risk warning's figure (at least RISK_MIN_ACCOUNTS accounts with a settled trade):
 * DEMO_CROWD_SIZE more client users, each funded by one recorded deposit, placing two or three seeded trades in the
 * demo history (DEMO_CROWD_TRADES). Their outcomes are whatever the simulated prices make them (D1); they sign in with
 * the demo password but are not listed among the demo accounts.
 */
export const DEMO_CROWD_SIZE = 20;
const CROWD_FIRST = ['Алексей', 'Мария', 'Daniel', 'Асель', 'Игорь', 'Emma', 'Нурлан', 'Ольга', 'Lukas', 'Дина'];
const CROWD_LAST = ['Демидов', 'Kessler', 'Сапарова', 'Brown', 'Левченко'];
const DEMO_CROWD: DemoTraderSpec[] = Array.from({ length: DEMO_CROWD_SIZE }, (_, i) => {
  const nn = String(i + 1).padStart(2, '0');
  return {
    email: `trader${nn}@demo.local`,
    name: `${CROWD_FIRST[i % CROWD_FIRST.length]} ${CROWD_LAST[i % CROWD_LAST.length]}`,
    phone: `+770800001${nn}`,
    country: 'Казахстан',
    // An extra manager that no demo login or browser test counts deposits of.
    manager: 'sales.manager.2@demo.local',
    deposits: [200 + (i % 5) * 150],
  };
});
/** Two or three trades per crowd trader (index in the trader list after DEMO_TRADERS), from a fixed seed. */
function demoCrowdTrades(): (typeof DEMO_TRADES)[number][] {
  const rnd = seededRandom(20261125);
  const trades: (typeof DEMO_TRADES)[number][] = [];
  for (let i = 0; i < DEMO_CROWD_SIZE; i++) {
    const n = 2 + Math.floor(rnd() * 2);
    for (let k = 0; k < n; k++) {
      trades.push({
        trader: DEMO_TRADERS.length + i,
        minute: 3 + Math.floor(rnd() * 100),
        asset: DEMO_SYMBOLS[Math.floor(rnd() * DEMO_SYMBOLS.length)]!,
        direction: rnd() < 0.5 ? 'call' : 'put',
        amount: 10 + Math.floor(rnd() * 5) * 10,
        duration: rnd() < 0.5 ? 300 : 900,
      });
    }
  }
  return trades;
}

/** The demo price history: this long, ending at the seed's now. */
const DEMO_HISTORY_MS = 2 * 60 * 60 * 1000;
const DEMO_SYMBOLS = ['EURUSD', 'BTCUSD', 'XAUUSD'] as const;
/** The demo trades: trader (index in DEMO_TRADERS), minute of the history it was placed at, and what was asked. */
const DEMO_TRADES: {
  trader: number;
  minute: number;
  asset: string;
  direction: 'call' | 'put';
  amount: number;
  duration: number;
}[] = [
  { trader: 0, minute: 5, asset: 'EURUSD', direction: 'call', amount: 50, duration: 300 },
  { trader: 1, minute: 10, asset: 'BTCUSD', direction: 'call', amount: 200, duration: 3600 },
  { trader: 0, minute: 20, asset: 'BTCUSD', direction: 'put', amount: 100, duration: 900 },
  { trader: 1, minute: 30, asset: 'XAUUSD', direction: 'put', amount: 150, duration: 900 },
  { trader: 0, minute: 40, asset: 'XAUUSD', direction: 'call', amount: 75, duration: 1800 },
  { trader: 1, minute: 50, asset: 'EURUSD', direction: 'call', amount: 100, duration: 300 },
  { trader: 0, minute: 70, asset: 'EURUSD', direction: 'put', amount: 25, duration: 300 },
  { trader: 1, minute: 80, asset: 'XAUUSD', direction: 'call', amount: 120, duration: 1800 },
  { trader: 0, minute: 90, asset: 'BTCUSD', direction: 'call', amount: 60, duration: 900 },
  { trader: 1, minute: 100, asset: 'BTCUSD', direction: 'put', amount: 80, duration: 300 },
];

/**
 * The demo trades, through the real code paths: the last two hours of prices are generated by the simulator (its
 * rule, a fixed seed, one tick per second) and stored by the price service like a live feed; each trade is placed by
 * placeTrade on a clock set to its moment in that history, at the price of that moment; then settleDueTrades settles
 * every trade that expired before now, at the stored tick of its expiry. Nothing is left active.
 */
async function seedDemoTrading(
  db: Db,
  userIds: string[],
  offered: readonly number[],
  now: Date,
  signer: PriceLogSigner | undefined,
): Promise<void> {
  const end = Math.floor(now.getTime() / 1000) * 1000;
  const start = end - DEMO_HISTORY_MS;
  let clock = start;
  const source = new SimulatorSource({
    symbols: DEMO_SYMBOLS,
    random: seededRandom(20261123),
    clock: () => new Date(clock),
    timers: false,
  });
  // Stopping the feed signs a head over every tick (D27), dated `end`, so the settlement below may use it.
  const prices = new PriceService({ db, clock: () => new Date(clock), ...(signer ? { priceLog: { signer } } : {}) });
  await prices.start(source, { timers: false });
  const deps: TradingDeps = { db, prices, now: () => new Date(clock), durations: offered, bus: new InProcessBus() };
  // Durations the server does not offer are replaced by an offered one that still ends a minute before now.
  const trades = [...DEMO_TRADES, ...demoCrowdTrades()]
    .sort((a, b) => a.minute - b.minute)
    .map((t) => {
      const at = start + t.minute * 60_000;
      const fits = offered.filter((d) => at + d * 1000 <= end - 60_000);
      const duration = fits.includes(t.duration) ? t.duration : fits.at(-1);
      return { ...t, at, duration };
    })
    .filter((t): t is typeof t & { duration: number } => t.duration !== undefined);
  try {
    let next = 0;
    // The simulator replays at most ten intervals at once, so the clock moves ten seconds at a time.
    for (let t = start; t <= end; t += 10_000) {
      clock = t;
      source.pump(new Date(t));
      // A trade opens at a stored tick (issue 21 §3): the ticks up to t are stored before the trades of this step.
      if (next < trades.length && trades[next]!.at <= t) await prices.flush();
      while (next < trades.length && trades[next]!.at <= t) {
        const trade = trades[next++]!;
        clock = trade.at;
        await db.transaction().execute((trx) =>
          placeTrade(deps, trx, userIds[trade.trader]!, {
            asset: trade.asset,
            direction: trade.direction,
            amount: trade.amount,
            duration: trade.duration,
          }),
        );
        clock = t;
      }
      if ((t - start) % 600_000 === 0) await prices.flush();
    }
  } finally {
    await prices.stop();
  }
  const report = await settleDueTrades({ db }, { now: new Date(end) });
  // Backfilled history, not the live worker's settlement: the landing page's settlement figure leaves these out.
  const ids = report.settled.map((s) => s.id);
  if (ids.length > 0) await db.updateTable('trades').set({ backfilled: true }).where('id', 'in', ids).execute();
}

/**
 * Deposits, comments and reminders on the demo leads. Deposits go through the deposits service, recorded by each
 * lead's manager (the leads have no trading account yet, so they wait there and are credited through the ledger if a
 * lead registers); the first of a lead is ftd and turns its status new into ftd.
 */
async function seedDemoClientBase(trx: Trx, ids: Map<string, string>, leadIds: number[], now: Date): Promise<void> {
  const [ivan, anna, oleg] = leadIds as [number, number, number];
  const sales = demoActor(ids, 'sales_manager');
  const retention = demoActor(ids, 'retention_manager');
  const first = { client_id: ivan, amount: 250, notes: 'Демо-данные: первый депозит' };
  await depositAsOf(trx, sales, first, deskTime(now, 1));
  const second = { client_id: ivan, amount: 500, notes: 'Демо-данные: повторный депозит' };
  await depositAsOf(trx, sales, second, deskTime(now, 2));
  await depositAsOf(trx, retention, { client_id: oleg, amount: 1000, notes: 'Демо-данные' }, deskTime(now, 1));
  const manager = ids.get('sales_manager')!;
  await trx
    .insertInto('comments')
    .values([
      {
        client_id: ivan,
        text: 'Интересуется торговлей BTC, перезвонить вечером.',
        is_pinned: true,
        user_id: manager,
        user_name: 'Demo sales manager',
      },
      {
        client_id: ivan,
        text: 'Внес первый депозит, доволен.',
        is_pinned: false,
        user_id: manager,
        user_name: 'Demo sales manager',
      },
      {
        client_id: anna,
        text: 'Spricht Englisch, просит материалы на английском.',
        is_pinned: false,
        user_id: manager,
        user_name: 'Demo sales manager',
      },
    ])
    .execute();
  await trx
    .updateTable('clients')
    .set({ last_comment_date: sql`now()` as never })
    .where('id', 'in', [ivan, anna])
    .execute();
  await trx
    .insertInto('reminders')
    .values([
      {
        client_id: ivan,
        title: 'Перезвонить',
        description: 'Обсудить повторный депозит',
        scheduled_time: sql`now() + interval '1 day'` as never,
        created_by: manager,
      },
      {
        client_id: anna,
        title: 'Отправить материалы',
        description: '',
        scheduled_time: sql`now() + interval '3 hours'` as never,
        created_by: manager,
      },
      {
        client_id: oleg,
        title: 'Проверить документы',
        description: '',
        scheduled_time: sql`now() - interval '1 day'` as never,
        status: 'completed',
        created_by: ids.get('retention_manager')!,
      },
    ])
    .execute();
}

/**
 * The demo client's withdrawal requests and messages: one request of each status, filed through the same code as the
 * API (the amount held in the ledger, the card encrypted), the approved one made final and the rejected one released;
 * and two messages from staff, one already read. Demo card numbers are the card networks' published test numbers.
 */
async function seedDemoFunds(
  trx: Trx,
  vault: SecretsVault,
  ids: { clientId: number; userId: string; accountId: number; superadminId: string; teamLeadRetentionId: string },
): Promise<void> {
  const deps = { db: trx, vault, timeZone: 'UTC', now: () => new Date() };
  const expiry = `12/${String((new Date().getUTCFullYear() + 4) % 100).padStart(2, '0')}`;
  const file = (amount: number, card: string) =>
    createWithdrawRequest(deps, trx, ids.userId, {
      amount,
      card_number: card,
      card_holder: 'DEMO CLIENT',
      card_expiry: expiry,
    });

  const approved = await file(100, '5555555555554444');
  await trx
    .updateTable('withdraw_requests')
    .set({ status: 'approved', processed_by: ids.superadminId, processed_at: sql`now()` })
    .where('id', '=', approved.id)
    .execute();
  const rejected = await file(50, '4000056655665556');
  const reason = 'Демо-данные: держатель карты не совпадает с владельцем счета';
  await trx
    .updateTable('withdraw_requests')
    .set({ status: 'rejected', processed_by: ids.superadminId, processed_at: sql`now()`, reject_reason: reason })
    .where('id', '=', rejected.id)
    .execute();
  await postEntry(trx, {
    accountId: ids.accountId,
    kind: 'withdrawal_release',
    amountCents: 5_000,
    reference: `withdrawal:${rejected.id}:release`,
    actor: { id: ids.superadminId },
    reason,
  });
  await file(150, '4111111111111111');

  await trx
    .insertInto('client_messages')
    .values([
      {
        client_id: ids.clientId,
        user_id: ids.userId,
        content: 'Добро пожаловать! Ваш торговый счет открыт. Если появятся вопросы, напишите в поддержку.',
        created_by: ids.superadminId,
        created_at: sql`now() - interval '2 days'` as never,
        read_at: sql`now() - interval '1 day'` as never,
      },
      {
        client_id: ids.clientId,
        user_id: ids.userId,
        content: 'Ваша заявка на вывод $100 одобрена. Средства поступят на карту в течение 1–3 рабочих дней.',
        created_by: ids.teamLeadRetentionId,
        read_at: null,
      },
    ])
    .execute();
}
