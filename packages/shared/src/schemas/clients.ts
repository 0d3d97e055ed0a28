import { z } from 'zod';
import { EMAIL_MAX, emailField, missingOrWrongType, optionalText, pageQuery, requiredText } from './common.js';

/** Client (lead) statuses of back-office.md §4 with their colours; labels live in the web's translation files. */
export const CLIENT_STATUSES = [
  'new',
  'ftd',
  'in_progress',
  'potential',
  'not_potential',
  'under_18',
  'no_russian',
  'not_interested',
  'replace',
  'duplicate',
  'fake',
] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

export const CLIENT_STATUS_COLORS: Record<ClientStatus, string> = {
  new: 'blue',
  ftd: 'green',
  in_progress: 'yellow',
  potential: 'grape',
  not_potential: 'red',
  under_18: 'red',
  no_russian: 'pink',
  not_interested: 'gray',
  replace: 'yellow',
  duplicate: 'orange',
  fake: 'red',
};

export const clientSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  /** As typed (kept for the record). */
  phone: z.string(),
  /** D17: the phone as E.164 ('+77017654321'), null when it does not parse; lists show it internationally formatted. */
  phone_e164: z.string().nullable(),
  country: z.string(),
  campaign: z.string(),
  source: z.string(),
  notes: z.string(),
  status: z.string(),
  ftd: z.boolean(),
  total_deposits: z.number(),
  affiliate_id: z.number().int().nullable(),
  assigned_manager: z.string().nullable(),
  assigned_manager_name: z.string().nullable(),
  user_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  registration_date: z.string().nullable(),
  last_comment_date: z.string().nullable(),
  /**
   * Issue 9 finding 1: false while a self-registration linked to an existing lead waits for a finance approver to
   * confirm the client's identity (its earlier deposits uncredited, withdrawals refused); issue 20 finding 1: also
   * while a login created by staff waits for a finance approver other than its creator.
   */
  identity_verified: z.boolean(),
  /** Issue 20 finding 1: the staff member who created the client's login on the card; null for a self-registration. */
  login_created_by: z.string().nullable(),
});
export type Client = z.infer<typeof clientSchema>;

/**
 * GET /api/clients/:id: the card's client, with where the lead came from (§3 lead-provider fields, D13): its
 * affiliate's name and the lead-ads / search-ads fields (null when the lead has none). campaign_name is `campaign`.
 */
export const clientDetailSchema = clientSchema.extend({
  affiliate_name: z.string().nullable(),
  ad_name: z.string().nullable(),
  utm_source: z.string().nullable(),
  utm_campaign: z.string().nullable(),
  utm_medium: z.string().nullable(),
  keyword: z.string().nullable(),
  region: z.string().nullable(),
  device: z.string().nullable(),
});
export type ClientDetail = z.infer<typeof clientDetailSchema>;

/** A query parameter that may be repeated (?status=new&status=ftd) or given once. */
const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(100)).optional();

export const CLIENT_SORT_FIELDS = [
  'id',
  'name',
  'email',
  'status',
  'country',
  'created_at',
  'total_deposits',
  'last_comment_date',
  'phone',
  'campaign',
  'ftd',
  'affiliate_id',
  'assigned_manager',
] as const;

/** The comments-period filter of §2.5. */
export const LAST_COMMENT_PERIODS = ['today', 'yesterday', 'week', 'month', 'no_comments'] as const;
export type LastCommentPeriod = (typeof LAST_COMMENT_PERIODS)[number];

/** The largest balance bound the list accepts, in dollars (issue 27 item 7: past it, a message says so). */
export const CLIENT_BALANCE_FILTER_MAX = 1_000_000_000_000;
const balanceBoundField = z.coerce
  .number({ error: 'invalid_value' })
  .min(0, { error: 'invalid_value' })
  .max(CLIENT_BALANCE_FILTER_MAX, { error: `max_value:${CLIENT_BALANCE_FILTER_MAX}` })
  .optional();

