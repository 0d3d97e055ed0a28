import { z } from 'zod';
import { dollarsToCents, formatUsd, MAX_CENTS } from '../trading/money.js';
import { missingOrWrongType, optionalText, pageQuery } from './common.js';

/**
 * Funds: the client's card withdrawal request (client-platform.md §2.6, §3, §5; back-office.md §2.9, §4) and the
 * deposit methods shown on top-up (client-platform.md §2.5, §8; back-office.md §2.15). Card data follows
 * decisions.md D7: no CVV anywhere, the number only masked except on an explicit, audited reveal.
 */

// ---------------------------------------------------------------- card rules (browser and server)

/** client-platform.md §9: the withdrawal minimum, enforced by the browser and the server (§5, changed). */
export const WITHDRAW_MIN_DOLLARS = 10;

export const WITHDRAW_STATUSES = ['pending', 'awaiting_second_approval', 'approved', 'rejected'] as const;
export type WithdrawStatus = (typeof WITHDRAW_STATUSES)[number];

/** The card number as digits, with the spaces of the 4-digit grouping removed; null when anything else is in it. */
export function cardDigits(raw: string): string | null {
  const digits = raw.replace(/\s+/g, '');
  return /^\d*$/.test(digits) ? digits : null;
}

/** The Luhn (mod 10) check every payment card number passes. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card number a payout can go to: 16 to 19 digits (spaces allowed between them) passing the Luhn check. */
export function validCardNumber(raw: string): boolean {
  const digits = cardDigits(raw);
  return digits !== null && digits.length >= 16 && digits.length <= 19 && luhnValid(digits);
}

/** How every screen and answer shows a card: '**** **** **** 1234'. */
export function maskCard(last4: string): string {
  return `**** **** **** ${last4}`;
}

const EXPIRY = /^(0[1-9]|1[0-2])\/(\d{2})$/;

/** 'MM/YY' → month and four-digit year (20YY); null for anything else. */
export function parseCardExpiry(text: string): { month: number; year: number } | null {
  const match = EXPIRY.exec(text.trim());
  if (!match) return null;
  return { month: Number(match[1]), year: 2000 + Number(match[2]) };
}

/**
 * A card holder's name as embossed: letters of any alphabet (with their accents), spaces, and the '.', '-' and '''
 * of names such as 'O'NEIL' or 'J. SMITH-JONES'; it starts with a letter. Digits, emoji and other symbols are refused
 * (issue 27 item 6).
 */
