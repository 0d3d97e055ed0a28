import { z } from 'zod';

export const healthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  db: z.enum(['ok', 'down']),
  version: z.string(),
});

export const dashboardQuerySchema = z.strictObject({
  period: z.enum(['all', 'today', 'week', 'month', 'year']).default('all'),
});

export const dashboardResponseSchema = z.object({
  overview: z.object({
    total_clients: z.number().int(),
    ftd_clients: z.number().int(),
    total_deposit_amount: z.number(),
  }),
  timezone: z.object({ timezone: z.string(), offset: z.string() }),
});
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;
