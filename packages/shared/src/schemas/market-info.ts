import { z } from 'zod';

/**
 * Economic calendar and fundamentals (client-platform.md §2.8, §2.9, §3; decisions.md D14): served by our server from
 * a provider; `source` says where the data comes from and `snapshot_date` is set when it is the shipped demo snapshot.
 */
export const CALENDAR_EVENT_TYPES = ['economic', 'earnings', 'dividends', 'splits'] as const;
export type CalendarEventType = (typeof CALENDAR_EVENT_TYPES)[number];
export const CALENDAR_FILTERS = ['all', ...CALENDAR_EVENT_TYPES] as const;

export const marketInfoSourceSchema = z.object({
  /** 'snapshot' (the dated demo data shipped with the project) or the provider's name. */
  provider: z.string(),
  demo: z.boolean(),
  /** The date of the snapshot (YYYY-MM-DD) when demo is true. */
  snapshot_date: z.string().nullable(),
  /** When the provider's data was fetched (ISO 8601). */
  fetched_at: z.string(),
});
export type MarketInfoSource = z.infer<typeof marketInfoSourceSchema>;

export const calendarEventSchema = z.object({
  id: z.string(),
  type: z.enum(CALENDAR_EVENT_TYPES),
  date: z.string().describe('YYYY-MM-DD'),
  time: z.string().nullable().describe('HH:MM, UTC'),
  title: z.string(),
  description: z.string().nullable(),
  impact: z.enum(['high', 'medium', 'low']).nullable(),
  asset: z.string().nullable(),
  currency: z.string().nullable(),
  forecast: z.string().nullable(),
  actual: z.string().nullable(),
  previous: z.string().nullable(),
  /** Dividend per share. */
  amount: z.number().nullable(),
  /** Split ratio, e.g. '4:1'. */
  ratio: z.string().nullable(),
});
export type CalendarEvent = z.infer<typeof calendarEventSchema>;

export const calendarQuerySchema = z.strictObject({
  type: z.enum(CALENDAR_FILTERS, { error: 'invalid_value' }).default('all'),
});
export const calendarResponseSchema = z.object({
  source: marketInfoSourceSchema,
  events: z.array(calendarEventSchema),
});
export type CalendarResponse = z.infer<typeof calendarResponseSchema>;

/** §2.9: real data for the first eight; the selector also lists the rest. */
export const FUNDAMENTALS_SYMBOLS = ['AAPL', 'GOOGL', 'TSLA', 'MSFT', 'AMZN', 'NFLX', 'NVDA', 'META'] as const;
export const FUNDAMENTALS_EXTRA_SYMBOLS = ['AMD', 'INTC', 'CRM', 'ORCL', 'IBM', 'CSCO', 'ADBE'] as const;
export const FUNDAMENTALS_SELECTOR = [...FUNDAMENTALS_SYMBOLS, ...FUNDAMENTALS_EXTRA_SYMBOLS] as const;

const num = z.number().nullable();
export const fundamentalsSchema = z.object({
  symbol: z.string(),
  profile: z.object({ name: z.string(), sector: z.string().nullable(), market_capitalization: num }),
  ratios: z.object({
    pe: num,
    pb: num,
    roe: num,
    roa: num,
    debt_to_equity: num,
    current_ratio: num,
    quick_ratio: num,
    beta: num,
  }),
  /** Percentages. */
  margins: z.object({ gross_margin: num, operating_margin: num, net_margin: num }),
  financials: z.object({ revenue: num, net_income: num, eps: num, dividend_yield: num }),
});
export type Fundamentals = z.infer<typeof fundamentalsSchema>;
export const fundamentalsParam = z.strictObject({
  symbol: z
    .string()
    .trim()
    .min(1, { error: 'required' })
    .max(12, { error: 'max_length:12' })
    .regex(/^[A-Za-z.]+$/, { error: 'invalid_value' }),
});
export const fundamentalsResponseSchema = z.object({ source: marketInfoSourceSchema, data: fundamentalsSchema });
export type FundamentalsResponse = z.infer<typeof fundamentalsResponseSchema>;

/**
 * GET /api/fundamentals: the stocks of the selector the current source has data for, in selector order (issue 27 item
 * 13: the selector listed seven stocks the shipped snapshot has nothing on, each answering 'no data').
 */
export const fundamentalsListSchema = z.object({
  source: z.enum(['live', 'snapshot']).describe("'snapshot' when the shipped snapshot answers (no provider key)"),
  symbols: z.array(z.string()),
});
export type FundamentalsList = z.infer<typeof fundamentalsListSchema>;
