import { z } from 'zod';
import { requiredText } from './common.js';

/**
 * The external API for affiliates and lead providers (back-office.md §3 'External lead fields', §7 'External
 * endpoints', §8; decisions.md D13, D17). Field names are the spec's. A lead needs a name and an e-mail or a phone;
 * every other field is optional; an empty string or null is the same as a field left out. Unknown fields are refused
 * (400 naming them), so a misspelt field is caught while the integration is built rather than lost.
 */

/** An optional text field: a string (trimmed, empty = absent) or null. */
const optionalText = (max: number) =>
  z
    .string({ error: 'invalid_type' })
    .trim()
    .max(max, { error: `max_length:${max}` })
    .nullish()
    .transform((v) => (v ? v : undefined));

const optionalEmail = z
  .string({ error: 'invalid_type' })
  .trim()
  .max(254, { error: 'max_length:254' })
  .refine((v) => v === '' || z.email().safeParse(v).success, { error: 'invalid_email' })
  .nullish()
  .transform((v) => (v ? v.toLowerCase() : undefined));

/** The phone as typed ('+7 (701) 123-45-67', '87011234567'); the server normalises it to E.164 or refuses it. */
const optionalPhone = optionalText(40);

const contact = {
  name: requiredText(200),
  email: optionalEmail,
  phone: optionalPhone,
};

/** The external API answers in English (partners are programs), so this rule's message is the sentence itself. */
function emailOrPhone<T extends { email?: string | undefined; phone?: string | undefined }>(schema: z.ZodType<T>) {
  return schema.refine((v) => Boolean(v.email || v.phone), {
    error: 'an e-mail or a phone is required (at least one of them)',
    path: ['email'],
  });
}

const CLIENT_EXAMPLE = {
  name: 'Aigerim Nurlanovna',
  email: 'aigerim@example.com',
  phone: '+7 700 123 45 67',
  country: 'Kazakhstan',
  campaign_name: 'Spring promo',
};

/** POST /api/external/clients: a lead from an affiliate. */
export const externalClientCreateSchema = emailOrPhone(
  z.strictObject({
    ...contact,
    country: optionalText(80),
    /** Stored as the lead's campaign. */
    campaign_name: optionalText(200),
  }),
).meta({ example: CLIENT_EXAMPLE });
export type ExternalClientCreate = z.infer<typeof externalClientCreateSchema>;

/** POST /api/external/lead-ads: a lead from a lead-ads provider (§3). */
export const leadAdsLeadSchema = emailOrPhone(
  z.strictObject({
    ...contact,
    campaign_name: optionalText(200),
    ad_name: optionalText(200),
    utm_source: optionalText(200),
    utm_campaign: optionalText(200),
  }),
).meta({
  example: {
    name: 'Daniyar Sarsenov',
    email: 'daniyar@example.com',
    phone: '87011234568',
    campaign_name: 'Autumn leads',
    ad_name: 'Carousel 3',
    utm_source: 'lead_ads',
    utm_campaign: 'autumn-2026',
  },
});
export type LeadAdsLead = z.infer<typeof leadAdsLeadSchema>;

/** POST /api/external/search-ads: a lead from a search-ads provider (§3). */
export const searchAdsLeadSchema = emailOrPhone(
  z.strictObject({
    ...contact,
    keyword: optionalText(200),
    region: optionalText(200),
    device: optionalText(100),
    utm_source: optionalText(200),
    utm_medium: optionalText(200),
  }),
).meta({
  example: {
    name: 'Olga Ivanova',
    phone: '+7 (702) 555-01-23',
    email: 'olga@example.com',
    keyword: 'invest online',
    region: 'Almaty',
    device: 'mobile',
    utm_source: 'search_ads',
    utm_medium: 'cpc',
  },
});
export type SearchAdsLead = z.infer<typeof searchAdsLeadSchema>;

/** A lead as a partner sees it: its contact (the phone in E.164), status and FTD. */
export const externalClientSchema = z.object({
  client_id: z.number().int(),
  name: z.string(),
  /** null when the lead has none. */
  email: z.string().nullable(),
  /** E.164 ('+77001234567'); null when the lead has none. */
  phone: z.string().nullable(),
  status: z.string(),
  ftd: z.boolean(),
  created_at: z.string(),
});
export type ExternalClient = z.infer<typeof externalClientSchema>;

const EXAMPLE_CLIENT = {
  client_id: 1042,
  name: 'Aigerim Nurlanovna',
  email: 'aigerim@example.com',
  phone: '+77001234567',
  status: 'new',
  ftd: false,
  created_at: '2026-11-25T09:30:00.000Z',
};

/**
 * The answer of the three POSTs. 'duplicate' when the e-mail (case-insensitive) or the E.164 phone already belongs to
 * a lead: that lead when it is this affiliate's, client_id and client null when it is not (a partner does not learn
 * which contacts the brokerage holds).
 */
export const externalPostResponseSchema = z
  .object({
    status: z.enum(['created', 'duplicate']),
    client_id: z.number().int().nullable(),
    client: externalClientSchema.nullable(),
  })
  .meta({ example: { status: 'created', client_id: 1042, client: EXAMPLE_CLIENT } });
export type ExternalPostResponse = z.infer<typeof externalPostResponseSchema>;

export const EXTERNAL_LIST_MAX = 500;

/** GET /api/external/clients?limit&offset: the affiliate's leads, newest first (§9: limit 100, offset 0). */
export const externalClientsQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .min(1, { error: 'invalid_value' })
    .max(EXTERNAL_LIST_MAX, { error: 'invalid_value' })
    .default(100),
  offset: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .min(0, { error: 'invalid_value' })
    .max(100_000_000, { error: 'invalid_value' })
    .default(0),
});
export type ExternalClientsQuery = z.infer<typeof externalClientsQuerySchema>;

export const externalListedClientSchema = externalClientSchema.extend({
  balance: z
    .number()
    .describe(
      "The lead's balance as the CRM's clients list shows it: the total of its deposits, in dollars (0 before the first)",
    ),
  trading_balance: z.number().describe("What the lead's trading account holds now, in dollars; 0 without an account"),
});

export const externalClientsResponseSchema = z
  .object({
    /** The token's name. */
    affiliate: z.string(),
    total_clients: z.number().int(),
    clients: z.array(externalListedClientSchema),
  })
  .meta({
    example: {
      affiliate: 'Partner One',
      total_clients: 1,
      clients: [{ ...EXAMPLE_CLIENT, status: 'ftd', ftd: true, balance: 250.0, trading_balance: 180.5 }],
    },
  });
export type ExternalClientsResponse = z.infer<typeof externalClientsResponseSchema>;
