import {
  can,
  normalisePhone,
  type BulkAssign,
  type Client,
  type ClientCreate,
  type ClientDetail,
  type ClientFilterOptions,
  type ClientUpdate,
  type ClientsQuery,
  type ClientFilters,
  type ClientsResponse,
} from '@brokerage/shared';
import { sql, type OrderByItemBuilder } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { HttpError } from '../../platform/http/errors.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { Db } from '../../platform/db/index.js';
import { centsToDollars } from '../../platform/money.js';
import { notifyClientsAssigned } from '../notifications/service.js';
import { enqueuePostback } from '../postbacks/outbox.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function baseQuery(deps: AppDeps, actor: Actor) {
  return scopeClients(
    deps.db.selectFrom('clients').leftJoin('users as m', 'm.id', 'clients.assigned_manager'),
    actor,
    'clients',
  );
}

export const CLIENT_COLUMNS = [
  'clients.id',
  'clients.name',
  'clients.email',
  'clients.phone',
  'clients.phone_e164',
  'clients.country',
  'clients.campaign',
  'clients.source',
  'clients.notes',
  'clients.status',
  'clients.ftd',
  'clients.total_deposits_cents',
  'clients.affiliate_id',
  'clients.assigned_manager',
  'm.name as assigned_manager_name',
  'clients.user_id',
  'clients.created_at',
  'clients.updated_at',
  'clients.registration_date',
  'clients.last_comment_date',
  'clients.identity_verified',
  'clients.login_created_by',
] as const;

export type ClientRow = {
  id: string | number;
  name: string;
  email: string;
  phone: string;
  phone_e164: string | null;
  country: string;
  campaign: string;
  source: string;
  notes: string;
  status: string;
  ftd: boolean;
  total_deposits_cents: string;
  affiliate_id: number | string | null;
  assigned_manager: string | null;
  assigned_manager_name: string | null;
  user_id: string | null;
  created_at: Date;
  updated_at: Date;
  registration_date: Date | null;
  last_comment_date: Date | null;
  identity_verified: boolean;
  login_created_by: string | null;
};

export function toClient(r: ClientRow): Client {
  return {
    id: Number(r.id),
    name: r.name,
    email: r.email,
    phone: r.phone,
    phone_e164: r.phone_e164,
    country: r.country,
    campaign: r.campaign,
    source: r.source,
    notes: r.notes,
    status: r.status,
    ftd: r.ftd,
    total_deposits: centsToDollars(r.total_deposits_cents),
    // A bigint since migration 0008: a string from pg, a number from PGlite.
    affiliate_id: r.affiliate_id === null ? null : Number(r.affiliate_id),
    assigned_manager: r.assigned_manager,
    assigned_manager_name: r.assigned_manager_name,
    user_id: r.user_id,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    registration_date: iso(r.registration_date),
    last_comment_date: iso(r.last_comment_date),
    identity_verified: r.identity_verified,
    login_created_by: r.login_created_by,
  };
}

const SORT_COLUMNS = {
  id: 'clients.id',
  name: 'clients.name',
  email: 'clients.email',
  status: 'clients.status',
  country: 'clients.country',
  created_at: 'clients.created_at',
  total_deposits: 'clients.total_deposits_cents',
  last_comment_date: 'clients.last_comment_date',
  phone: 'clients.phone',
  campaign: 'clients.campaign',
  ftd: 'clients.ftd',
  /** Clients without an affiliate last, both ways. */
  affiliate_id: 'clients.affiliate_id',
  /** By the manager's name (§2.5 Manager column); unassigned clients last, both ways. */
  assigned_manager: 'm.name',
} as const;

/** The sort columns that can be null: sorted NULLS LAST in both directions (PostgreSQL puts nulls first in DESC). */
const NULLS_LAST: ReadonlySet<keyof typeof SORT_COLUMNS> = new Set([
  'last_comment_date',
  'affiliate_id',
  'assigned_manager',
] as const);

/**
 * The clients in the caller's scope (D5) that match the list's filters (§2.5, §3): the one definition shared by the
 * list and the Excel export (modules/exports), so both always agree. No columns selected, no order, no paging.
 */