export function validCardHolder(raw: string): boolean {
  return /^\p{L}[\p{L}\p{M} .'’-]*$/u.test(raw.trim());
}

/** A card is valid to the end of its expiry month; `today` is the current month (in the business time zone). */
export function cardExpired(expiry: { month: number; year: number }, today: { month: number; year: number }): boolean {
  return expiry.year * 12 + expiry.month < today.year * 12 + today.month;
}

/** A refusal of a withdrawal request: a stable code (the server's message catalogue) and its parameters. */
export type WithdrawCheckFailure =
  | { code: 'withdraw_amount_not_positive'; params?: undefined }
  | { code: 'withdraw_amount_invalid'; params?: undefined }
  | { code: 'withdraw_amount_too_small'; params: { min: string } }
  | { code: 'withdraw_insufficient_funds'; params: { available: string; requested: string } }
  | { code: 'card_number_invalid'; params?: undefined }
  | { code: 'card_holder_required'; params?: undefined }
  | { code: 'card_holder_invalid'; params?: undefined }
  | { code: 'card_expiry_invalid'; params?: undefined }
  | { code: 'card_expired'; params?: undefined };

export interface WithdrawCheckInput {
  amount: number;
  card_number: string;
  card_holder: string;
  card_expiry: string;
}

/**
 * The checks of client-platform.md §5 in their order, with the changed rules: amount ≤ 0; not whole cents (an amount
 * too large to count in cents is over the balance, not a decimals problem); under the $10 minimum; over the balance;
 * card number (16–19 digits, Luhn); holder (present, then letters only); expiry (an MM/YY with a month 01–12, then not
 * past its month). Each failure names its real problem (issue 27 item 6).
 * The first failure is returned; null when the request may go ahead. The browser and the server run the same code.
 */
export function checkWithdrawal(
  input: WithdrawCheckInput,
  balanceCents: number,
  today: { month: number; year: number },
): WithdrawCheckFailure | null {
  if (!(input.amount > 0)) return { code: 'withdraw_amount_not_positive' };
  const cents = dollarsToCents(input.amount);
  if (cents === null) {
    // 1e20 is a whole number of dollars, just more than anyone holds: say so, not 'at most 2 decimals'.
    if (input.amount * 100 > MAX_CENTS)
      return {
        code: 'withdraw_insufficient_funds',
        params: {
          available: formatUsd(Math.max(0, balanceCents)),
          requested: formatUsd(BigInt(Math.round(input.amount)) * 100n),
        },
      };
    return { code: 'withdraw_amount_invalid' };
  }
  if (cents < WITHDRAW_MIN_DOLLARS * 100)
    return { code: 'withdraw_amount_too_small', params: { min: `$${WITHDRAW_MIN_DOLLARS}` } };
  if (cents > balanceCents) {
    return {
      code: 'withdraw_insufficient_funds',
      params: { available: formatUsd(Math.max(0, balanceCents)), requested: formatUsd(cents) },
    };
  }
  if (!validCardNumber(input.card_number)) return { code: 'card_number_invalid' };
  if (input.card_holder.trim() === '') return { code: 'card_holder_required' };
  if (!validCardHolder(input.card_holder)) return { code: 'card_holder_invalid' };
  const expiry = parseCardExpiry(input.card_expiry);
  if (!expiry) return { code: 'card_expiry_invalid' };
  if (cardExpired(expiry, today)) return { code: 'card_expired' };
  return null;
}

// ---------------------------------------------------------------- withdrawal requests

/** Ids in paths: a positive whole number (anything else is 400; an unknown one is 404). */
export const fundsIdParam = z.strictObject({
  id: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' }),
});

/**
 * POST /api/withdraw-requests (client-platform.md §3, §7). Only the shapes are checked here; the rules of §5 are
 * checked by the server in their order (checkWithdrawal), so each refusal carries the spec's own text. No CVV field
 * exists: a body that sends one is refused as an unknown field (D7).
 */
export const withdrawRequestSchema = z.strictObject({
  amount: z.number({ error: missingOrWrongType }),
  card_number: z.string({ error: missingOrWrongType }).max(40, { error: 'max_length:40' }),
  card_holder: z.string({ error: missingOrWrongType }).trim().max(100, { error: 'max_length:100' }),
  card_expiry: z.string({ error: missingOrWrongType }).trim().max(10, { error: 'max_length:10' }),
});
export type WithdrawRequestInput = z.infer<typeof withdrawRequestSchema>;

/** A withdrawal request as its client sees it: the card only masked. */
export const clientWithdrawRequestSchema = z.object({
  id: z.number().int(),
  amount: z.number(),
  status: z.enum(WITHDRAW_STATUSES),
  /** Masked: '**** **** **** 1234'. */
  card_number: z.string(),
  card_last4: z.string(),
  card_holder: z.string(),
  card_expiry: z.string(),
  created_at: z.string(),
  processed_at: z.string().nullable(),
  reject_reason: z.string().nullable(),
});
export type ClientWithdrawRequest = z.infer<typeof clientWithdrawRequestSchema>;

/** The created request, and the balance after its hold. */
export const createWithdrawResponseSchema = clientWithdrawRequestSchema.extend({ balance: z.number() });
export type CreateWithdrawResponse = z.infer<typeof createWithdrawResponseSchema>;

export const myWithdrawRequestsQuerySchema = z.strictObject({
  ...pageQuery,
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});
export const myWithdrawRequestsResponseSchema = z.object({
  items: z.array(clientWithdrawRequestSchema),
  total: z.number().int(),
});
export type MyWithdrawRequestsResponse = z.infer<typeof myWithdrawRequestsResponseSchema>;

/** A calendar day; the ISO format admits year 0000, which PostgreSQL has not. */
const day = z.iso.date({ error: 'invalid_value' }).refine((v) => !v.startsWith('0000-'), { error: 'invalid_value' });

/** GET /api/withdraw-requests (back-office.md §2.9, D4): filters, paging and order, all on the server. */
export const withdrawRequestsQuerySchema = z.strictObject({
  ...pageQuery,
  status: z.enum(WITHDRAW_STATUSES, { error: 'invalid_value' }).optional(),
  client_id: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' })
    .optional(),
  /** The staff member who processed the request (the page's Manager select). */
  processed_by: z.uuid({ error: 'invalid_value' }).optional(),
  /** Days in the business time zone, both ends included. */
  date_from: day.optional(),
  date_to: day.optional(),
  /** Client name or e-mail (case-insensitive); a number also matches the client id, the request id and the amount. */
  search: z.string().trim().max(120, { error: 'max_length:120' }).optional(),
  order: z.enum(['asc', 'desc'], { error: 'invalid_value' }).default('desc'),
});
export type WithdrawRequestsQuery = z.infer<typeof withdrawRequestsQuerySchema>;

/**
 * Why a staff member may not approve an open request (issue 20 finding 4): the codes the approval would be refused
 * with, so the list and the card show the reason instead of a button that can only fail.
 */
export const WITHDRAW_APPROVE_BLOCKS = [
  'withdraw_second_approver_same',
  'withdraw_second_approval_forbidden',
  'withdraw_approver_balance_change',
  'withdraw_approver_deposit_recorded',
  'withdraw_approver_deposit_edited',
  'withdraw_approver_identity_verified',
  'withdraw_approver_password_changed',
  'withdraw_approver_login_created',
  'withdraw_no_second_approver',
] as const;
export type WithdrawApproveBlock = (typeof WITHDRAW_APPROVE_BLOCKS)[number];

export const staffWithdrawRequestSchema = clientWithdrawRequestSchema.extend({
  client_id: z.number().int(),
  client_name: z.string(),
  client_email: z.string(),
  account_id: z.number().int(),
  processed_by: z.string().nullable(),
  processed_by_name: z.string().nullable(),
  /** Four-eyes (D20): who gave the first of two approvals and when (null for a one-step approval). */
  first_approved_by: z.string().nullable(),
  first_approved_by_name: z.string().nullable(),
  first_approved_at: z.string().nullable(),
  /**
   * Whether approving it takes two people: it awaits its second approval, or its amount with the client's one-step
   * approvals of the last 24 hours is above WITHDRAWAL_SECOND_APPROVAL (D20 as amended by issue 20 finding 3). For a
   * closed request: whether it took two.
   */
  needs_second_approval: z.boolean(),
  /** Issue 20 finding 4, for the staff member asking: whether they may approve it now, and if not, why. */
  can_approve: z.boolean(),
  approve_blocked: z.enum(WITHDRAW_APPROVE_BLOCKS).nullable(),
  /** Whether they may reject it (any open request in their scope: rejecting releases the hold). */
  can_reject: z.boolean(),
  /**
   * Nobody could give the approval(s) still missing (every finance approver worked with the client's money in the
   * last 30 days, or is its first approver): it can only be rejected until another approver is there.
   */
  no_eligible_approver: z.boolean(),
});
export type StaffWithdrawRequest = z.infer<typeof staffWithdrawRequestSchema>;

/** The summary cards of §2.9, over the filtered list. */
export const withdrawSummarySchema = z.object({
  total_count: z.number().int(),
  total_amount: z.number(),
  pending_count: z.number().int(),
  pending_amount: z.number(),
  awaiting_second_approval_count: z.number().int(),
  awaiting_second_approval_amount: z.number(),
  approved_count: z.number().int(),
  approved_amount: z.number(),
  rejected_count: z.number().int(),
  rejected_amount: z.number(),
});
export type WithdrawSummary = z.infer<typeof withdrawSummarySchema>;

export const withdrawRequestsResponseSchema = z.object({
  items: z.array(staffWithdrawRequestSchema),
  total: z.number().int(),
  summary: withdrawSummarySchema,
});
export type WithdrawRequestsResponse = z.infer<typeof withdrawRequestsResponseSchema>;

/** PUT /api/withdraw-requests/:id/reject: the body is optional (§7 sends none); a reason may be given. */
export const rejectWithdrawRequestSchema = z.strictObject({
  reason: optionalText(500).nullable().optional(),
});
export type RejectWithdrawRequest = z.infer<typeof rejectWithdrawRequestSchema>;

export const revealCardResponseSchema = z.object({ card_number: z.string() });

// ---------------------------------------------------------------- deposit methods

export const DEPOSIT_METHOD_TYPES = ['visa_mastercard', 'bank_card', 'crypto', 'other'] as const;
export type DepositMethodType = (typeof DEPOSIT_METHOD_TYPES)[number];

export const DEPOSIT_METHOD_TITLE_MAX = 120;
export const DEPOSIT_METHOD_DESCRIPTION_MAX = 500;
export const DEPOSIT_METHOD_DETAILS_MAX = 2000;

/** client-platform.md §3: what a client sees. */
export const depositMethodSchema = z.object({
  id: z.number().int(),
  type: z.enum(DEPOSIT_METHOD_TYPES),
  title: z.string(),
  description: z.string(),
  details: z.string(),
  enabled: z.boolean(),
});
export type DepositMethod = z.infer<typeof depositMethodSchema>;
export const depositMethodsResponseSchema = z.array(depositMethodSchema);

/** What staff see: also when and by whom it was last changed. */
export const staffDepositMethodSchema = depositMethodSchema.extend({
  sort: z.number().int(),
  updated_at: z.string(),
  updated_by: z.string().nullable(),
  updated_by_name: z.string().nullable(),
});
export type StaffDepositMethod = z.infer<typeof staffDepositMethodSchema>;
export const staffDepositMethodsResponseSchema = z.array(staffDepositMethodSchema);

/**
 * PUT /api/deposit-methods/:id (back-office.md §7): either the toggle {enabled} or the edit
 * {title, description, details, enabled}. An edit needs its title; an empty body changes nothing and is refused.
 */
export const updateDepositMethodSchema = z
  .strictObject({
    title: z
      .string({ error: missingOrWrongType })
      .trim()
      .min(1, { error: 'required' })
      .max(DEPOSIT_METHOD_TITLE_MAX, { error: `max_length:${DEPOSIT_METHOD_TITLE_MAX}` })
      .optional(),
    description: optionalText(DEPOSIT_METHOD_DESCRIPTION_MAX).optional(),
    details: optionalText(DEPOSIT_METHOD_DETAILS_MAX).optional(),
    enabled: z.boolean({ error: 'invalid_type' }).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.title === undefined && (v.description !== undefined || v.details !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['title'], message: 'required' });
    } else if (v.title === undefined && v.enabled === undefined) {
      ctx.addIssue({ code: 'custom', path: ['enabled'], message: 'required' });
    }
  });
