import {
  can,
  departmentOfRole,
  type DashboardAffiliateRow,
  type DashboardManagerRow,
  type DashboardQuery,
  type DashboardResponse,
  type StaffRole,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import { setLocalStatementTimeout } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { HttpError } from '../../platform/http/errors.js';
import { centsToDollars } from '../../platform/money.js';
import { utcOffset } from '../../platform/time.js';

/** §9: campaigns without a name are grouped under this label. */
export const UNNAMED_CAMPAIGN = 'Без названия';
const MONTHS = 6;

/** A local date 'YYYY-MM-DD' moved by whole days or months (calendar arithmetic in UTC, no time zone involved). */
function shiftDay(day: string, days: number, months = 0): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1 + months, d + days)).toISOString().slice(0, 10);
}
const monthStartOf = (day: string) => `${day.slice(0, 7)}-01`;

/** Today in the business time zone, as 'YYYY-MM-DD'. */
export function localToday(tz: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    now,
  );
}

/**
 * The local days (business time zone) a period or a date range covers, inclusive, as 'YYYY-MM-DD'; null = open end.
 * Every filter is whole days, so the rollups answer it exactly; the bounds are computed here and sent as plain
 * parameters, so the database compares dates and never re-evaluates a time-zone expression per row.
 * 'week' is the last seven days, today included.
 */
export function daysOf(query: DashboardQuery, today: string): { from: string | null; to: string | null } {
  if (query.date_from && query.date_to) return { from: query.date_from, to: query.date_to };
  switch (query.period) {
    case 'today':
      return { from: today, to: null };
    case 'week':
      return { from: shiftDay(today, -6), to: null };
    case 'month':
      return { from: monthStartOf(today), to: null };
    case 'year':
      return { from: `${today.slice(0, 4)}-01-01`, to: null };
    default:
      return { from: null, to: null };
  }
}

const rate = (ftd: number, clients: number) => (clients === 0 ? 0 : Math.round((ftd / clients) * 1000) / 10);
const n = (v: unknown) => Number(v ?? 0);

/**
 * GET /api/dashboard (back-office.md §2.4, issue 11): every figure computed by the database over the caller's client
 * scope (D5). Clients are counted by created_at in the period and by their current manager; deposits by their date
 * and by the manager they are attributed to (the client's manager when each was made). The superadmin's sections
 * (departments, deleted managers, affiliates) and the manager filter are dashboard.extended; other roles get them empty.
 */
