import { sql, type Kysely } from 'kysely';

/**
 * The dashboard at a million leads (issue 11): two daily rollups, kept by statement-level triggers in the very
 * transaction that changes `clients` or `deposits`, so they can never disagree with the rows they sum.
 *
 * - `dashboard_clients_daily`: clients per (local day of created_at, current manager, affiliate, campaign-suffix name,
 *   campaign — kept only for affiliate leads —, status, ftd).
 * - `dashboard_deposits_daily`: live deposits (count, cents) per (local day, attributed manager, the client's current
 *   manager, affiliate, suffix name, campaign).
 * - `dashboard_clients_monthly`, `dashboard_deposits_monthly`: the same summed per month (`day` = the month's first day),
 *   so a period of whole months reads a few thousand rows instead of a day per manager and status.
 * `assigned_manager` is named as on `clients`, so the one scope helper (D5) filters the rollups like the clients.
 *
 * Days are in the business time zone stored in `dashboard_settings` (the server writes BUSINESS_TIMEZONE there at
 * start and rebuilds the rollups when it changed: `rebuild_dashboard_rollups()`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const tz = (process.env.BUSINESS_TIMEZONE ?? '').trim() || 'Europe/Kyiv';
  await sql`create table dashboard_settings (id boolean primary key default true check (id), timezone text not null)`.execute(
    db,
  );
  await sql`insert into dashboard_settings (timezone) values (${tz})`.execute(db);

  for (const grain of ['daily', 'monthly']) {
    await sql`create table ${sql.raw(`dashboard_clients_${grain}`)} (
        day date not null,
        assigned_manager uuid,
        affiliate_id bigint,
        suffix text,
        campaign text not null,
        status text not null,
        ftd boolean not null,
        clients integer not null
      )`.execute(db);
    await sql`create unique index ${sql.raw(`dashboard_clients_${grain}_key`)} on ${sql.raw(`dashboard_clients_${grain}`)}
        (day, assigned_manager, affiliate_id, suffix, campaign, status, ftd) nulls not distinct`.execute(db);
    await sql`create table ${sql.raw(`dashboard_deposits_${grain}`)} (
        day date not null,
        attributed_manager uuid,
        assigned_manager uuid,
        affiliate_id bigint,
        suffix text,
        campaign text not null,
        deposits integer not null,
        cents bigint not null
      )`.execute(db);
    await sql`create unique index ${sql.raw(`dashboard_deposits_${grain}_key`)} on ${sql.raw(`dashboard_deposits_${grain}`)}
        (day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign) nulls not distinct`.execute(db);
  }

  // The lead's affiliate name from its campaign (§3: the part after the last ' - '), for leads without affiliate_id;
  // and the campaign as the dashboard groups it (only affiliate and suffix leads keep one).
  await sql`create function dashboard_suffix(affiliate_id bigint, campaign text) returns text
      language sql immutable as $$
        select case when affiliate_id is null and campaign like '% - %'
          then btrim(regexp_replace(campaign, '^.* - ', '')) end $$`.execute(db);
  await sql`create function dashboard_campaign(affiliate_id bigint, campaign text) returns text
      language sql immutable as $$
        select case
          when affiliate_id is not null then btrim(campaign)
          when campaign like '% - %' then btrim(regexp_replace(campaign, ' - [^-]*$', ''))
          else '' end $$`.execute(db);

  // Each trigger adds signed contributions in one upsert ordered by key (so concurrent writers lock rollup rows in one
  // order); an update's old (−) and new (+) rows go into the same statement, so a change that moves nothing the
  // rollups key on (a comment date, a name) writes nothing.
  const clientRows = (alias: string, table: string, sign: string) => `
      select (${alias}.created_at at time zone tz)::date as day, ${alias}.assigned_manager, ${alias}.affiliate_id,
             dashboard_suffix(${alias}.affiliate_id, ${alias}.campaign) as suffix,
             dashboard_campaign(${alias}.affiliate_id, ${alias}.campaign) as campaign, ${alias}.status, ${alias}.ftd,
             ${sign}1 as n
      from ${table} ${alias}`;
  // Both grains: a month row holds the sum of its days (its `day` is the month's first day).
  const GRAINS = [
    ['daily', 'day'],
    ['monthly', "date_trunc('month', day)::date"],
  ] as const;
  const upsertClients = (rows: string) =>
    GRAINS.map(
      ([grain, bucket]) => `
      insert into dashboard_clients_${grain} as r (day, assigned_manager, affiliate_id, suffix, campaign, status, ftd, clients)
      select ${bucket}, assigned_manager, affiliate_id, suffix, campaign, status, ftd, sum(n)::int
      from (${rows}) x
      group by 1, 2, 3, 4, 5, 6, 7 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6, 7
      on conflict (day, assigned_manager, affiliate_id, suffix, campaign, status, ftd)
        do update set clients = r.clients + excluded.clients;`,
    ).join('\n');
  // A deposit row `d` under its client's attributes `c`.
  const depositRows = (d: string, c: string, from: string, sign: string) => `
      select (${d}.created_at at time zone tz)::date as day, ${d}.attributed_manager, ${c}.assigned_manager,
             ${c}.affiliate_id, dashboard_suffix(${c}.affiliate_id, ${c}.campaign) as suffix,
             dashboard_campaign(${c}.affiliate_id, ${c}.campaign) as campaign, ${sign}1 as n,
             ${sign}${d}.amount_cents as cents
      from ${from}`;
  const upsertDeposits = (rows: string) =>
    GRAINS.map(
      ([grain, bucket]) => `
      insert into dashboard_deposits_${grain} as r
        (day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign, deposits, cents)
      select ${bucket}, attributed_manager, assigned_manager, affiliate_id, suffix, campaign, sum(n)::int, sum(cents)::bigint
      from (${rows}) x
      group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 or sum(cents) <> 0 order by 1, 2, 3, 4, 5, 6
      on conflict (day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign)
        do update set deposits = r.deposits + excluded.deposits, cents = r.cents + excluded.cents;`,
    ).join('\n');
  const moved = `o.assigned_manager is distinct from n.assigned_manager or o.affiliate_id is distinct from n.affiliate_id
             or o.campaign is distinct from n.campaign`;

  // Clients: inserted rows count +1, deleted −1, an update moves a row (−old, +new); when a client's manager,
  // affiliate or campaign changes, its live deposits move with it (the deposits rollup keys on the client's current
  // manager, which is what the D5 scope filters on).
  await sql
    .raw(
      `create function dashboard_clients_changed() returns trigger language plpgsql as $$
    declare tz text := (select timezone from dashboard_settings);
    begin
      if tg_op = 'INSERT' then
        ${upsertClients(clientRows('n', 'new_rows', '+'))}
      elsif tg_op = 'DELETE' then
        ${upsertClients(clientRows('o', 'old_rows', '-'))}
      else
        ${upsertClients(`${clientRows('o', 'old_rows', '-')} union all ${clientRows('n', 'new_rows', '+')}`)}
        ${upsertDeposits(
          `${depositRows('d', 'o', `old_rows o join new_rows n on n.id = o.id join deposits d on d.client_id = o.id and d.deleted_at is null where ${moved}`, '-')}
           union all
           ${depositRows('d', 'n', `old_rows o join new_rows n on n.id = o.id join deposits d on d.client_id = n.id and d.deleted_at is null where ${moved}`, '+')}`,
        )}
      end if;
      return null;
    end $$`,
    )
    .execute(db);

  // Deposits: a live deposit counts once under its day, attributed manager and its client's current attributes; a
  // soft delete (deleted_at set) takes it out, an edit of the amount moves the difference.
  const oldDeposits = depositRows(
    'o',
    'c',
    'old_rows o join clients c on c.id = o.client_id where o.deleted_at is null',
    '-',
  );
  const newDeposits = depositRows(
    'n',
    'c',
    'new_rows n join clients c on c.id = n.client_id where n.deleted_at is null',
    '+',
  );
  await sql
    .raw(
      `create function dashboard_deposits_changed() returns trigger language plpgsql as $$
    declare tz text := (select timezone from dashboard_settings);
    begin
      if tg_op = 'INSERT' then
        ${upsertDeposits(newDeposits)}
      elsif tg_op = 'DELETE' then
        ${upsertDeposits(oldDeposits)}
      else
        ${upsertDeposits(`${oldDeposits} union all ${newDeposits}`)}
      end if;
      return null;
    end $$`,
    )
    .execute(db);

  for (const [table, fn] of [
    ['clients', 'dashboard_clients_changed'],
    ['deposits', 'dashboard_deposits_changed'],
  ] as const) {
    await sql`create trigger ${sql.raw(`${table}_dashboard_insert`)} after insert on ${sql.raw(table)}
        referencing new table as new_rows for each statement execute function ${sql.raw(fn)}()`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_dashboard_update`)} after update on ${sql.raw(table)}
        referencing old table as old_rows new table as new_rows for each statement execute function ${sql.raw(fn)}()`.execute(
      db,
    );
    await sql`create trigger ${sql.raw(`${table}_dashboard_delete`)} after delete on ${sql.raw(table)}
        referencing old table as old_rows for each statement execute function ${sql.raw(fn)}()`.execute(db);
  }

  // A full recomputation from the raw tables (first fill, and after a time-zone change).
  await sql`create function rebuild_dashboard_rollups() returns void language plpgsql as $$
    declare tz text := (select timezone from dashboard_settings);
    begin
      lock table dashboard_clients_daily, dashboard_deposits_daily, dashboard_clients_monthly, dashboard_deposits_monthly
        in exclusive mode;
      delete from dashboard_clients_daily;
      delete from dashboard_deposits_daily;
      delete from dashboard_clients_monthly;
      delete from dashboard_deposits_monthly;
      insert into dashboard_clients_daily (day, assigned_manager, affiliate_id, suffix, campaign, status, ftd, clients)
      select (created_at at time zone tz)::date, assigned_manager, affiliate_id, dashboard_suffix(affiliate_id, campaign),
             dashboard_campaign(affiliate_id, campaign), status, ftd, count(*)
      from clients group by 1, 2, 3, 4, 5, 6, 7;
      insert into dashboard_deposits_daily (day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign,
                                            deposits, cents)
      select (d.created_at at time zone tz)::date, d.attributed_manager, c.assigned_manager, c.affiliate_id,
             dashboard_suffix(c.affiliate_id, c.campaign), dashboard_campaign(c.affiliate_id, c.campaign),
             count(*), sum(d.amount_cents)
      from deposits d join clients c on c.id = d.client_id
      where d.deleted_at is null group by 1, 2, 3, 4, 5, 6;
      insert into dashboard_clients_monthly (day, assigned_manager, affiliate_id, suffix, campaign, status, ftd, clients)
      select date_trunc('month', day)::date, assigned_manager, affiliate_id, suffix, campaign, status, ftd, sum(clients)
      from dashboard_clients_daily group by 1, 2, 3, 4, 5, 6, 7;
      insert into dashboard_deposits_monthly (day, attributed_manager, assigned_manager, affiliate_id, suffix, campaign,
                                              deposits, cents)
      select date_trunc('month', day)::date, attributed_manager, assigned_manager, affiliate_id, suffix, campaign,
             sum(deposits), sum(cents)
      from dashboard_deposits_daily group by 1, 2, 3, 4, 5, 6;
    end $$`.execute(db);
  await sql`select rebuild_dashboard_rollups()`.execute(db);
}
