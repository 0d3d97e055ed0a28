import { z } from 'zod';
import { missingOrWrongType, requiredText } from './common.js';

/**
 * Affiliate tokens (back-office.md §2.11 'Affiliates' tab, §3, §7; decisions.md D13, D17). A token is 32 random bytes
 * in base64url (43 characters); the server keeps its SHA-256 and its first 8 and last 4 characters.
 */
export const AFFILIATE_TOKEN_LENGTH = 43;
/** How many addresses or ranges one token's whitelist holds at most. */
export const AFFILIATE_WHITELIST_MAX = 200;

/** The masked form the tokens table shows and copies (D17): first 8, '...', last 4. */
export function maskAffiliateToken(prefix: string, suffix: string): string {
  return `${prefix}...${suffix}`;
}

export const affiliateTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The full token in the answer of the POST that creates it (once); `first8...last4` everywhere else. */
  token: z.string(),
  /** IPv4/IPv6 addresses and CIDR ranges in canonical form; empty = any address. */
  ip_whitelist: z.array(z.string()),
  created_at: z.string(),
  last_used: z.string().nullable(),
  /** false once its affiliate is paused, made inactive or deleted: such a token is answered 401. */
  is_active: z.boolean(),
});
export type AffiliateToken = z.infer<typeof affiliateTokenSchema>;

export const affiliateTokensResponseSchema = z.array(affiliateTokenSchema);

/** POST /api/affiliate-tokens?name=…: the partner's name, which is also its affiliate's. */
export const createAffiliateTokenQuerySchema = z.strictObject({ name: requiredText(200) });
export type CreateAffiliateTokenQuery = z.infer<typeof createAffiliateTokenQuerySchema>;

/** PUT /api/affiliate-tokens/{id}/whitelist: a JSON array of addresses or CIDR ranges (checked by the server). */
export const affiliateTokenWhitelistSchema = z
  .array(z.string({ error: missingOrWrongType }).max(64, { error: 'invalid_ip' }), { error: missingOrWrongType })
  .max(AFFILIATE_WHITELIST_MAX, { error: 'invalid_value' });
export type AffiliateTokenWhitelist = z.infer<typeof affiliateTokenWhitelistSchema>;
