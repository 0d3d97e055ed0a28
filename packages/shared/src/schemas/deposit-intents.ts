import { z } from 'zod';
import { missingOrWrongType } from './common.js';

/**
 * Decision D21: a client confirming a top-up records a deposit intent (amount, method) that notifies a person. It is a
 * note for staff to follow up, not money: nothing is credited and no ledger entry is written.
 */
export const DEPOSIT_INTENT_MIN_DOLLARS = 10;
export const DEPOSIT_INTENT_MAX_DOLLARS = 1_000_000;
/** At most this many intents per client per rolling hour (429 with Retry-After beyond). */
export const DEPOSIT_INTENTS_PER_HOUR = 10;

/** POST /api/deposit-intents. The amount's rules are checked by the server so each refusal names the problem. */
export const depositIntentRequestSchema = z.strictObject({
  amount: z.number({ error: missingOrWrongType }),
  method_id: z.number({ error: missingOrWrongType }).int({ error: 'invalid_value' }),
});
export type DepositIntentRequest = z.infer<typeof depositIntentRequestSchema>;

export const depositIntentSchema = z.object({
  id: z.number().int(),
  client_id: z.number().int(),
  amount: z.number(),
  method_id: z.number().int().nullable(),
  /** The method's title when the intent was made (a method renamed later does not rewrite history). */
  method_title: z.string(),
  created_at: z.string(),
});
export type DepositIntent = z.infer<typeof depositIntentSchema>;

export const depositIntentsResponseSchema = z.object({ items: z.array(depositIntentSchema), total: z.number().int() });
export type DepositIntentsResponse = z.infer<typeof depositIntentsResponseSchema>;
