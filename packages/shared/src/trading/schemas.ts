import { z } from 'zod';
import { missingOrWrongType, pageQuery, requiredText } from '../schemas/common.js';
import { ASSET_CATEGORIES } from './assets.js';
import { isDollarAmount } from './money.js';
import { manualCreditSchema } from '../schemas/funds.js';
import { TRADE_DIRECTIONS, TRADE_STATUSES } from './settlement.js';
import { tradeVoidRequestSchema } from './void-requests.js';

/** Dollars at the API edge: a JSON number with at most 2 decimals (decisions.md D3). */
export const dollarAmount = z
  .number({ error: missingOrWrongType })
  .refine((v) => isDollarAmount(v), { error: 'invalid_value' });
export const nonNegativeDollars = dollarAmount.refine((v) => v >= 0, { error: 'invalid_value' });

/** Ids in paths: a positive whole number (anything else is refused with 400, an unknown one is 404). */
const idParam = z.coerce
  .number({ error: 'invalid_value' })
  .int({ error: 'invalid_value' })
  .positive({ error: 'invalid_value' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' });
export const accountIdParam = z.strictObject({ accountId: idParam });
export const clientIdParam = z.strictObject({ clientId: idParam });
export const symbolParam = z.strictObject({ symbol: z.string().trim().min(1).max(32) });

export const tradeDirectionSchema = z.enum(TRADE_DIRECTIONS, { error: 'invalid_value' });
export const tradeStatusSchema = z.enum(TRADE_STATUSES);
export const accountStatusSchema = z.enum(['active', 'blocked', 'demo']);
export type AccountStatus = z.infer<typeof accountStatusSchema>;

// ---------------------------------------------------------------- prices

export const assetSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  category: z.enum(ASSET_CATEGORIES.map((c) => c.id) as [string, ...string[]]),
  decimals: z.number().int(),
});

export const latestPriceSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  category: z.string(),
  decimals: z.number().int(),
  /** null until the server has a price for the asset. */
  price: z.number().nullable(),
  at: z.string().nullable(),
});
export type LatestPrice = z.infer<typeof latestPriceSchema>;
export const pricesResponseSchema = z.array(latestPriceSchema);