export async function dashboard(deps: AppDeps, query: DashboardQuery, actor: Actor): Promise<DashboardResponse> {
  const tz = deps.config.BUSINESS_TIMEZONE;
  const role = actor.role === 'system' ? null : actor.role;
  const extended = can(role, 'dashboard.extended');
  const managerIds = query.manager_id ?? [];
  if (managerIds.length > 0 && !extended) throw new HttpError(403, 'forbidden');
  if (managerIds.length > 0) {
    const known = await deps.db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', managerIds)
      .where('role', 'not in', ['client'])
      .execute();
    if (known.length !== new Set(managerIds).size) throw new HttpError(400, 'dashboard_unknown_manager');
  }
  const today = localToday(tz);
  const { from, to } = daysOf(query, today);
  const db = deps.db;

  // The period's clients and deposits from the rollups (migration 0015), in scope: the rollups carry the client's
  // current manager as `assigned_manager`, so the one scope helper (D5) filters them like clients. Whole months of the
  // period come from the monthly rollups, the days at its edges from the daily ones.
  // The whole months inside the period, [fullFrom, fullTo) as month starts (absent = open end), come from the monthly
  // rollups; the days before fullFrom and from fullTo on (the period's edges) from the daily ones. Conditions are built
  // here rather than with `$1 is null or …`, so the planner sees plain ranges on the rollups' leading `day`.
  const fullFrom = from ? (from.endsWith('-01') ? from : shiftDay(monthStartOf(from), 0, 1)) : null;
  const fullTo = to ? monthStartOf(shiftDay(to, 1)) : null;
  const inFullMonths = (col: string) =>
    sql.join(
      [
        sql<boolean>`true`,
        ...(fullFrom ? [sql<boolean>`${sql.ref(col)} >= ${fullFrom}`] : []),
        ...(fullTo ? [sql<boolean>`${sql.ref(col)} < ${fullTo}`] : []),
      ],
      sql` and `,
    );
  const edges = [
    ...(from && fullFrom
      ? [sql<boolean>`(d.day >= ${from} and d.day < ${fullFrom}${to ? sql` and d.day <= ${to}` : sql``})`]
      : []),
    ...(to && fullTo
      ? [sql<boolean>`(d.day >= ${fullTo} and d.day <= ${to}${from ? sql` and d.day >= ${from}` : sql``})`]
      : []),
  ];
  const onEdgeDays = edges.length > 0 ? sql<boolean>`(${sql.join(edges, sql` or `)})` : sql<boolean>`false`;
  const clientRows = db
    .selectFrom('dashboard_clients_monthly as m')
    .selectAll('m')
    .where(sql<boolean>`${inFullMonths('m.day')}`)
    .unionAll(db.selectFrom('dashboard_clients_daily as d').selectAll('d').where(onEdgeDays));
  const depositRows = db
    .selectFrom('dashboard_deposits_monthly as m')
    .selectAll('m')
    .where(sql<boolean>`${inFullMonths('m.day')}`)
    .unionAll(db.selectFrom('dashboard_deposits_daily as d').selectAll('d').where(onEdgeDays));
  const clientDays = () => {
    let q = scopeClients(db.selectFrom(clientRows.as('r')), actor, 'r');
    if (managerIds.length > 0) q = q.where('r.assigned_manager', 'in', managerIds);
    return q;
  };
  const depositDays = () => {
    let q = scopeClients(db.selectFrom(depositRows.as('r')), actor, 'r');
    if (managerIds.length > 0) q = q.where('r.attributed_manager', 'in', managerIds);
    return q;
  };

  const clientGroups = clientDays()
    .select([
      sql<number>`grouping(r.status, r.assigned_manager, r.affiliate_id)`.as('g'),
      'r.status',
      'r.assigned_manager',
      'r.affiliate_id',
      'r.suffix',
      'r.campaign',
      sql<string>`sum(r.clients)`.as('clients'),
      sql<string>`coalesce(sum(r.clients) filter (where r.ftd), 0)`.as('ftd'),
    ])
    .groupBy(sql`grouping sets ((), (r.status), (r.assigned_manager), (r.affiliate_id, r.suffix, r.campaign))`)
    .execute();

  const depositGroups = depositDays()
    .select([
      sql<number>`grouping(r.attributed_manager, r.affiliate_id)`.as('g'),
      'r.attributed_manager',
      'r.affiliate_id',
      'r.suffix',
      'r.campaign',
      sql<string>`coalesce(sum(r.cents), 0)`.as('cents'),
      sql<string>`coalesce(sum(r.deposits), 0)`.as('count'),
    ])
    .groupBy(sql`grouping sets ((), (r.attributed_manager), (r.affiliate_id, r.suffix, r.campaign))`)
    .execute();

  const fromInstant = from ? sql<Date>`${from}::date::timestamp at time zone ${tz}` : null;
  const toInstant = to ? sql<Date>`(${to}::date + 1)::timestamp at time zone ${tz}` : null;
  /** Distinct clients of the period's deposits attributed to these (deleted) members, by the attributed index. */
  const distinctClientsOf = async (ids: string[]) => {
    if (ids.length === 0) return [];
    let q = db.selectFrom('deposits as d').where('d.attributed_manager', 'in', ids).where('d.deleted_at', 'is', null);
    if (fromInstant) q = q.where('d.created_at', '>=', fromInstant);
    if (toInstant) q = q.where('d.created_at', '<', toInstant);
    return q
      .select(['d.attributed_manager', sql<string>`count(distinct d.client_id)`.as('clients')])
      .groupBy('d.attributed_manager')
      .execute();
  };

  const balance = (() => {
    let q = scopeClients(db.selectFrom('clients as c'), actor, 'c').innerJoin(
      'trading_accounts as ta',
      'ta.client_id',
      'c.id',
    );
    if (fromInstant) q = q.where('c.created_at', '>=', fromInstant);
    if (toInstant) q = q.where('c.created_at', '<', toInstant);
    if (managerIds.length > 0) q = q.where('c.assigned_manager', 'in', managerIds);
    return q.select(sql<string>`coalesce(sum(ta.balance_cents), 0)`.as('cents')).executeTakeFirstOrThrow();
  })();

  // The last six calendar months in the business time zone, whatever the period (scope and managers still apply).
  const monthStart = shiftDay(monthStartOf(today), 0, -(MONTHS - 1));
  const monthlyClients = (() => {
    let q = scopeClients(db.selectFrom('dashboard_clients_monthly as r'), actor, 'r').where('r.day', '>=', monthStart);
    if (managerIds.length > 0) q = q.where('r.assigned_manager', 'in', managerIds);
    return (
      q
        // Grouped by the month row's date (cheap), named YYYY-MM afterwards.
        .select([sql<string>`to_char(r.day, 'YYYY-MM')`.as('month'), sql<string>`sum(r.clients)`.as('clients')])
        .groupBy('r.day')
        .execute()
    );
  })();
  const monthlyDeposits = (() => {
    let q = scopeClients(db.selectFrom('dashboard_deposits_monthly as r'), actor, 'r').where('r.day', '>=', monthStart);
    if (managerIds.length > 0) q = q.where('r.attributed_manager', 'in', managerIds);
    return q
      .select([
        sql<string>`to_char(r.day, 'YYYY-MM')`.as('month'),
        sql<string>`coalesce(sum(r.cents), 0)`.as('cents'),
        sql<string>`coalesce(sum(r.deposits), 0)`.as('count'),
      ])
      .groupBy('r.day')
      .execute();
  })();
  const staff = extended
    ? db
        .selectFrom('users')
        .select(['id', 'name', 'role', 'department', 'deleted_at'])
        .where('role', 'not in', ['client', 'superadmin', 'admin'])
        .execute()
    : Promise.resolve([]);
  const affiliates = extended
    ? db.selectFrom('affiliates').select(['id', 'name', 'status', 'deleted_at']).execute()
    : Promise.resolve([]);

  const [cg, dg, bal, mc, md, members, affs] = await Promise.all([
    clientGroups,
    depositGroups,
    balance,
    monthlyClients,
    monthlyDeposits,
    staff,
    affiliates,
  ]);

  // grouping(a, b, c) is a bit mask: 0 = every column grouped; the set that grouped only one column has the others set.
  const totalClients = cg.find((r) => n(r.g) === 7);
  const byStatus = cg.filter((r) => n(r.g) === 3);
  const byManager = new Map(cg.filter((r) => n(r.g) === 5).map((r) => [r.assigned_manager, r]));
  const byLeadSource = cg.filter((r) => n(r.g) === 6);
  const totalDeposits = dg.find((r) => n(r.g) === 3);
  const depositsByManager = new Map(dg.filter((r) => n(r.g) === 1).map((r) => [r.attributed_manager, r]));
  // A deleted member's 'clients' are the distinct clients of the deposits attributed to them (not additive over days,
  // so read from the deposits, for the deleted members with deposits in the period only).
  const dc = await distinctClientsOf(
    members.filter((m) => m.deleted_at !== null && n(depositsByManager.get(m.id)?.count) > 0).map((m) => m.id),
  );
  const depositsBySource = dg.filter((r) => n(r.g) === 2);

  const total = n(totalClients?.clients);
  const ftd = n(totalClients?.ftd);

  const managerRow = (m: { id: string; name: string; role: string }): DashboardManagerRow => {
    const c = byManager.get(m.id);
    const d = depositsByManager.get(m.id);
    return {
      manager_id: m.id,
      name: m.name,
      role: m.role,
      clients: n(c?.clients),
      ftd: n(c?.ftd),
      deposit_amount: centsToDollars(n(d?.cents)),
      deposit_count: n(d?.count),
    };
  };
  const departments: DashboardResponse['departments'] = { sales: [], retention: [] };
  const deletedManagers: DashboardManagerRow[] = [];
  for (const m of members) {
    if (managerIds.length > 0 && !managerIds.includes(m.id)) continue;
    if (m.deleted_at !== null) {
      const d = depositsByManager.get(m.id);
      if (!d || n(d.count) === 0) continue;
      // A deleted member keeps the deposits attributed to them; their clients are the distinct clients of those.
      const distinct = dc.find((r) => r.attributed_manager === m.id);
      deletedManagers.push({ ...managerRow(m), clients: n(distinct?.clients), ftd: 0 });
      continue;
    }
    const department = m.department ?? departmentOfRole(m.role as StaffRole);
    if (department === 'sales' || department === 'retention') departments[department].push(managerRow(m));
  }
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'ru');
  departments.sales.sort(byName);
  departments.retention.sort(byName);
  deletedManagers.sort(byName);

  return {
    overview: {
      total_clients: total,
      ftd_clients: ftd,
      deposit_count: n(totalDeposits?.count),
      total_deposit_amount: centsToDollars(n(totalDeposits?.cents)),
      total_trading_balance: centsToDollars(n(bal.cents)),
      conversion_rate: rate(ftd, total),
    },
    departments,
    deleted_managers: deletedManagers,
    affiliates: extended ? affiliateRows(affs, byLeadSource, depositsBySource) : [],
    monthly: Array.from({ length: MONTHS }, (_, i) => shiftDay(monthStart, 0, i).slice(0, 7)).map((month) => {
      const c = mc.find((r) => r.month === month);
      const d = md.find((r) => r.month === month);
      return {
        month,
        clients: n(c?.clients),
        deposit_amount: centsToDollars(n(d?.cents)),
        deposit_count: n(d?.count),
      };
    }),
    status_breakdown: byStatus
      .map((r) => ({ status: r.status, clients: n(r.clients) }))
      .filter((r) => r.clients > 0)
      .sort((a, b) => b.clients - a.clients || a.status.localeCompare(b.status)),
    range: { from, to: to ?? today },
    timezone: { timezone: tz, offset: utcOffset(tz) },
  };
}