export type UpdateDepositMethodRequest = z.infer<typeof updateDepositMethodSchema>;

// ---------------------------------------------------------------- manual credits (D20)

export const MANUAL_CREDIT_KINDS = ['balance_change', 'deposit', 'deposit_edit'] as const;
export type ManualCreditKind = (typeof MANUAL_CREDIT_KINDS)[number];
export const MANUAL_CREDIT_STATUSES = ['pending', 'confirmed', 'cancelled'] as const;
export type ManualCreditStatus = (typeof MANUAL_CREDIT_STATUSES)[number];

/** A manual credit: money a staff member adds above MANUAL_CREDIT_SECOND_APPROVAL, waiting for a second person. */
export const manualCreditSchema = z.object({
  id: z.number().int(),
  kind: z.enum(MANUAL_CREDIT_KINDS),
  status: z.enum(MANUAL_CREDIT_STATUSES),
  client_id: z.number().int(),
  client_name: z.string(),
  account_id: z.number().int().nullable(),
  deposit_id: z.number().int().nullable(),
  amount: z.number(),
  /** How the author phrased a balance change ('add' / 'set' and its amount); null for deposits. */
  requested_action: z.enum(['add', 'set']).nullable(),
  requested_amount: z.number().nullable(),
  reason: z.string(),
  created_by: z.string().nullable(),
  created_by_name: z.string(),
  created_at: z.string(),
  /** Seconds since it was asked for. */
  age_seconds: z.number().int(),
  decided_by: z.string().nullable(),
  decided_by_name: z.string().nullable(),
  decided_at: z.string().nullable(),
  cancel_reason: z.string().nullable(),
  ledger_entry_id: z.number().int().nullable(),
  /** Issue 20 finding 2: the credit that replaced this cancelled one when its deposit's amount was edited. */
  replaced_by: z.number().int().nullable(),
  /** Whether the viewer may confirm (or cancel) it: a pending credit, not their own, and finance.approve (D20). */
  can_confirm: z.boolean(),
  /** Why not, for a pending one: the code a confirmation would be refused with. */
  confirm_blocked: z.enum(['manual_credit_own', 'forbidden']).nullable(),
});
export type ManualCredit = z.infer<typeof manualCreditSchema>;
export type ManualCreditConfirmBlock = NonNullable<ManualCredit['confirm_blocked']>;