export const CANDLE_INTERVALS = ['1m', '5m', '15m', '1h'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];
export const candlesQuerySchema = z.strictObject({
  interval: z.enum(CANDLE_INTERVALS, { error: 'invalid_value' }).default('1m'),
  from: z.iso.datetime({ offset: true, error: 'invalid_value' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'invalid_value' }).optional(),
});
export type CandlesQuery = z.infer<typeof candlesQuerySchema>;
export const candleSchema = z.object({
  /** Start of the interval, Unix seconds (UTC), as the chart library takes it. */
  time: z.number().int(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
});
export const candlesResponseSchema = z.object({
  symbol: z.string(),
  interval: z.enum(CANDLE_INTERVALS),
  candles: z.array(candleSchema),
});
export type CandlesResponse = z.infer<typeof candlesResponseSchema>;

// ---------------------------------------------------------------- client trading

/**
 * client-platform.md §3 Reading A. The client may send the price it saw and the payout it expects; the server reads
 * neither (D1): the strike is the server's own latest price and the payout is the account's.
 */
export const placeTradeRequestSchema = z.strictObject({
  direction: tradeDirectionSchema,
  amount: dollarAmount,
  duration: z.number({ error: missingOrWrongType }).int({ error: 'invalid_value' }),
  asset: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(32, { error: 'max_length:32' }),
  strike_price: z
    .number({ error: 'invalid_type' })
    .nullable()
    .optional()
    .describe('ignored: the server uses its own price'),
  expected_payout: z
    .number({ error: 'invalid_type' })
    .nullable()
    .optional()
    .describe('ignored: the account payout applies'),
});
export type PlaceTradeRequest = z.infer<typeof placeTradeRequestSchema>;

/** A trade as its client sees it: every price and time the result was decided by. */
export const tradeSchema = z.object({
  id: z.number().int(),
  asset: z.string(),
  direction: tradeDirectionSchema,
  amount: z.number(),
  duration: z.number().int(),
  status: tradeStatusSchema,
  payout: z.number().int().describe('payout percentage fixed when the trade opened'),
  payout_percentage: z.number().int(),
  expected_payout: z.number().describe('profit if won: amount × payout / 100'),
  /** won: +profit; lost: −amount; tie and voided: 0; active: null. */
  profit_loss: z.number().nullable(),
  strike_price: z.number(),
  strike_at: z.string(),
  close_price: z.number().nullable(),
  close_at: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  settled_at: z.string().nullable(),
});
export type Trade = z.infer<typeof tradeSchema>;

export const placeTradeResponseSchema = z.object({ trade: tradeSchema, balance: z.number() });
export type PlaceTradeResponse = z.infer<typeof placeTradeResponseSchema>;

export const tradesQuerySchema = z.strictObject({
  ...pageQuery,
  per_page: z.coerce.number().int().min(1).max(200).default(10),
  status: z.enum([...TRADE_STATUSES, 'closed'], { error: 'invalid_value' }).optional(),
});
export type TradesQuery = z.infer<typeof tradesQuerySchema>;
export const tradesResponseSchema = z.object({ items: z.array(tradeSchema), total: z.number().int() });
export type TradesResponse = z.infer<typeof tradesResponseSchema>;

export const openTradeSchema = tradeSchema.pick({
  id: true,
  asset: true,
  direction: true,
  amount: true,
  duration: true,
  payout_percentage: true,
  expected_payout: true,
  strike_price: true,
  strike_at: true,
  created_at: true,
  expires_at: true,
});
export const openTradesResponseSchema = z.array(openTradeSchema);

export const balanceResponseSchema = z.object({ balance: z.number(), total_profit: z.number() });
export type BalanceResponse = z.infer<typeof balanceResponseSchema>;

export const clientSettingsResponseSchema = z.object({
  payout_percentage: z.number().int(),
  trading_enabled: z.boolean(),
  max_trade_amount: z.number(),
  min_trade_amount: z.number(),
  /** The expiry options this server offers, in seconds. */
  durations: z.array(z.number().int()),
});
export type ClientSettingsResponse = z.infer<typeof clientSettingsResponseSchema>;

// ---------------------------------------------------------------- staff administration

export const BALANCE_BUCKETS = ['zero', 'low', 'medium', 'high'] as const;
export const accountsQuerySchema = z.strictObject({
  ...pageQuery,
  search: z.string().trim().max(120).optional(),
  status: accountStatusSchema.optional(),
  /** back-office.md §9: zero = 0; low ≤ 100; medium ≤ 1000; high > 1000 dollars. */
  balance: z.enum(BALANCE_BUCKETS, { error: 'invalid_value' }).optional(),
  sort: z.enum(['id', 'balance', 'last_activity', 'created_at'], { error: 'invalid_value' }).default('id'),
  order: z.enum(['asc', 'desc'], { error: 'invalid_value' }).default('desc'),
});
export type AccountsQuery = z.infer<typeof accountsQuerySchema>;

export const tradingAccountSchema = z.object({
  id: z.number().int(),
  client_id: z.number().int(),
  client_name: z.string(),
  client_email: z.string(),
  user_id: z.string().nullable(),
  /** The client user's account number (client-platform.md §3 platform_id). */
  platform_id: z.string().nullable(),
  balance: z.number(),
  /** Sum of the stakes of every trade that was not voided. */
  total_invested: z.number(),
  total_profit: z.number(),
  total_trades: z.number().int(),
  active_trades_count: z.number().int(),
  status: accountStatusSchema,
  trading_enabled: z.boolean(),
  max_trade_amount: z.number(),
  payout_percentage: z.number().int(),
  last_activity: z.string().nullable(),
  created_at: z.string(),
});
export type TradingAccount = z.infer<typeof tradingAccountSchema>;

export const accountStatsSchema = z.object({
  totalAccounts: z.number().int(),
  activeAccounts: z.number().int(),
  totalBalance: z.number(),
  totalProfit: z.number(),
  activeTrades: z.number().int(),
});
export const accountsResponseSchema = z.object({
  accounts: z.array(tradingAccountSchema),
  total: z.number().int(),
  stats: accountStatsSchema,
});
export type AccountsResponse = z.infer<typeof accountsResponseSchema>;

export const adminTradeSchema = tradeSchema.omit({ payout: true, profit_loss: true }).extend({
  account_id: z.number().int(),
  profit: z.number().nullable(),
  void_reason: z.string().nullable(),
  voided_by: z.string().nullable(),
  voided_by_name: z.string().nullable(),
  /** Who confirmed the void (issue 20 finding 11: `voided_by` asked for it). */
  void_confirmed_by_name: z.string().nullable(),
});
export type AdminTrade = z.infer<typeof adminTradeSchema>;

export const accountDetailResponseSchema = z.object({
  account: tradingAccountSchema,
  activeTrades: z.array(adminTradeSchema),
  /** The 50 newest closed trades. */
  tradeHistory: z.array(adminTradeSchema),
  /** D20: the account's manual credits waiting for a second staff member's confirmation. */
  pendingCredits: z.array(manualCreditSchema),
  /** Issue 20 finding 11: voids of the account's trades waiting for a second staff member, oldest first. */
  pendingVoids: z.array(tradeVoidRequestSchema),
});
export type AccountDetailResponse = z.infer<typeof accountDetailResponseSchema>;
export const activeTradesResponseSchema = z.object({ activeTrades: z.array(adminTradeSchema) });

export const LEDGER_KINDS = [
  'deposit',
  'deposit_correction',
  'withdrawal_hold',
  'withdrawal_release',
  'trade_stake',
  'trade_payout',
  'trade_refund',
  'adjustment',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];
export const ledgerEntrySchema = z.object({
  id: z.number().int(),
  kind: z.enum(LEDGER_KINDS),
  amount: z.number(),
  balance_after: z.number(),
  reference: z.string(),
  actor_id: z.string().nullable(),
  actor_name: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;
export const ledgerQuerySchema = z.strictObject({ ...pageQuery });
export const ledgerResponseSchema = z.object({ items: z.array(ledgerEntrySchema), total: z.number().int() });

/**
 * D1: the one thing staff may do to a trade — void an active one, with a reason. The call records a void request that
 * a second staff member confirms (issue 20 finding 11): it answers 202 with the request (tradeVoidRequestSchema).
 */
export const voidTradeRequestSchema = z.strictObject({
  trade_id: z
    .number({ error: missingOrWrongType })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' }),
  reason: requiredText(500),
});
export type VoidTradeRequest = z.infer<typeof voidTradeRequestSchema>;

export const balanceChangeRequestSchema = z.strictObject({
  action: z.enum(['set', 'add', 'subtract'], { error: 'invalid_value' }),
  amount: nonNegativeDollars,
  reason: requiredText(500),
});
export type BalanceChangeRequest = z.infer<typeof balanceChangeRequestSchema>;
export const balanceChangeResponseSchema = z.object({
  account: tradingAccountSchema,
  /** null when the change was zero (set to the current balance). */
  entry: ledgerEntrySchema.nullable(),
});

export const MAX_TRADE_LIMIT_DOLLARS = 10_000_000;
export const accountSettingsRequestSchema = z
  .strictObject({
    trading_enabled: z.boolean({ error: 'invalid_type' }).optional(),
    max_trade_amount: nonNegativeDollars
      .refine((v) => v <= MAX_TRADE_LIMIT_DOLLARS, { error: 'invalid_value' })
      .optional(),
    payout_percentage: z
      .number({ error: 'invalid_type' })
      .int({ error: 'invalid_value' })
      .min(1, { error: 'invalid_value' })
      .max(100, { error: 'invalid_value' })
      .optional(),
  })
  .refine(
    (v) => v.trading_enabled !== undefined || v.max_trade_amount !== undefined || v.payout_percentage !== undefined,
    {
      error: 'required',
    },
  );
export type AccountSettingsRequest = z.infer<typeof accountSettingsRequestSchema>;

/** PUT /trading/admin/balance/{clientId} {balance: 0}: opens the account of a registered client with balance 0. */
export const createAccountRequestSchema = z.strictObject({
  balance: z.literal(0, { error: 'invalid_value' }),
});