export const clientsQuerySchema = z
  .strictObject({
    ...pageQuery,
    per_page: z.coerce.number().int().min(1).max(100).default(50),
    search: z.string().trim().max(120).optional(),
    status: repeated(z.enum(CLIENT_STATUSES, { error: 'invalid_value' })),
    /** Staff ids, or 'null' for unassigned clients. */
    assigned_manager: repeated(z.union([z.literal('null'), z.uuid({ error: 'invalid_value' })])),
    /** Countries, each matched exactly (trimmed, case-insensitive), like the campaigns. */
    country: repeated(z.string().trim().max(80)),
    campaign: repeated(z.string().trim().max(200)),
    source: z.string().trim().max(120).optional(),
    created_date_from: z.iso.date({ error: 'invalid_value' }).optional(),
    created_date_to: z.iso.date({ error: 'invalid_value' }).optional(),
    /** Balance from / to (§2.5), dollars compared with total_deposits, both ends included. */
    balance_min: balanceBoundField,
    balance_max: balanceBoundField,
    /** Comments period (§2.5): days in the business time zone; no_comments = never commented. */
    last_comment_period: z.enum(LAST_COMMENT_PERIODS, { error: 'invalid_value' }).optional(),
    /** The last comment's day from / to (the seed's fields; issue 27 item 7), days in the business zone, both included. */
    last_comment_from: z.iso.date({ error: 'invalid_value' }).optional(),
    last_comment_to: z.iso.date({ error: 'invalid_value' }).optional(),
    /** Affiliate names (§5): the last ' - ' segment of the campaign, case-insensitive. */
    affiliate: repeated(z.string().trim().max(200)),
    sort: z.enum(CLIENT_SORT_FIELDS, { error: 'invalid_value' }).default('id'),
    order: z.enum(['asc', 'desc'], { error: 'invalid_value' }).default('desc'),
  })
  // Issue 27 item 7: an inverted range would answer an empty list without saying why; it is a 400 naming the field.
  .superRefine((q, ctx) => {
    const inverted = (from?: number | string | null, to?: number | string | null) =>
      from !== undefined && from !== null && to !== undefined && to !== null && from > to;
    if (inverted(q.balance_min, q.balance_max))
      ctx.addIssue({ code: 'custom', path: ['balance_max'], message: 'range_inverted' });
    if (inverted(q.created_date_from, q.created_date_to))
      ctx.addIssue({ code: 'custom', path: ['created_date_to'], message: 'date_from_after_date_to' });
    if (inverted(q.last_comment_from, q.last_comment_to))
      ctx.addIssue({ code: 'custom', path: ['last_comment_to'], message: 'date_from_after_date_to' });
  });
export type ClientsQuery = z.infer<typeof clientsQuerySchema>;
/** The filters alone (what the list and the Excel export share); paging and sort are the list's. */
export type ClientFilters = Omit<ClientsQuery, 'page' | 'per_page' | 'sort' | 'order'>;

/**
 * The affiliate a client is shown under (back-office.md §3, issue 27 item 12): the affiliate of its `affiliate_id` (a
 * lead posted with an affiliate's token), else the last ' - ' segment of its campaign, else none. The clients list and
 * the Excel export both show this.
 */
export function clientAffiliate(client: { affiliate_name: string | null; campaign: string }): string | null {
  if (client.affiliate_name) return client.affiliate_name;
  const at = client.campaign.lastIndexOf(' - ');
  return at < 0 ? null : client.campaign.slice(at + 3).trim() || null;
}

/** A row of the clients list: the client and the name of the affiliate of its affiliate_id (null without one). */
export const clientListItemSchema = clientSchema.extend({ affiliate_name: z.string().nullable() });
export type ClientListItem = z.infer<typeof clientListItemSchema>;

export const clientsResponseSchema = z.object({
  items: z.array(clientListItemSchema),
  /** Exact, unless `total_capped`: then at least this many match (decisions.md, the clients list's count). */
  total: z.number().int(),
  /** True when the filters match more than 10,000 clients and `total` is that cap, not the exact count. */
  total_capped: z.boolean(),
});
export type ClientsResponse = z.infer<typeof clientsResponseSchema>;

