import { z } from 'zod';
import { isDollarAmount } from '../trading/money.js';
import { missingOrWrongType, optionalText, pageQuery, requiredText } from './common.js';

/**
 * The client base beyond the list (back-office.md §2.6, §2.7, §2.10, §3; decisions.md D3, D4): deposits recorded by
 * staff (credited to the trading account through the ledger), comments and reminders.
 */

/** A calendar day; the ISO format admits year 0000, which PostgreSQL has not. */
const day = z.iso.date({ error: 'invalid_value' }).refine((v) => !v.startsWith('0000-'), { error: 'invalid_value' });

/** A query parameter that may be repeated (?x=a&x=b) or given once. */
const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(100)).optional();

const positiveId = z.coerce
  .number({ error: 'invalid_value' })
  .int({ error: 'invalid_value' })
  .positive({ error: 'invalid_value' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' });

/** Ids in paths: a positive whole number (anything else is 400; an unknown one is 404). */
export const recordIdParam = z.strictObject({ id: positiveId });

// ---------------------------------------------------------------- deposits

export const DEPOSIT_TYPES = ['ftd', 'reload'] as const;
export type DepositType = (typeof DEPOSIT_TYPES)[number];

/** §5: amount required, > 0, at least 0.01, whole cents (the API speaks dollars, D3). */
export const depositAmount = z
  .number({ error: missingOrWrongType })
  .refine((v) => v >= 0.01 && isDollarAmount(v), { error: 'invalid_value' });

export const depositCreateSchema = z.strictObject({
  client_id: z
    .number({ error: missingOrWrongType })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' }),
  amount: depositAmount,
  notes: optionalText(1000).nullable().optional(),
});
export type DepositCreate = z.infer<typeof depositCreateSchema>;

export const depositUpdateSchema = z.strictObject({
  amount: depositAmount,
  notes: optionalText(1000).nullable().optional(),
});
export type DepositUpdate = z.infer<typeof depositUpdateSchema>;

export const depositSchema = z.object({
  id: z.number().int(),
  client_id: z.number().int(),
  client_name: z.string(),
  deposit_type: z.enum(DEPOSIT_TYPES),
  amount: z.number(),
  notes: z.string(),
  created_at: z.string(),
  created_by: z.string().nullable(),
  /** The creator's name when the deposit was recorded: still shown after the staff member is deleted. */
  created_by_name: z.string(),
  assigned_manager: z.string().nullable(),
  assigned_manager_name: z.string().nullable(),
  /** false while the client has no trading account: credited when the account is opened (D3). */
  credited: z.boolean(),
  /**
   * D20: the deposit's latest manual credit (its crediting, or the difference of an edit that raised it) and its state;
   * null when none was needed. 'pending' waits for a second staff member; 'cancelled' leaves the deposit uncredited.
   */
  credit_id: z.number().int().nullable(),
  credit_status: z.enum(['pending', 'confirmed', 'cancelled']).nullable(),
});
export type Deposit = z.infer<typeof depositSchema>;

/** A recorded, changed or deleted deposit, and the trading balance after it (null without an account yet). */
export const depositWriteResponseSchema = depositSchema.extend({ balance: z.number().nullable() });
export type DepositWriteResponse = z.infer<typeof depositWriteResponseSchema>;

/** GET /api/deposits: the card (?client_id=) and the deposit history (§2.10), filtered and paged by the server. */
export const depositsQuerySchema = z.strictObject({
  ...pageQuery,
  client_id: positiveId.optional(),
  deposit_type: repeated(z.enum(DEPOSIT_TYPES, { error: 'invalid_value' })),
  /** The staff member who recorded the deposit (the Manager filter; deposits.manager_filter only). */
  created_by: repeated(z.uuid({ error: 'invalid_value' })),
  /** Days in the business time zone, both ends included. */
  date_from: day.optional(),
  date_to: day.optional(),
  /** Client name, case-insensitive. */
  search: z.string().trim().max(120, { error: 'max_length:120' }).optional(),
  order: z.enum(['asc', 'desc'], { error: 'invalid_value' }).default('desc'),
});
export type DepositsQuery = z.infer<typeof depositsQuerySchema>;
/** The history's filters alone (shared by the list and the Excel export). */
export type DepositFilters = Omit<DepositsQuery, 'page' | 'per_page' | 'order'>;

export const depositsSummarySchema = z.object({
  count: z.number().int(),
  total_amount: z.number(),
  ftd_count: z.number().int(),
  reload_count: z.number().int(),
});
export const depositsResponseSchema = z.object({
  items: z.array(depositSchema),
  total: z.number().int(),
  summary: depositsSummarySchema,
});
export type DepositsResponse = z.infer<typeof depositsResponseSchema>;

// ---------------------------------------------------------------- comments

export const COMMENT_MAX = 5000;

export const commentCreateSchema = z.strictObject({
  /** The card sends the client id again (§7); when given it must be the one in the path. */
  client_id: z
    .number({ error: missingOrWrongType })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .optional(),
  text: requiredText(COMMENT_MAX),
  is_pinned: z.boolean({ error: missingOrWrongType }).optional(),
});
export type CommentCreate = z.infer<typeof commentCreateSchema>;

export const commentPinSchema = z.strictObject({ is_pinned: z.boolean({ error: missingOrWrongType }) });

export const commentSchema = z.object({
  id: z.number().int(),
  client_id: z.number().int(),
  text: z.string(),
  is_pinned: z.boolean(),
  user_id: z.string().nullable(),
  user_name: z.string(),
  created_at: z.string(),
});
export type Comment = z.infer<typeof commentSchema>;

export const commentsQuerySchema = z.strictObject({ ...pageQuery });
export const commentsResponseSchema = z.object({ items: z.array(commentSchema), total: z.number().int() });
export type CommentsResponse = z.infer<typeof commentsResponseSchema>;

// ---------------------------------------------------------------- reminders

export const REMINDER_STATUSES = ['pending', 'completed', 'cancelled'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

const scheduledTime = z.iso.datetime({
  offset: true,
  error: (i) => (i.input === undefined ? 'required' : 'invalid_value'),
});

export const reminderCreateSchema = z.strictObject({
  title: requiredText(200),
  description: optionalText(2000).nullable().optional(),
  scheduled_time: scheduledTime,
});
export type ReminderCreate = z.infer<typeof reminderCreateSchema>;

/** PUT /api/reminders/:id: the status alone (complete, cancel) or the edit form's fields. */
export const reminderUpdateSchema = z
  .strictObject({
    title: requiredText(200).optional(),
    description: optionalText(2000).nullable().optional(),
    scheduled_time: scheduledTime.optional(),
    status: z.enum(REMINDER_STATUSES, { error: 'invalid_value' }).optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { error: 'required' });
export type ReminderUpdate = z.infer<typeof reminderUpdateSchema>;

export const reminderSchema = z.object({
  id: z.number().int(),
  client_id: z.number().int(),
  client_name: z.string(),
  title: z.string(),
  description: z.string(),
  scheduled_time: z.string(),
  status: z.enum(REMINDER_STATUSES),
  created_by: z.string().nullable(),
  created_by_name: z.string().nullable(),
  created_at: z.string(),
});
export type Reminder = z.infer<typeof reminderSchema>;

export const clientRemindersQuerySchema = z.strictObject({
  ...pageQuery,
  status: z.enum(REMINDER_STATUSES, { error: 'invalid_value' }).optional(),
});

const instant = z.iso.datetime({ offset: true, error: 'invalid_value' });

/**
 * GET /api/reminders, the calendar (§2.7, §9): days in the business time zone, default today to today + 7 inclusive;
 * all=true drops the period. Newest first by default. due_from / due_to (instants, both ends included) ask for an
 * exact window instead of days: the browser's reminder alerts (§2.8) ask for the reminders falling due around now.
 */
export const remindersQuerySchema = z
  .strictObject({
    ...pageQuery,
    per_page: z.coerce.number().int().min(1).max(100).default(25),
    all: z.enum(['true', 'false'], { error: 'invalid_value' }).optional(),
    date_from: day.optional(),
    date_to: day.optional(),
    /** Due at or after this instant; with it (or due_to) the day period above is not applied. */
    due_from: instant.optional(),
    /** Due at or before this instant. */
    due_to: instant.optional(),
    status: z.enum(REMINDER_STATUSES, { error: 'invalid_value' }).optional(),
    created_by: z.uuid({ error: 'invalid_value' }).optional(),
    client_id: positiveId.optional(),
    /** Client name, case-insensitive. */
    search: z.string().trim().max(120, { error: 'max_length:120' }).optional(),
    order: z.enum(['asc', 'desc'], { error: 'invalid_value' }).default('desc'),
  })
  .refine((q) => !q.due_from || !q.due_to || Date.parse(q.due_from) <= Date.parse(q.due_to), {
    error: 'invalid_value',
    path: ['due_to'],
  });
export type RemindersQuery = z.infer<typeof remindersQuerySchema>;

export const remindersResponseSchema = z.object({ items: z.array(reminderSchema), total: z.number().int() });
export type RemindersResponse = z.infer<typeof remindersResponseSchema>;
