import type { DashboardResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { centsToDollars } from '../../platform/money.js';
import { utcOffset } from '../../platform/time.js';

type Period = 'all' | 'today' | 'week' | 'month' | 'year';

/** Overview figures over the clients the caller may see (D5), for the chosen period in the business time zone. */
export async function dashboardOverview(deps: AppDeps, period: Period, actor: Actor): Promise<DashboardResponse> {
  const tz = deps.config.BUSINESS_TIMEZONE;
  let q = scopeClients(deps.db.selectFrom('clients'), actor);
  const local = sql`(now() at time zone ${tz})`;
  switch (period) {
    case 'today':
      q = q.where('created_at', '>=', sql<Date>`date_trunc('day', ${local}) at time zone ${tz}`);
      break;
    case 'week':
      q = q.where('created_at', '>=', sql<Date>`now() - interval '7 days'`);
      break;
    case 'month':
      q = q.where('created_at', '>=', sql<Date>`date_trunc('month', ${local}) at time zone ${tz}`);
      break;
    case 'year':
      q = q.where('created_at', '>=', sql<Date>`date_trunc('year', ${local}) at time zone ${tz}`);
      break;
  }
  const row = await q
    .select((eb) => [
      eb.fn.countAll<string>().as('total'),
      sql<string>`count(*) filter (where ftd)`.as('ftd'),
      sql<string>`coalesce(sum(total_deposits_cents), 0)`.as('cents'),
    ])
    .executeTakeFirstOrThrow();
  return {
    overview: {
      total_clients: Number(row.total),
      ftd_clients: Number(row.ftd),
      total_deposit_amount: centsToDollars(row.cents),
    },
    timezone: { timezone: tz, offset: utcOffset(tz) },
  };
}