/** How many values of each kind GET /api/clients/filter-options answers at most (the most frequent ones). */
export const CLIENT_FILTER_OPTIONS_LIMIT = 300;

/**
 * GET /api/clients/filter-options (§2.5 Country, Campaigns and Affiliates multi-selects, and the add-client modal's
 * country and campaign lists): the distinct values among the clients in the caller's scope (D5), the most frequent
 * CLIENT_FILTER_OPTIONS_LIMIT of each kind, sorted by name. Affiliates (the last ' - ' segment of a campaign, §3) are
 * empty for roles without the affiliates filter (§6).
 */
export const clientFilterOptionsSchema = z.object({
  countries: z.array(z.string()),
  campaigns: z.array(z.string()),
  affiliates: z.array(z.string()),
});
export type ClientFilterOptions = z.infer<typeof clientFilterOptionsSchema>;

// ---------------------------------------------------------------- writing clients (back-office.md §2.5, §2.6, §4, §5)

/**
 * The longest value of each lead field, wherever a lead is written: the add-client form and the card (below), and the
 * lead file import (its rows are refused past these).
 */
export const CLIENT_FIELD_MAX = {
  name: 200,
  email: EMAIL_MAX,
  phone: 40,
  country: 80,
  campaign: 200,
  source: 200,
} as const;

/** Add client (§5): name, email, phone and country required after trimming; campaign optional; status new by default. */
export const clientCreateSchema = z.strictObject({
  name: requiredText(CLIENT_FIELD_MAX.name),
  email: emailField,
  phone: requiredText(CLIENT_FIELD_MAX.phone),
  country: requiredText(CLIENT_FIELD_MAX.country),
  campaign: optionalText(CLIENT_FIELD_MAX.campaign).optional(),
  status: z.enum(CLIENT_STATUSES, { error: 'invalid_value' }).default('new'),
});
export type ClientCreate = z.infer<typeof clientCreateSchema>;

/**
 * PUT /api/clients/:id (§7): any of the card's fields. Changing assigned_manager needs clients.change_manager; the
 * same value as now is not a change. ftd, total_deposits and last_comment_date are derived and cannot be sent.
 */
export const clientUpdateSchema = z
  .strictObject({
    name: requiredText(CLIENT_FIELD_MAX.name).optional(),
    email: emailField.optional(),
    phone: requiredText(CLIENT_FIELD_MAX.phone).optional(),
    country: requiredText(CLIENT_FIELD_MAX.country).optional(),
    campaign: optionalText(CLIENT_FIELD_MAX.campaign).optional(),
    source: optionalText(CLIENT_FIELD_MAX.source).optional(),
    status: z.enum(CLIENT_STATUSES, { error: 'invalid_value' }).optional(),
    notes: optionalText(5000).optional(),
    assigned_manager: z.uuid({ error: 'invalid_value' }).nullable().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { error: 'required' });
export type ClientUpdate = z.infer<typeof clientUpdateSchema>;

/** POST /api/clients/bulk-assign-manager (§2.5 bulk panel): a manager (or null to clear) and optionally a status. */
export const bulkAssignSchema = z.strictObject({
  client_ids: z
    .array(
      z
        .number({ error: missingOrWrongType })
        .int({ error: 'invalid_value' })
        .positive({ error: 'invalid_value' })
        .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' }),
      {
        error: missingOrWrongType,
      },
    )
    .min(1, { error: 'required' })
    .max(1000, { error: 'invalid_value' }),
  assigned_manager: z.uuid({ error: (i) => (i.input === undefined ? 'required' : 'invalid_value') }).nullable(),
  status: z.enum(CLIENT_STATUSES, { error: 'invalid_value' }).optional(),
});
export type BulkAssign = z.infer<typeof bulkAssignSchema>;
export const bulkAssignResponseSchema = z.object({ updated: z.number().int() });