export function filteredClients(deps: AppDeps, query: ClientFilters, actor: Actor) {
  const tz = deps.config.BUSINESS_TIMEZONE;
  let q = baseQuery(deps, actor);
  if (query.search) {
    const like = `%${escapeLike(query.search)}%`;
    const digits = query.search.replace(/\D/g, '');
    q = q.where((eb) =>
      eb.or([
        eb('clients.name', 'ilike', like),
        eb('clients.email', 'ilike', like),
        eb('clients.phone', 'ilike', like),
        ...(digits.length >= 3 ? [eb(sql`regexp_replace(clients.phone, '\\D', '', 'g')`, 'like', `%${digits}%`)] : []),
      ]),
    );
  }
  if (query.status?.length) q = q.where('clients.status', 'in', query.status);
  if (query.assigned_manager?.length) {
    const ids = query.assigned_manager.filter((m) => m !== 'null');
    const unassigned = query.assigned_manager.includes('null');
    q = q.where((eb) =>
      eb.or([
        ...(ids.length ? [eb('clients.assigned_manager', 'in', ids)] : []),
        ...(unassigned ? [eb('clients.assigned_manager', 'is', null)] : []),
      ]),
    );
  }
  if (query.country?.length) {
    q = q.where(
      sql`lower(trim(clients.country))`,
      'in',
      query.country.map((c) => c.trim().toLowerCase()),
    );
  }
  if (query.campaign?.length) {
    q = q.where(
      sql`lower(trim(clients.campaign))`,
      'in',
      query.campaign.map((c) => c.trim().toLowerCase()),
    );
  }
  if (query.source) q = q.where('clients.source', 'ilike', `%${escapeLike(query.source)}%`);
  if (query.created_date_from) {
    q = q.where(
      'clients.created_at',
      '>=',
      sql<Date>`(${query.created_date_from}::date)::timestamp at time zone ${tz}`,
    );
  }
  if (query.created_date_to) {
    q = q.where(
      'clients.created_at',
      '<',
      sql<Date>`(${query.created_date_to}::date + 1)::timestamp at time zone ${tz}`,
    );
  }

  if (query.balance_min !== undefined) {
    q = q.where('clients.total_deposits_cents', '>=', String(Math.round(query.balance_min * 100)));
  }
  if (query.balance_max !== undefined) {
    q = q.where('clients.total_deposits_cents', '<=', String(Math.round(query.balance_max * 100)));
  }
  if (query.last_comment_from) {
    q = q.where(
      'clients.last_comment_date',
      '>=',
      sql<Date>`(${query.last_comment_from}::date)::timestamp at time zone ${tz}`,
    );
  }
  if (query.last_comment_to) {
    q = q.where(
      'clients.last_comment_date',
      '<',
      sql<Date>`(${query.last_comment_to}::date + 1)::timestamp at time zone ${tz}`,
    );
  }
  if (query.last_comment_period === 'no_comments') q = q.where('clients.last_comment_date', 'is', null);
  else if (query.last_comment_period) {
    // 'today' and 'yesterday' are calendar days of the business time zone; week and month count back from now.
    const today = sql<Date>`(date_trunc('day', now() at time zone ${tz})) at time zone ${tz}`;
    const from = {
      today,
      yesterday: sql<Date>`(date_trunc('day', now() at time zone ${tz}) - interval '1 day') at time zone ${tz}`,
      week: sql<Date>`now() - interval '7 days'`,
      month: sql<Date>`now() - interval '1 month'`,
    }[query.last_comment_period];
    q = q.where('clients.last_comment_date', '>=', from);
    if (query.last_comment_period === 'yesterday') q = q.where('clients.last_comment_date', '<', today);
  }
  if (query.affiliate?.length) {
    // A lead of an affiliate (affiliate_id, issue 10) is matched by the affiliate's name, deleted or not; a lead
    // without one by the last ' - ' segment of its campaign (§3), and never without a campaign.
    const names = query.affiliate.map((a) => a.trim().toLowerCase());
    q = q.where((eb) =>
      eb.or([
        eb(
          'clients.affiliate_id',
          'in',
          eb
            .selectFrom('affiliates as af')
            .select('af.id')
            .where(sql`lower(trim(af.name))`, 'in', names),
        ),
        eb.and([
          eb('clients.affiliate_id', 'is', null),
          eb('clients.campaign', '!=', ''),
          eb(sql`lower(trim(regexp_replace(clients.campaign, '^.* - ', '')))`, 'in', names),
        ]),
      ]),
    );
  }
  return q;
}

