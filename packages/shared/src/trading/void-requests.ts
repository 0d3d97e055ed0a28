import { z } from 'zod';
import { pageQuery, requiredText } from '../schemas/common.js';
import { TRADE_DIRECTIONS, TRADE_STATUSES } from './settlement.js';

/**
 * Voiding an open trade takes two people (issue 20 finding 11, decisions.md D20 'Voids'): the void call records a
 * request (pending); a second staff member with finance.approve who did not ask confirms it (the trade is voided and
 * its stake returned) or rejects it; its requester may withdraw it while it waits; a request whose trade reaches its
 * expiry first has lapsed (told as such from that moment, whether or not settlement has run).
 */
export const VOID_REQUEST_STATUSES = ['pending', 'confirmed', 'rejected', 'lapsed', 'withdrawn'] as const;
export type VoidRequestStatus = (typeof VOID_REQUEST_STATUSES)[number];

export const tradeVoidRequestSchema = z.object({
  id: z.number().int(),
  status: z.enum(VOID_REQUEST_STATUSES),
  trade_id: z.number().int(),
  account_id: z.number().int(),
  client_id: z.number().int(),
  client_name: z.string(),
  /** The trade as it is now: asset, direction, stake (dollars), expiry, status (voided once confirmed). */
  asset: z.string(),
  direction: z.enum(TRADE_DIRECTIONS),
  amount: z.number(),
  expires_at: z.string(),
  trade_status: z.enum(TRADE_STATUSES),
  /** Why the requester wants it voided (the trade's void reason once confirmed). */
  reason: z.string(),
  requested_by: z.string().nullable(),
  requested_by_name: z.string(),
  requested_at: z.string(),
  /** Seconds since it was asked for. */
  age_seconds: z.number().int(),
  /** Who confirmed, rejected or withdrew it (null for a lapsed one). */
  decided_by: z.string().nullable(),
  decided_by_name: z.string().nullable(),
  /** When it was decided; for a lapsed one, when its trade expired (or settled, if that came first). */
  decided_at: z.string().nullable(),
  reject_reason: z.string().nullable(),
  /** The trade_refund entry a confirmation posted. */
  ledger_entry_id: z.number().int().nullable(),
  /** Whether the viewer may confirm (or reject) it: a pending request, not their own, and finance.approve (D20). */
  can_confirm: z.boolean(),
  /** Why not, for a pending one: the code a confirmation would be refused with. */
  confirm_blocked: z.enum(['void_request_own', 'forbidden']).nullable(),
});
export type TradeVoidRequest = z.infer<typeof tradeVoidRequestSchema>;

export const voidRequestsQuerySchema = z.strictObject({
  ...pageQuery,
  status: z.enum(VOID_REQUEST_STATUSES, { error: 'invalid_value' }).default('pending'),
  account_id: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' })
    .optional(),
});
export type VoidRequestsQuery = z.infer<typeof voidRequestsQuerySchema>;

export const voidRequestsResponseSchema = z.object({
  items: z.array(tradeVoidRequestSchema),
  total: z.number().int(),
  /** The pending ones in scope, whatever the status filter: the tab's badge. */
  pending_count: z.number().int(),
});
export type VoidRequestsResponse = z.infer<typeof voidRequestsResponseSchema>;

/** POST /api/void-requests/:id/reject: a reason is required. */
export const rejectVoidRequestSchema = z.strictObject({ reason: requiredText(500) });
export type RejectVoidRequest = z.infer<typeof rejectVoidRequestSchema>;