interface SourceRow {
  affiliate_id: string | number | null;
  suffix: string | null;
  campaign: string;
  clients?: string;
  ftd?: string;
  cents?: string;
}

/**
 * §2.4 'Аффилейты': every affiliate (a deleted one only while it has leads in the period), and the names that leads
 * without an affiliate carry after ' - ' in their campaign (§3), under affiliate_id null; each with its campaigns.
 * Status: the affiliate's own, 'deleted' for a deleted affiliate or a name no affiliate has (§4).
 */
function affiliateRows(
  affiliates: {
    id: string | number;
    name: string;
    status: 'active' | 'inactive' | 'paused';
    deleted_at: Date | null;
  }[],
  leads: SourceRow[],
  deposits: SourceRow[],
): DashboardAffiliateRow[] {
  type Acc = DashboardAffiliateRow & { byCampaign: Map<string, DashboardAffiliateRow['campaigns'][number]> };
  const rows = new Map<string, Acc>();
  const liveByName = new Map(
    affiliates.filter((a) => a.deleted_at === null).map((a) => [a.name.trim().toLowerCase(), a.status]),
  );
  const row = (key: string, init: () => Omit<Acc, 'byCampaign' | 'campaigns' | keyof typeof ZERO>): Acc => {
    let acc = rows.get(key);
    if (!acc) {
      acc = { ...init(), ...ZERO, campaigns: [], byCampaign: new Map() };
      rows.set(key, acc);
    }
    return acc;
  };
  for (const a of affiliates) {
    if (a.deleted_at !== null) continue;
    row(`id:${a.id}`, () => ({ affiliate_id: Number(a.id), name: a.name, status: a.status }));
  }
  const keyOf = (r: SourceRow): [string, () => Omit<Acc, 'byCampaign' | 'campaigns' | keyof typeof ZERO>] | null => {
    if (r.affiliate_id !== null) {
      const a = affiliates.find((x) => Number(x.id) === Number(r.affiliate_id));
      return [
        `id:${r.affiliate_id}`,
        () => ({
          affiliate_id: Number(r.affiliate_id),
          name: a?.name ?? `#${r.affiliate_id}`,
          status: !a || a.deleted_at !== null ? 'deleted' : a.status,
        }),
      ];
    }
    if (!r.suffix) return null;
    const name = r.suffix;
    return [
      `name:${name.toLowerCase()}`,
      () => ({ affiliate_id: null, name, status: liveByName.get(name.toLowerCase()) ?? 'deleted' }),
    ];
  };
  const campaignOf = (acc: Acc, name: string) => {
    const label = name.trim() || UNNAMED_CAMPAIGN;
    let c = acc.byCampaign.get(label);
    if (!c) {
      c = { campaign: label, ...ZERO };
      acc.byCampaign.set(label, c);
    }
    return c;
  };
  for (const r of leads) {
    const key = keyOf(r);
    if (!key) continue;
    const acc = row(...key);
    const c = campaignOf(acc, r.campaign);
    for (const target of [acc, c]) {
      target.clients += n(r.clients);
      target.ftd += n(r.ftd);
    }
  }
  for (const r of deposits) {
    const key = keyOf(r);
    if (!key) continue;
    const acc = row(...key);
    const c = campaignOf(acc, r.campaign);
    acc.deposit_amount += n(r.cents);
    c.deposit_amount += n(r.cents);
  }
  return [...rows.values()]
    .map(({ byCampaign, ...acc }) => ({
      ...acc,
      deposit_amount: centsToDollars(acc.deposit_amount),
      conversion_rate: rate(acc.ftd, acc.clients),
      campaigns: [...byCampaign.values()]
        .filter((c) => c.clients > 0 || c.deposit_amount !== 0)
        .map((c) => ({
          ...c,
          deposit_amount: centsToDollars(c.deposit_amount),
          conversion_rate: rate(c.ftd, c.clients),
        }))
        .sort((a, b) => b.clients - a.clients || a.campaign.localeCompare(b.campaign)),
    }))
    .sort((a, b) => b.clients - a.clients || a.name.localeCompare(b.name));
}

const ZERO = { clients: 0, ftd: 0, deposit_amount: 0, conversion_rate: 0 };

/**
 * The rollups count days in the business time zone stored with them (migration 0015). At start the server writes its
 * BUSINESS_TIMEZONE there; when it differs from the stored one, the rollups are recomputed from the raw tables (one
 * statement per rollup, in the same transaction as the change of zone).
 */
export async function syncDashboardTimezone(db: AppDeps['db'], timeZone: string): Promise<boolean> {
  const row = await db.selectFrom('dashboard_settings').select('timezone').executeTakeFirst();
  if (row?.timezone === timeZone) return false;
  await db.transaction().execute(async (trx) => {
    await setLocalStatementTimeout(trx, 0); // a one-off rebuild at start-up over every row: no statement bound
    await trx.updateTable('dashboard_settings').set({ timezone: timeZone }).execute();
    await sql`select rebuild_dashboard_rollups()`.execute(trx);
  });
  return true;
}