/**
 * The clients list of back-office.md §2.5 (D4: filtered, sorted and paged by the server; D5: only the clients the
 * caller may see). Dates are days in the business time zone, the 'to' day included whole.
 */
export async function listClients(deps: AppDeps, query: ClientsQuery, actor: Actor): Promise<ClientsResponse> {
  const q = filteredClients(deps, query, actor);

  const sortColumn = SORT_COLUMNS[query.sort];
  // Only these columns can be null; NULLS LAST on a NOT NULL column changes no order but keeps PostgreSQL from
  // walking the column's index (migration 0005), turning page 1 of a million rows into a full sort. last_comment_date
  // has an index per direction with NULLS LAST; affiliate_id and the manager's name have no index to lose.
  const nullable = NULLS_LAST.has(query.sort);
  // The exact total (the API answers {items, total}) and the page are independent: on PostgreSQL they run on two
  // pool connections at once, so the answer takes the longer of the two, not their sum (docs/operations.md).
  const direction = (ob: OrderByItemBuilder) => {
    const ordered = query.order === 'asc' ? ob.asc() : ob.desc();
    return nullable ? ordered.nullsLast() : ordered;
  };
  // Deferred join: the page's ids are found first (an index walk that skips `offset` index entries without reading
  // their rows), then only those rows are read and joined to their manager; a deep page no longer reads and joins
  // every row it skips.
  const pageIds = q
    .select('clients.id as page_id')
    .orderBy(sql.ref(sortColumn), direction)
    .orderBy('clients.id', query.order)
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page);
  const [counted, rows] = await Promise.all([
    countClients(deps, query, actor, q),
    deps.db
      .selectFrom(pageIds.as('p'))
      .innerJoin('clients', 'clients.id', 'p.page_id')
      .leftJoin('users as m', 'm.id', 'clients.assigned_manager')
      .leftJoin('affiliates as af', 'af.id', 'clients.affiliate_id')
      .select([...CLIENT_COLUMNS, 'af.name as affiliate_name'])
      .orderBy(sql.ref(sortColumn), direction)
      .orderBy('clients.id', query.order)
      .execute(),
  ]);
  return {
    total: counted.total,
    total_capped: counted.capped,
    items: rows.map((row) => ({
      ...toClient(row as unknown as ClientRow),
      affiliate_name: row.affiliate_name ?? null,
    })),
  };
}

/** Above this many matches a filtered list's total is given as 'more than' (decisions.md, the list's count). */
export const CLIENTS_COUNT_CAP = 10_000;

/** The filters the dashboard's rollup tables can count exactly: their rows are (day, manager, status, …). */
const ROLLUP_FILTERS: ReadonlySet<string> = new Set([
  'status',
  'assigned_manager',
  'created_date_from',
  'created_date_to',
]);
const NOT_FILTERS: ReadonlySet<string> = new Set(['page', 'per_page', 'sort', 'order']);

/**
 * The list's total (issue 12, item 3). Exact and cheap where the filters are ones the dashboard's rollups (migration
 * 0015, kept by triggers in the same transaction as every change to clients) already count: the default view, status,
 * manager and creation dates — a sum over a few thousand rollup rows instead of counting a million leads, in the
 * caller's scope by the same scope rule (D5). Any other filter (search, country, campaign, source, balance, comment
 * date, affiliate) counts at most CLIENTS_COUNT_CAP + 1 matching rows: below the cap the total is exact, above it the
 * answer says `total_capped` and the screen shows 'more than 10,000'.
 */
