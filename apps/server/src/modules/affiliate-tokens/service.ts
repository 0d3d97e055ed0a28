import { createHash, randomBytes } from 'node:crypto';
import { maskAffiliateToken, type AffiliateToken } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/actor.js';
import { parseWhitelistEntry } from '../../platform/access/ip.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * Affiliate tokens (back-office.md §2.11 'Affiliates' tab, §7; decisions.md D13, D17). A token is 32 random bytes in
 * base64url; only its SHA-256 (hex) and its first 8 and last 4 characters are stored, so the full token exists once,
 * in the answer of the POST that creates it. A lost token is replaced, never recovered.
 */

export function generateAffiliateToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashAffiliateToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

interface TokenRow {
  id: string | number;
  name: string;
  token_prefix: string;
  token_suffix: string;
  ip_whitelist: string[];
  created_at: Date | string;
  last_used: Date | string | null;
  revoked_at: Date | string | null;
  affiliate_status: string;
  affiliate_deleted_at: Date | string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The API's token: the masked form unless this is the one answer that carries the full token. */
function toToken(row: TokenRow, fullToken?: string): AffiliateToken {
  return {
    id: Number(row.id),
    name: row.name,
    token: fullToken ?? maskAffiliateToken(row.token_prefix, row.token_suffix),
    ip_whitelist: row.ip_whitelist ?? [],
    created_at: iso(row.created_at)!,
    last_used: iso(row.last_used),
    is_active: row.revoked_at === null && row.affiliate_deleted_at === null && row.affiliate_status === 'active',
  };
}

function tokenQuery(db: Db) {
  return db
    .selectFrom('affiliate_tokens as t')
    .innerJoin('affiliates as a', 'a.id', 't.affiliate_id')
    .select([
      't.id',
      't.name',
      't.token_prefix',
      't.token_suffix',
      't.ip_whitelist',
      't.created_at',
      't.last_used',
      't.revoked_at',
      'a.status as affiliate_status',
      'a.deleted_at as affiliate_deleted_at',
    ]);
}

/** GET /api/affiliate-tokens: the tokens not deleted, of affiliates not deleted, newest first. */
export async function listAffiliateTokens(db: Db): Promise<AffiliateToken[]> {
  const rows = await tokenQuery(db)
    .where('t.revoked_at', 'is', null)
    .where('a.deleted_at', 'is', null)
    .orderBy('t.id', 'desc')
    .execute();
  return (rows as TokenRow[]).map((r) => toToken(r));
}

async function loadToken(db: Db, id: number): Promise<AffiliateToken> {
  const row = await tokenQuery(db).where('t.id', '=', id).executeTakeFirstOrThrow();
  return toToken(row as TokenRow);
}

/**
 * POST /api/affiliate-tokens?name=…: a new token and, in the same transaction, its affiliate (same name, status
 * active). A live affiliate of that name (case-insensitive) keeps its identity instead: a replacement token for a
 * partner who lost theirs carries on with the same leads, which GET /api/external/clients lists. A transaction-scoped
 * advisory lock on the name keeps two simultaneous creations from making two affiliates of one name.
 */
export async function createAffiliateToken(db: Db, name: string, actor: Actor): Promise<AffiliateToken> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`affiliate-name:${name.toLowerCase()}`}))`.execute(trx);
    const existing = await trx
      .selectFrom('affiliates')
      .select('id')
      .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    const affiliateId = existing
      ? Number(existing.id)
      : Number(
          (
            await trx
              .insertInto('affiliates')
              .values({ name, status: 'active', webhook_url: null, signing_secret_enc: null, deleted_at: null })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
    const token = generateAffiliateToken();
    const inserted = await trx
      .insertInto('affiliate_tokens')
      .values({
        affiliate_id: affiliateId,
        name,
        token_hash: hashAffiliateToken(token),
        token_prefix: token.slice(0, 8),
        token_suffix: token.slice(-4),
        created_by: actor.id,
        last_used: null,
        revoked_at: null,
        rate_tat: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(inserted.id);
    // The token is never part of the record (the audit module also drops any key named like a token).
    await writeAudit(trx, actor, {
      action: 'affiliate_token.create',
      entityType: 'affiliate_token',
      entityId: id,
      after: { name, affiliate_id: affiliateId, affiliate_created: !existing },
    });
    const row = await tokenQuery(trx).where('t.id', '=', id).executeTakeFirstOrThrow();
    return toToken(row as TokenRow, token);
  });
}

/**
 * The whitelist as stored: each entry an IPv4/IPv6 address or CIDR range in canonical form (platform/access/ip.ts,
 * the staff whitelist's own parser), duplicates dropped. The first entry that is not one is refused by name.
 */
export function parseTokenWhitelist(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of entries) {
    const parsed = parseWhitelistEntry(raw);
    if (parsed === null) throw new HttpError(400, 'whitelist_entry_invalid', { entry: raw.trim() });
    if (!out.includes(parsed)) out.push(parsed);
  }
  return out;
}

/** The live token (not deleted, of a live affiliate), locked for this transaction; 404 otherwise. */
async function lockLiveToken(trx: Db, id: number): Promise<{ ip_whitelist: string[] }> {
  const row = await trx
    .selectFrom('affiliate_tokens as t')
    .innerJoin('affiliates as a', 'a.id', 't.affiliate_id')
    .select('t.ip_whitelist')
    .where('t.id', '=', id)
    .where('t.revoked_at', 'is', null)
    .where('a.deleted_at', 'is', null)
    .forUpdate('t')
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'affiliate_token_not_found');
  return row;
}

/** PUT /api/affiliate-tokens/{id}/whitelist: replaces the list; an empty list lets any address in. */
export async function setAffiliateTokenWhitelist(
  db: Db,
  id: number,
  entries: readonly string[],
  actor: Actor,
): Promise<AffiliateToken> {
  const whitelist = parseTokenWhitelist(entries);
  return db.transaction().execute(async (trx) => {
    const before = await lockLiveToken(trx, id);
    const list = whitelist.length === 0 ? sql`'{}'::text[]` : sql`array[${sql.join(whitelist)}]::text[]`;
    await trx
      .updateTable('affiliate_tokens')
      .set({ ip_whitelist: sql<string[]>`${list}` })
      .where('id', '=', id)
      .execute();
    await writeAudit(trx, actor, {
      action: 'affiliate_token.whitelist_update',
      entityType: 'affiliate_token',
      entityId: id,
      before: { ip_whitelist: before.ip_whitelist },
      after: { ip_whitelist: whitelist },
    });
    return loadToken(trx, id);
  });
}

/** DELETE /api/affiliate-tokens/{id}: the token stops working at once; its affiliate and the leads stay. */
export async function deleteAffiliateToken(db: Db, id: number, actor: Actor): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockLiveToken(trx, id);
    const row = await trx
      .updateTable('affiliate_tokens')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', id)
      .returning(['name', 'affiliate_id'])
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'affiliate_token.delete',
      entityType: 'affiliate_token',
      entityId: id,
      before: { name: row.name, affiliate_id: Number(row.affiliate_id) },
    });
  });
}
