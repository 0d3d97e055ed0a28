import { AFFILIATE_TOKEN_LENGTH } from '@brokerage/shared';
import { sql } from 'kysely';
import { anyCovers } from '../../platform/access/ip.js';
import type { Db } from '../../platform/db/index.js';
import { hashAffiliateToken } from '../affiliate-tokens/service.js';

/** The partner behind an external call: its token and the token's affiliate. */
export interface AffiliateCaller {
  tokenId: number;
  affiliateId: number;
  /** The token's name (the spec's `affiliate` in GET /api/external/clients). */
  name: string;
}

/** Why a call was refused; logged, never answered (every refusal answers the same 401 'Access denied'). */
export type DenialReason =
  'missing_token' | 'unknown_token' | 'revoked_token' | 'affiliate_deleted' | 'affiliate_inactive' | 'ip_not_allowed';

const TOKEN_SYNTAX = /^[A-Za-z0-9_-]+$/;

/**
 * Checks an affiliate token (D13, D17): known by its SHA-256, not deleted, of a live and active affiliate, and the
 * caller's address inside the token's whitelist when it has one. A string that cannot be a token is refused without
 * a query.
 */
export async function authenticateAffiliate(
  db: Db,
  token: string | undefined,
  ip: string,
): Promise<{ caller: AffiliateCaller } | { denied: DenialReason; tokenId?: number }> {
  if (!token) return { denied: 'missing_token' };
  if (token.length !== AFFILIATE_TOKEN_LENGTH || !TOKEN_SYNTAX.test(token)) return { denied: 'unknown_token' };
  const row = await db
    .selectFrom('affiliate_tokens as t')
    .innerJoin('affiliates as a', 'a.id', 't.affiliate_id')
    .select(['t.id', 't.affiliate_id', 't.name', 't.ip_whitelist', 't.revoked_at', 'a.deleted_at', 'a.status'])
    .where('t.token_hash', '=', hashAffiliateToken(token))
    .executeTakeFirst();
  if (!row) return { denied: 'unknown_token' };
  const tokenId = Number(row.id);
  if (row.revoked_at !== null) return { denied: 'revoked_token', tokenId };
  if (row.deleted_at !== null) return { denied: 'affiliate_deleted', tokenId };
  if (row.status !== 'active') return { denied: 'affiliate_inactive', tokenId };
  const whitelist = row.ip_whitelist ?? [];
  if (whitelist.length > 0 && !anyCovers(whitelist, ip)) return { denied: 'ip_not_allowed', tokenId };
  return { caller: { tokenId, affiliateId: Number(row.affiliate_id), name: row.name } };
}

/**
 * The per-token rate limit over every external call (EXTERNAL_RATE_PER_MINUTE), counted in the database so that all
 * server processes share it: the generic cell rate algorithm on one timestamp per token. Each accepted call moves the
 * token's theoretical arrival time (rate_tat) on by one interval (60 s / rate); a call is refused while that time is
 * more than a minute minus one interval ahead of now, which admits a burst of `rate` calls and then `rate` a minute.
 * The same statement stamps last_used, at most once a minute. Answers null when the call may go ahead, or the whole
 * seconds to wait (Retry-After).
 */
export async function takeRateSlot(db: Db, tokenId: number, perMinute: number): Promise<number | null> {
  const intervalMs = 60_000 / perMinute;
  const windowMs = 60_000 - intervalMs;
  const taken = await sql<{ id: string }>`
    update affiliate_tokens
    set rate_tat = greatest(coalesce(rate_tat, now()), now()) + make_interval(secs => ${intervalMs / 1000}::float8),
        last_used = case when last_used is null or last_used <= now() - interval '1 minute' then now() else last_used end
    where id = ${tokenId}
      and greatest(coalesce(rate_tat, now()), now()) <= now() + make_interval(secs => ${windowMs / 1000}::float8)
    returning id`.execute(db);
  if (taken.rows.length > 0) return null;
  const ahead = await sql<{ ms: number | string }>`
    select extract(epoch from (rate_tat - now())) * 1000 as ms from affiliate_tokens where id = ${tokenId}`.execute(db);
  const waitMs = Number(ahead.rows[0]?.ms ?? 0) - windowMs;
  return Math.max(1, Math.ceil(waitMs / 1000));
}