async function countClients(
  deps: AppDeps,
  query: ClientsQuery,
  actor: Actor,
  filtered: ReturnType<typeof filteredClients>,
): Promise<{ total: number; capped: boolean }> {
  const used = Object.entries(query).filter(
    ([key, value]) =>
      !NOT_FILTERS.has(key) && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0),
  );
  if (used.every(([key]) => ROLLUP_FILTERS.has(key))) {
    const dated = query.created_date_from !== undefined || query.created_date_to !== undefined;
    let r = scopeClients(
      deps.db.selectFrom(dated ? 'dashboard_clients_daily as r' : 'dashboard_clients_monthly as r'),
      actor,
      'r',
    );
    if (query.status?.length) r = r.where('r.status', 'in', query.status);
    if (query.assigned_manager?.length) {
      const ids = query.assigned_manager.filter((m) => m !== 'null');
      const unassigned = query.assigned_manager.includes('null');
      r = r.where((eb) =>
        eb.or([
          ...(ids.length ? [eb('r.assigned_manager', 'in', ids)] : []),
          ...(unassigned ? [eb('r.assigned_manager', 'is', null)] : []),
        ]),
      );
    }
    // The rollup's day is the creation day in the business time zone, exactly the list's date filter.
    if (query.created_date_from) r = r.where('r.day', '>=', sql<string>`${query.created_date_from}::date`);
    if (query.created_date_to) r = r.where('r.day', '<=', sql<string>`${query.created_date_to}::date`);
    const { total } = await r.select(sql<string>`coalesce(sum(r.clients), 0)`.as('total')).executeTakeFirstOrThrow();
    return { total: Number(total), capped: false };
  }
  const { total } = await deps.db
    .selectFrom(
      filtered
        .select('clients.id')
        .limit(CLIENTS_COUNT_CAP + 1)
        .as('f'),
    )
    .select(sql<string>`count(*)`.as('total'))
    .executeTakeFirstOrThrow();
  const n = Number(total);
  return n > CLIENTS_COUNT_CAP ? { total: CLIENTS_COUNT_CAP, capped: true } : { total: n, capped: false };
}

/** The card's extra fields (§3 lead-provider fields, D13): where the lead came from. */
const DETAIL_COLUMNS = [
  'af.name as affiliate_name',
  'clients.ad_name',
  'clients.utm_source',
  'clients.utm_campaign',
  'clients.utm_medium',
  'clients.keyword',
  'clients.region',
  'clients.device',
] as const;

/** One client, or 404 when it does not exist or lies outside the caller's scope (the same answer on purpose). */
export async function getClient(deps: AppDeps, id: number, actor: Actor): Promise<ClientDetail> {
  const row = await baseQuery(deps, actor)
    .leftJoin('affiliates as af', 'af.id', 'clients.affiliate_id')
    .select([...CLIENT_COLUMNS, ...DETAIL_COLUMNS])
    .where('clients.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'client_not_found');
  return {
    ...toClient(row as unknown as ClientRow),
    affiliate_name: row.affiliate_name ?? null,
    ad_name: row.ad_name,
    utm_source: row.utm_source,
    utm_campaign: row.utm_campaign,
    utm_medium: row.utm_medium,
    keyword: row.keyword,
    region: row.region,
    device: row.device,
  };
}

// ---------------------------------------------------------------- writing (back-office.md §2.5, §2.6, §4, §5; D5, D9)

/** One client by id, without the scope: for answering a write the caller was already allowed to make. */
async function loadClient(db: Db, id: number): Promise<Client> {
  const row = await db
    .selectFrom('clients')
    .leftJoin('users as m', 'm.id', 'clients.assigned_manager')
    .select([...CLIENT_COLUMNS])
    .where('clients.id', '=', id)
    .executeTakeFirstOrThrow();
  return toClient(row as unknown as ClientRow);
}

/**
 * A manager that may be assigned: a staff member who is not deleted. Called inside the assigning transaction, it holds
 * the member's row FOR SHARE until that transaction ends, so a concurrent staff delete (which takes the row FOR UPDATE,
 * staff/service deleteUser) either waits for the assignment and then unassigns its clients, or goes first and the
 * assignment, re-reading the row after the wait, finds the member deleted (400) — no client is left with a deleted
 * manager.
 */
async function checkManager(db: Db, id: string): Promise<void> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('role', '!=', 'client')
    .forShare()
    .executeTakeFirst();
  if (!user) throw new HttpError(400, 'manager_not_found');
}

const MANAGER_ROLES = new Set(['sales_manager', 'retention_manager', 'manager']);

/**
 * POST /api/clients (§2.5 'Add client'). Status new unless chosen. A manager's new client is assigned to them, so it
 * stays in their scope (D5); anyone else's new client is unassigned (team leads see unassigned clients).
 */
