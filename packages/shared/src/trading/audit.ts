import { z } from 'zod';
import { candleSchema, tradeSchema } from './schemas.js';
import { SETTLEMENT_GAP_SECONDS, type TradeDirection } from './settlement.js';

/**
 * Transparency (issue 14): the contract audit of one trade and the public quote history. Nothing here decides an
 * outcome (D1): the audit shows the stored trade, the one published rule and the stored ticks it was settled by.
 */

/** The audit shows the ticks from this long before the strike to this long after the expiry; pruning keeps them. */
export const AUDIT_WINDOW_SECONDS = 30;
/** A trade longer than this shows ticks only around its strike and its expiry, and 1-minute candles in between. */
export const AUDIT_FULL_TICKS_MAX_SECONDS = 600;
/** GET /api/prices/{symbol}/ticks answers at most this span. */
export const QUOTE_HISTORY_MAX_SECONDS = 600;

export const SETTLEMENT_COMPARES = ['close_gt_strike', 'close_lt_strike'] as const;
export type SettlementCompare = (typeof SETTLEMENT_COMPARES)[number];

export interface SettlementRule {
  direction: TradeDirection;
  compare: SettlementCompare;
  tie: 'close_eq_strike';
  gap_seconds: number;
}

/**
 * D1 and D22 as data: a call wins when close > strike, a put when close < strike; close = strike is a tie (stake
 * back); no stored price within gap_seconds before the expiry is 'no_price' (stake back).
 */
export function settlementRule(direction: TradeDirection): SettlementRule {
  return {
    direction,
    compare: direction === 'call' ? 'close_gt_strike' : 'close_lt_strike',
    tie: 'close_eq_strike',
    gap_seconds: SETTLEMENT_GAP_SECONDS,
  };
}

export const priceTickSchema = z.object({
  at: z.string().describe('ISO 8601 instant (UTC) the server stored the tick at'),
  price: z.number().describe("the price, with the asset's decimals"),
});
export type PriceTickView = z.infer<typeof priceTickSchema>;

export const settlementRuleSchema = z.object({
  sentence: z.string().describe("the rule in the caller's language (Accept-Language: ru by default, or en)"),
  direction: z.enum(['call', 'put']),
  compare: z.enum(SETTLEMENT_COMPARES),
  tie: z.literal('close_eq_strike'),
  gap_seconds: z
    .number()
    .int()
    .describe(
      'D22: with no stored price this many seconds before the expiry or later, the stake is returned (no_price)',
    ),
});
export type SettlementRuleView = z.infer<typeof settlementRuleSchema>;

export const tradeAuditSchema = z.object({
  trade: tradeSchema,
  rule: settlementRuleSchema,
  /** The stored ticks from 30 s before the strike to 30 s after the expiry (for an open trade, up to now). */
  ticks: z.array(priceTickSchema),
  /** 1-minute candles between the windows, for a trade longer than 10 minutes; else empty. */
  candles: z.array(candleSchema),
  /** Why a trade settled without a price (D22's gap rule), else null. */
  no_price: z
    .object({
      reason: z.literal('feed_gap'),
      sentence: z.string().describe("the reason in the caller's language"),
      gap_seconds: z.number().int(),
      last_tick_at: z.iso
        .datetime()
        .nullable()
        .describe('the last stored tick at or before the expiry (older than the bound), if any'),
    })
    .nullable(),
});
export type TradeAudit = z.infer<typeof tradeAuditSchema>;

const positiveId = z.coerce
  .number({ error: 'invalid_value' })
  .int({ error: 'invalid_value' })
  .positive({ error: 'invalid_value' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' });
export const tradeIdParam = z.strictObject({ id: positiveId });
export const accountTradeIdParam = z.strictObject({ accountId: positiveId, id: positiveId });

const EXAMPLE_FROM = '2026-11-23T10:00:00.000Z';
export const quoteHistoryQuerySchema = z.strictObject({
  from: z.iso
    .datetime({ offset: true, error: 'invalid_value' })
    .describe('start, ISO 8601 (inclusive)')
    .meta({ example: EXAMPLE_FROM }),
  to: z.iso
    .datetime({ offset: true, error: 'invalid_value' })
    .describe('end, ISO 8601 (inclusive); at most 10 minutes after `from`')
    .meta({ example: '2026-11-23T10:00:05.000Z' }),
});
export type QuoteHistoryQuery = z.infer<typeof quoteHistoryQuerySchema>;

export const quoteHistoryResponseSchema = z
  .object({
    symbol: z.string(),
    ticks: z.array(priceTickSchema),
  })
  .meta({
    example: {
      symbol: 'EURUSD',
      ticks: [
        { at: '2026-11-23T10:00:01.000Z', price: 1.08391 },
        { at: '2026-11-23T10:00:02.000Z', price: 1.0839 },
        { at: '2026-11-23T10:00:03.250Z', price: 1.08412 },
      ],
    },
  });
export type QuoteHistoryResponse = z.infer<typeof quoteHistoryResponseSchema>;
