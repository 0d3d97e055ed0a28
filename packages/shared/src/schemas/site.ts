import { z } from 'zod';

/**
 * The public site's content (decisions.md D6): everything the operator states about the company lives in one JSON file
 * on the server (SITE_CONTENT_FILE). Every text is given per language; the browser shows the visitor's language, then
 * Russian. A block whose content is missing or empty is hidden.
 */
export const SITE_LANGUAGES = ['ru', 'en', 'kk'] as const;
export type SiteLanguage = (typeof SITE_LANGUAGES)[number];

const text = z.string().trim().max(20_000);
export const localizedTextSchema = z.strictObject({ ru: text.optional(), en: text.optional(), kk: text.optional() });
export type LocalizedText = z.infer<typeof localizedTextSchema>;

/** A figure the operator states; null or missing hides its block. */
const figure = z.number().finite().nonnegative().nullable().optional();

export const siteContentSchema = z.strictObject({
  brand: z.strictObject({ name: z.string().trim().min(1).max(80) }),
  /**
   * The hero's support claim (e.g. '24/7'): a promise only the operator can make, so the shipped content leaves it
   * empty and the hero shows it only once filled (issue 22 §6).
   */
  support_hours: localizedTextSchema.optional(),
  contacts: z
    .strictObject({
      email: z.string().trim().max(254).optional(),
      phone: z.string().trim().max(40).optional(),
      address: localizedTextSchema.optional(),
    })
    .optional(),
  /** The company registration line of the footer; shown only when set. */
  registration: localizedTextSchema.optional(),
  stats: z
    .strictObject({
      clients: figure,
      years_in_business: figure,
      countries: figure,
      community: figure,
    })
    .optional(),
  milestones: z
    .array(
      z.strictObject({
        year: z.string().trim().min(1).max(20),
        title: localizedTextSchema,
        text: localizedTextSchema.optional(),
      }),
    )
    .max(50)
    .optional(),
  testimonials: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(120),
        years: z.number().finite().nonnegative().optional(),
        result: localizedTextSchema.optional(),
        quote: localizedTextSchema,
      }),
    )
    .max(50)
    .optional(),
  /**
   * Issue 27 item 14 (D6: only what is true): what the operator really offers to learn — each a title, a text and a
   * link (a course, a video, a PDF). The site's Education section and its menu entry show only when this is filled.
   */
  education: z
    .array(
      z.strictObject({
        title: localizedTextSchema,
        text: localizedTextSchema.optional(),
        link: z
          .url({ protocol: /^https?$/ })
          .max(500)
          .optional(),
      }),
    )
    .max(12)
    .optional(),
  legal: z
    .strictObject({
      rules: localizedTextSchema.optional(),
      risk_disclosure: localizedTextSchema.optional(),
    })
    .optional(),
});
export type SiteContent = z.infer<typeof siteContentSchema>;

/** GET /api/site-content: the operator's file as read now. */
export const siteContentResponseSchema = siteContentSchema;

/** GET /api/site/facts: the figures of the landing page computed from the running system (D6). */
export const siteFactsResponseSchema = z.object({
  /** Assets in the catalogue (client-platform.md §9). */
  asset_count: z.number().int(),
  /** The highest payout percentage in force on an active trading account; the default for new accounts without one. */
  max_payout_percentage: z.number().int(),
  /** Median time from a trade's expiry to its settlement over the last settled trades, ms; null before any. */
  median_settlement_ms: z.number().nullable(),
  /** How many settled trades the median is taken over. */
  settled_trades_measured: z.number().int(),
  /** Per asset: change of the latest price against the oldest stored price of the last 24 hours. */
  changes: z.array(
    z.object({ symbol: z.string(), change_percent: z.number().nullable(), since: z.string().nullable() }),
  ),
  /**
   * Issue 14 (D6, ESMA's format): the share, in whole percent, of client accounts with a settled trade in the last
   * 12 months whose net trading result (payouts + refunds − stakes) is negative; null below RISK_MIN_ACCOUNTS.
   */
  losing_accounts_percent: z.number().int().nullable(),
  /** The UTC date (YYYY-MM-DD) the figure was computed for; it is recomputed once a day. */
  losing_accounts_as_of: z.string(),
  /** How many client accounts had a settled trade in those 12 months. */
  accounts_traded: z.number().int(),
});
export type SiteFacts = z.infer<typeof siteFactsResponseSchema>;
