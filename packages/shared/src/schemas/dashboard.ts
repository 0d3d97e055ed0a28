import { z } from 'zod';

/** GET /api/health: readiness (the database answered within its bound; 503 'degraded' otherwise). */
export const healthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  db: z.enum(['ok', 'down']),
  /** Whether the database has every migration this build knows ('unknown' while it does not answer). */
  migrations: z.enum(['current', 'behind', 'unknown']),
  version: z.string(),
});

/** GET /api/health/live: liveness (the process answers; the database is not asked). */
export const livenessResponseSchema = z.object({
  status: z.literal('ok'),
  version: z.string(),
});

const day = z.iso.date({ error: 'invalid_value' }).refine((v) => !v.startsWith('0000-'), { error: 'invalid_value' });
const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(100)).optional();

export const DASHBOARD_PERIODS = ['all', 'today', 'week', 'month', 'year'] as const;
export type DashboardPeriod = (typeof DASHBOARD_PERIODS)[number];

/**
 * GET /api/dashboard (back-office.md §2.4, §7; issue 11): `period` (absent = all time), or `date_from` and `date_to`
 * (inclusive local dates in the business time zone, both or neither; they override the period), and `manager_id`
 * repeated (superadmin only; a deleted manager's id filters the deposits attributed to them).
 */
export const dashboardQuerySchema = z
  .strictObject({
    period: z.enum(DASHBOARD_PERIODS, { error: 'invalid_value' }).default('all'),
    date_from: day.optional(),
    date_to: day.optional(),
    manager_id: repeated(z.uuid({ error: 'invalid_value' })),
  })
  .refine((q) => (q.date_from === undefined) === (q.date_to === undefined), {
    error: 'dates_both_or_neither',
    path: ['date_to'],
  })
  .refine((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, {
    error: 'date_from_after_date_to',
    path: ['date_from'],
  });
export type DashboardQuery = z.infer<typeof dashboardQuerySchema>;

const figures = {
  clients: z.number().int(),
  ftd: z.number().int(),
  deposit_amount: z.number(),
};

export const dashboardManagerRowSchema = z.object({
  manager_id: z.string(),
  name: z.string(),
  role: z.string(),
  ...figures,
  deposit_count: z.number().int(),
});
export type DashboardManagerRow = z.infer<typeof dashboardManagerRowSchema>;

export const dashboardCampaignRowSchema = z.object({
  campaign: z.string(),
  ...figures,
  conversion_rate: z.number(),
});

export const dashboardAffiliateRowSchema = z.object({
  affiliate_id: z.number().int().nullable(),
  name: z.string(),
  status: z.enum(['active', 'inactive', 'paused', 'deleted']),
  ...figures,
  conversion_rate: z.number(),
  campaigns: z.array(dashboardCampaignRowSchema),
});
export type DashboardAffiliateRow = z.infer<typeof dashboardAffiliateRowSchema>;

export const dashboardResponseSchema = z.object({
  overview: z.object({
    total_clients: z.number().int(),
    ftd_clients: z.number().int(),
    /** §3's total_deposits (a count), renamed: the affiliate statistics use total_deposits for money. */
    deposit_count: z.number().int(),
    total_deposit_amount: z.number(),
    total_trading_balance: z.number(),
    /** FTD clients / clients × 100, one decimal. */
    conversion_rate: z.number(),
  }),
  /** Superadmin only (§2.4); empty for other roles. */
  departments: z.object({ sales: z.array(dashboardManagerRowSchema), retention: z.array(dashboardManagerRowSchema) }),
  deleted_managers: z.array(dashboardManagerRowSchema),
  affiliates: z.array(dashboardAffiliateRowSchema),
  /** Exactly the last six calendar months in the business time zone, oldest first. */
  monthly: z.array(
    z.object({
      month: z.string(),
      clients: z.number().int(),
      deposit_amount: z.number(),
      deposit_count: z.number().int(),
    }),
  ),
  status_breakdown: z.array(z.object({ status: z.string(), clients: z.number().int() })),
  /** The period the figures cover, as local dates (null = from the beginning / up to now). */
  range: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
  timezone: z.object({ timezone: z.string(), offset: z.string() }),
});
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;