export async function createClient(deps: AppDeps, input: ClientCreate, actor: Actor): Promise<Client> {
  return deps.db.transaction().execute(async (trx) => {
    const assigned = actor.id && MANAGER_ROLES.has(actor.role) ? actor.id : null;
    const row = await trx
      .insertInto('clients')
      .values({
        name: input.name,
        email: input.email,
        phone: input.phone,
        // D17: the number as E.164 for duplicate checks beside the typed one (null when it cannot be parsed).
        phone_e164: normalisePhone(input.phone, deps.config.DEFAULT_PHONE_REGION),
        country: input.country,
        campaign: input.campaign ?? '',
        source: 'manual',
        notes: '',
        status: input.status,
        assigned_manager: assigned,
        affiliate_id: null,
        user_id: null,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    await writeAudit(trx, actor, {
      action: 'client.create',
      entityType: 'client',
      entityId: id,
      after: { ...input, assigned_manager: assigned },
    });
    return loadClient(trx, id);
  });
}

/**
 * PUT /api/clients/:id (§2.6 edit). Only the fields sent change. A different assigned_manager needs
 * clients.change_manager (403 otherwise) and must be a live staff member. The audit row holds what changed.
 */
export async function updateClient(deps: AppDeps, id: number, input: ClientUpdate, actor: Actor): Promise<Client> {
  return deps.db.transaction().execute(async (trx) => {
    const current = await scopeClients(trx.selectFrom('clients'), actor)
      .selectAll('clients')
      .where('clients.id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new HttpError(404, 'client_not_found');
    const changes: Record<string, string | null> = {};
    for (const [key, value] of Object.entries(input)) {
      if (value === undefined) continue;
      if ((current as Record<string, unknown>)[key] !== value) changes[key] = value as string | null;
    }
    if ('assigned_manager' in changes) {
      if (!can(actor.role === 'system' ? null : actor.role, 'clients.change_manager'))
        throw new HttpError(403, 'cannot_change_manager');
      if (changes.assigned_manager !== null) await checkManager(trx, changes.assigned_manager!);
    }
    if (Object.keys(changes).length > 0) {
      // D17: a new phone renews its E.164 form.
      const phoneE164 =
        'phone' in changes ? { phone_e164: normalisePhone(changes.phone, deps.config.DEFAULT_PHONE_REGION) } : {};
      await trx
        .updateTable('clients')
        .set({ ...changes, ...phoneE164, updated_at: sql`now()` })
        .where('id', '=', id)
        .execute();
      const before = Object.fromEntries(Object.keys(changes).map((k) => [k, (current as Record<string, unknown>)[k]]));
      await writeAudit(trx, actor, {
        action: 'client.update',
        entityType: 'client',
        entityId: id,
        before,
        after: changes,
      });
      if ('assigned_manager' in changes)
        await notifyClientsAssigned(trx, { clientIds: [id], managerId: changes.assigned_manager!, actorId: actor.id });
      // D13/D17: an affiliate's lead that changes status tells the affiliate (no row without a webhook).
      if ('status' in changes) await enqueuePostback(trx, { clientId: id, event: 'STATUS' });
    }
    return loadClient(trx, id);
  });
}

/**
 * POST /api/clients/bulk-assign-manager (§2.5 bulk panel): sets the manager (or clears it) and optionally the status
 * of the selected clients that are in the caller's scope, in one transaction; one audit row per changed client.
 */
export async function bulkAssignManager(deps: AppDeps, input: BulkAssign, actor: Actor): Promise<{ updated: number }> {
  return deps.db.transaction().execute(async (trx) => {
    if (input.assigned_manager !== null) await checkManager(trx, input.assigned_manager);
    const rows = await scopeClients(trx.selectFrom('clients'), actor)
      .select(['clients.id', 'clients.assigned_manager', 'clients.status'])
      .where('clients.id', 'in', [...new Set(input.client_ids)])
      .orderBy('clients.id')
      .forUpdate()
      .execute();
    if (rows.length === 0) return { updated: 0 };
    const ids = rows.map((r) => Number(r.id));
    await trx
      .updateTable('clients')
      .set({
        assigned_manager: input.assigned_manager,
        ...(input.status ? { status: input.status } : {}),
        updated_at: sql`now()`,
      })
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) {
      await writeAudit(trx, actor, {
        action: 'client.bulk_assign',
        entityType: 'client',
        entityId: Number(r.id),
        before: { assigned_manager: r.assigned_manager, status: r.status },
        after: { assigned_manager: input.assigned_manager, status: input.status ?? r.status },
      });
    }
    // Only the clients whose manager actually changed notify the new manager (D12).
    const reassigned = rows.filter((r) => r.assigned_manager !== input.assigned_manager).map((r) => Number(r.id));
    await notifyClientsAssigned(trx, { clientIds: reassigned, managerId: input.assigned_manager, actorId: actor.id });
    // D13/D17: each affiliate lead whose status changed tells its affiliate.
    for (const r of rows) {
      if (input.status && r.status !== input.status)
        await enqueuePostback(trx, { clientId: Number(r.id), event: 'STATUS' });
    }
    return { updated: rows.length };
  });
}

// ---------------------------------------------------------------- filter options (back-office.md §2.5, §3; D5)

type OptionRow = {
  no_country: number | string;
  no_campaign: number | string;
  country: string | null;
  campaign: string | null;
  affiliate: string | null;
};

const byName = (a: string, b: string) => a.localeCompare(b, 'ru', { sensitivity: 'base' });

/**
 * GET /api/clients/filter-options: the distinct countries, campaigns and affiliates (the affiliate's name for its
 * leads, else the last ' - ' segment of a campaign, §3) of the clients in the caller's scope (D5), each kind the `limit` most frequent values (case-insensitive,
 * trimmed; one spelling shown), sorted by name. One scan of the scoped clients (GROUPING SETS) with a per-kind
 * row_number keeps the answer bounded however many distinct values there are; the route caches it briefly.
 * Affiliates only for roles with the affiliates filter (§6).
 */
export async function clientFilterOptions(deps: AppDeps, actor: Actor, limit: number): Promise<ClientFilterOptions> {
  // A lead's affiliate: its affiliate's name when it has one (issue 10), else the campaign's last ' - ' segment (§3).
  const scoped = scopeClients(
    deps.db.selectFrom('clients').leftJoin('affiliates as af', 'af.id', 'clients.affiliate_id'),
    actor,
  ).select([
    sql<string>`trim(clients.country)`.as('country'),
    sql<string>`trim(clients.campaign)`.as('campaign'),
    sql<string>`case when af.id is not null then trim(af.name) when strpos(clients.campaign, ' - ') > 0 then trim(regexp_replace(clients.campaign, '^.* - ', '')) end`.as(
      'affiliate',
    ),
  ]);
  const { rows } = await sql<OptionRow>`
    select no_country, no_campaign, country, campaign, affiliate from (
      select
        grouping(lower(s.country)) as no_country,
        grouping(lower(s.campaign)) as no_campaign,
        min(s.country) as country,
        min(s.campaign) as campaign,
        min(s.affiliate) as affiliate,
        row_number() over (
          partition by grouping(lower(s.country)), grouping(lower(s.campaign))
          order by count(*) desc, min(s.country), min(s.campaign), min(s.affiliate)
        ) as rn
      from (${scoped}) as s
      group by grouping sets ((lower(s.country)), (lower(s.campaign)), (lower(s.affiliate)))
    ) g
    where rn <= ${limit + 1}`.execute(deps.db);
  const countries: string[] = [];
  const campaigns: string[] = [];
  const affiliates: string[] = [];
  for (const r of rows) {
    // The grouping set a row belongs to: 0 marks the key grouped on. The blank value of each kind is dropped.
    if (Number(r.no_country) === 0) {
      if (r.country) countries.push(r.country);
    } else if (Number(r.no_campaign) === 0) {
      if (r.campaign) campaigns.push(r.campaign);
    } else if (r.affiliate) affiliates.push(r.affiliate);
  }
  const mayFilterAffiliates = can(actor.role === 'system' ? null : actor.role, 'clients.affiliate_filter');
  return {
    countries: countries.slice(0, limit).sort(byName),
    campaigns: campaigns.slice(0, limit).sort(byName),
    affiliates: mayFilterAffiliates ? affiliates.slice(0, limit).sort(byName) : [],
  };
}

/** The cache key of a caller's D5 scope: callers with the same scope (and the same affiliates rule) share options. */
export function scopeKey(actor: Actor): string {
  switch (actor.role) {
    case 'superadmin':
    case 'admin':
      return 'all';
    case 'team_lead_sales':
    case 'team_lead_retention':
      return `lead:${actor.department ?? (actor.role === 'team_lead_sales' ? 'sales' : 'retention')}`;
    default:
      return `user:${actor.id}`;
  }
}
