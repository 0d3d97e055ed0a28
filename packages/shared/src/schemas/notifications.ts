import { z } from 'zod';
import { WITHDRAW_STATUSES } from './funds.js';
import { emailField, missingOrWrongType, passwordField, requiredText } from './common.js';

/**
 * Staff notifications (back-office.md §2.8, §3 'Local notification'; decisions.md D12): kept by the server per staff
 * user and pushed over the live socket ('notification.new'). The web renders the text from the type and the fields.
 */
export const NOTIFICATION_TYPES = [
  'client_assigned',
  'reminder_upcoming',
  'reminder_due',
  'withdrawal_request',
  /** D21: a client confirmed a top-up (amount, method, client). */
  'deposit_intent',
  /** Issue 22 §6: a client wrote to the broker ('Поддержка'); the client's manager, or the department's team leads. */
  'client_message',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const notificationSchema = z.object({
  id: z.number().int(),
  type: z.enum(NOTIFICATION_TYPES),
  read: z.boolean(),
  created_at: z.string(),
  client_id: z.number().int().nullable(),
  client_name: z.string().nullable(),
  reminder_id: z.number().int().nullable(),
  reminder_title: z.string().nullable(),
  /** Reminders: when the reminder is due (ISO). */
  scheduled_time: z.string().nullable(),
  /** Withdrawal requests: the amount in dollars. */
  amount: z.number().nullable(),
  withdrawal_id: z.number().int().nullable(),
  /** Deposit intents (D21): the payment method the client chose. */
  method: z.string().nullable(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const notificationsQuerySchema = z.strictObject({
  page: z.coerce.number().int().min(1).max(100000).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
  unread: z.enum(['true', 'false'], { error: 'invalid_value' }).optional(),
});
export type NotificationsQuery = z.infer<typeof notificationsQuerySchema>;

export const notificationsResponseSchema = z.object({
  items: z.array(notificationSchema),
  total: z.number().int(),
  unread: z.number().int(),
});
export type NotificationsResponse = z.infer<typeof notificationsResponseSchema>;

export const notificationsReadAllResponseSchema = z.object({ updated: z.number().int() });

// ---------------------------------------------------------------- client card: the client's platform user (§2.6)

/** POST /api/clients/:id/register-user (§2.6 'Register user', §5): Name *, Email *, Phone, Password *. */
export const registerClientUserSchema = z.strictObject({
  name: requiredText(120),
  email: emailField,
  phone: z.string().trim().max(32, { error: 'max_length:32' }).optional(),
  password: passwordField,
});
export type RegisterClientUser = z.infer<typeof registerClientUserSchema>;

/**
 * 'created': a new client user and its trading account; 'linked_existing_user': the e-mail was already registered
 * (§8 'Email already registered'), so only the trading account was created and linked to that user.
 */
export const registerClientUserResponseSchema = z.object({
  outcome: z.enum(['created', 'linked_existing_user']),
  user_id: z.string(),
  trading_account_id: z.number().int(),
  /**
   * Always false (issue 20 finding 1): a login made by staff waits until another finance approver confirms the
   * client's identity; until then deposits stay uncredited and withdrawals are refused.
   */
  identity_verified: z.boolean(),
});
export type RegisterClientUserResponse = z.infer<typeof registerClientUserResponseSchema>;

/** POST /api/clients/:id/verify-identity (issue 9 finding 1): the identity confirmed and what was credited with it. */
export const verifyIdentityResponseSchema = z.object({
  client_id: z.number().int(),
  identity_verified: z.literal(true),
  /** How many deposits recorded before the confirmation were credited now, and their sum in dollars. */
  credited_deposits: z.number().int(),
  credited_amount: z.number(),
});
export type VerifyIdentityResponse = z.infer<typeof verifyIdentityResponseSchema>;

/** PUT /api/clients/:id/change-password (§7), body {new_password}. */
export const clientChangePasswordSchema = z.strictObject({
  new_password: z
    .string({ error: missingOrWrongType })
    .min(1, { error: 'required' })
    .min(6, { error: 'min_length:6' })
    .max(128, { error: 'max_length:128' }),
});

/** GET /api/clients/:id/summary: the card's statistics sidebar, its trading account and first withdrawal requests. */
export const clientSummarySchema = z.object({
  deposit_sum: z.number(),
  deposit_count: z.number().int(),
  withdrawal_count: z.number().int(),
  ftd: z.boolean(),
  registered: z.boolean(),
  trading_account_id: z.number().int().nullable(),
  /** The client user's account number (client-platform.md §3 platform_id); null without a user. */
  platform_id: z.string().nullable(),
  /** The newest three, with the card's last four digits only. */
  withdrawals: z.array(
    z.object({
      id: z.number().int(),
      amount: z.number(),
      status: z.enum(WITHDRAW_STATUSES),
      created_at: z.string(),
      card_last4: z.string(),
    }),
  ),
});
export type ClientSummary = z.infer<typeof clientSummarySchema>;