export const manualCreditsQuerySchema = z.strictObject({
  ...pageQuery,
  status: z.enum(MANUAL_CREDIT_STATUSES, { error: 'invalid_value' }).default('pending'),
  client_id: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' })
    .optional(),
  account_id: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' })
    .optional(),
});
export type ManualCreditsQuery = z.infer<typeof manualCreditsQuerySchema>;

export const manualCreditsResponseSchema = z.object({
  items: z.array(manualCreditSchema),
  total: z.number().int(),
  /** The pending ones in scope (whatever the status filter), with their sum: the tab's badge. */
  pending_count: z.number().int(),
  pending_amount: z.number(),
});
export type ManualCreditsResponse = z.infer<typeof manualCreditsResponseSchema>;

/** POST /api/manual-credits/:id/cancel: a reason is required. */
export const cancelManualCreditSchema = z.strictObject({
  reason: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(500, { error: 'max_length:500' }),
});
export type CancelManualCreditRequest = z.infer<typeof cancelManualCreditSchema>;

/**
 * POST /api/manual-credits/:id/confirm (issue 20 finding 2): the amount the confirmer saw, in dollars; the server posts
 * exactly it or answers 409 credit_amount_changed.
 */
export const confirmManualCreditSchema = z.strictObject({
  amount: z
    .number({ error: missingOrWrongType })
    .refine((v) => v >= 0.01 && dollarsToCents(v) !== null, { error: 'invalid_value' }),
});
export type ConfirmManualCreditRequest = z.infer<typeof confirmManualCreditSchema>;

/** 202 to a staff balance change that waits for confirmation (D20): nothing moved yet. */
export const awaitingConfirmationSchema = z.object({
  status: z.literal('awaiting_confirmation'),
  credit_id: z.number().int(),
  amount: z.number(),
});
export type AwaitingConfirmation = z.infer<typeof awaitingConfirmationSchema>;
