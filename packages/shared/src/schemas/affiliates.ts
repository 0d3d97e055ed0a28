import { z } from 'zod';
import { missingOrWrongType, optionalText, requiredText } from './common.js';

/** Affiliate statuses of back-office.md §3 (the status badge of §2.13); labels live in the web's translation files. */
export const AFFILIATE_STATUSES = ['active', 'inactive', 'paused'] as const;
export type AffiliateStatus = (typeof AFFILIATE_STATUSES)[number];

export const AFFILIATE_STATUS_COLORS: Record<AffiliateStatus, string> = {
  active: 'green',
  inactive: 'gray',
  paused: 'yellow',
};

/** The postback events of decisions.md D13/D17 (the search-ads tab's goal names; CONTACT is not sent). */
export const POSTBACK_EVENTS = ['LEAD', 'REGISTRATION', 'PURCHASE', 'ADD_TO_CART', 'STATUS'] as const;
export type PostbackEventName = (typeof POSTBACK_EVENTS)[number];

export const POSTBACK_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** GET /api/affiliates: one affiliate of §3 (api_token is the first 8 characters of its newest live token and '...'). */
export const affiliateSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  contact_person: z.string(),
  contact_email: z.string(),
  description: z.string(),
  webhook_url: z.string().nullable(),
  status: z.enum(AFFILIATE_STATUSES),
  total_clients: z.number().int(),
  campaigns: z.array(z.string()),
  api_token: z.string().nullable(),
  has_signing_secret: z.boolean(),
});
export type Affiliate = z.infer<typeof affiliateSchema>;
export const affiliatesResponseSchema = z.array(affiliateSchema);

/** One postback delivery as the Stats modal lists it. */
export const postbackDeliverySchema = z.object({
  id: z.number().int(),
  created_at: z.string(),
  event: z.enum(POSTBACK_EVENTS),
  status: z.enum(POSTBACK_STATUSES),
  last_status_code: z.number().int().nullable(),
  attempts: z.number().int(),
  last_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
});
export type PostbackDelivery = z.infer<typeof postbackDeliverySchema>;

/** GET /api/affiliates/{id}/stats: the spec's figures (§3 'Affiliate stats'), a per-campaign split and the deliveries. */
export const affiliateStatsSchema = z.object({
  affiliate_name: z.string(),
  total_clients: z.number().int(),
  ftd_clients: z.number().int(),
  /** FTD clients / clients, percent with 1 decimal. */
  conversion_rate: z.number(),
  total_campaigns: z.number().int(),
  /** Dollars: the live deposits of its leads. */
  total_deposits: z.number(),
  /** Dollars: total_deposits / the number of those deposits (0 without any). */
  avg_deposit: z.number(),
  campaigns: z.array(z.string()),
  /** Clients and FTD clients per campaign ('' for leads without one), most clients first; for the modal's chart. */
  campaign_breakdown: z.array(
    z.object({ campaign: z.string(), clients: z.number().int(), ftd_clients: z.number().int() }),
  ),
  /** The last 20 postback deliveries, newest first. */
  deliveries: z.array(postbackDeliverySchema),
});
export type AffiliateStats = z.infer<typeof affiliateStatsSchema>;

/** An optional e-mail that may be left blank (the contact e-mail of §2.13). */
const optionalEmail = z
  .string({ error: missingOrWrongType })
  .trim()
  .max(254, { error: 'max_length:254' })
  .refine((v) => v === '' || z.email().safeParse(v).success, { error: 'invalid_email' })
  .transform((v) => v.toLowerCase());

/**
 * PUT /api/affiliates/{id} (§2.13 Edit): name required; the other fields unchanged when left out. A blank webhook_url
 * (or null) removes it; a non-blank one must be https and public (D17, checked by the server).
 */
export const affiliateUpdateSchema = z.strictObject({
  name: requiredText(200),
  contact_person: optionalText(200).optional(),
  contact_email: optionalEmail.optional(),
  webhook_url: optionalText(2000).nullable().optional(),
  description: optionalText(2000).optional(),
  status: z.enum(AFFILIATE_STATUSES, { error: 'invalid_value' }).optional(),
});
export type AffiliateUpdate = z.infer<typeof affiliateUpdateSchema>;

/** The PUT's answer: the affiliate, and the signing secret once, when this save created it (D17). */
export const affiliateUpdateResponseSchema = affiliateSchema.extend({ signing_secret: z.string().optional() });
export type AffiliateUpdateResponse = z.infer<typeof affiliateUpdateResponseSchema>;

/** POST /api/affiliates/{id}/rotate-secret: the new secret, answered this once. */
export const rotateSecretResponseSchema = z.object({ signing_secret: z.string() });
export type RotateSecretResponse = z.infer<typeof rotateSecretResponseSchema>;

/** POST /api/integration/test-connection (§2.11 API integration tab): nothing is stored. */
export const testConnectionSchema = z.strictObject({
  api_url: requiredText(2000),
  api_key: requiredText(4096),
});
export type TestConnection = z.infer<typeof testConnectionSchema>;

export const testConnectionResponseSchema = z.object({
  /** A 2xx answer. */
  ok: z.boolean(),
  /** The HTTP status, or null when no answer came (timeout, refused, TLS error). */
  status: z.number().int().nullable(),
  time_ms: z.number().int(),
  detail: z.string(),
});
export type TestConnectionResponse = z.infer<typeof testConnectionResponseSchema>;
