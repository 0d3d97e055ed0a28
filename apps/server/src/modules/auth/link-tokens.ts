import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { AuthTokensTable, MailLanguage, UserRow } from '../../platform/db/types.js';
import { HttpError } from '../../platform/http/errors.js';
import { hashLinkToken, newLinkToken } from '../mail/mailer.js';

/**
 * Issue 22: the single-use links of e-mails (verification, password reset, invitation). The token travels only in the
 * link; auth_tokens keeps its SHA-256. Nothing here logs a token.
 */

export const VERIFY_EMAIL_SECONDS = 24 * 3600;
export const PASSWORD_RESET_SECONDS = 3600;
export const INVITATION_SECONDS = 72 * 3600;

type LinkPurpose = Exclude<AuthTokensTable['purpose'], 'unsubscribe'>;

/** Stores a new link token in the caller's transaction; answers the token (for the link) and its expiry. */
export async function issueLinkToken(
  trx: Db,
  input: { purpose: LinkPurpose; userId: string; email: string; seconds: number; ip: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const { token, hash } = newLinkToken();
  const row = await trx
    .insertInto('auth_tokens')
    .values({
      token_hash: hash,
      purpose: input.purpose,
      user_id: input.userId,
      email: input.email,
      expires_at: sql`now() + make_interval(secs => ${input.seconds})` as never,
      used_at: null,
      ip: input.ip,
    })
    .returning('expires_at')
    .executeTakeFirstOrThrow();
  return { token, expiresAt: new Date(row.expires_at) };
}

/** Revokes the live (unused, unrevoked) links of a user for one purpose, in the caller's transaction. */
export async function revokeLinkTokens(trx: Db, userId: string, purpose: LinkPurpose): Promise<number> {
  const rows = await trx
    .updateTable('auth_tokens')
    .set({ revoked_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length;
}

export interface LiveLink {
  id: string;
  email: string | null;
  user: UserRow;
}

/**
 * The link of a token, for one purpose, of a live user: unknown or revoked → 400 link_invalid, used → 400 link_used,
 * expired → 400 link_expired. With `lock`, the token row is locked for the caller's transaction.
 */
export async function findLink(db: Db, token: string, purpose: LinkPurpose, lock = false): Promise<LiveLink> {
  const row = await db
    .selectFrom('auth_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id as token_id',
      't.email as token_email',
      't.used_at as token_used_at',
      't.revoked_at as token_revoked_at',
      sql<boolean>`t.expires_at <= now()`.as('token_expired'),
    ])
    .selectAll('u')
    .where('t.token_hash', '=', hashLinkToken(token))
    .where('t.purpose', '=', purpose)
    .where('u.deleted_at', 'is', null)
    .$if(lock, (q) => q.forUpdate('t'))
    .executeTakeFirst();
  if (!row || row.token_revoked_at !== null) throw new HttpError(400, 'link_invalid');
  if (row.token_used_at !== null) throw new HttpError(400, 'link_used');
  if (row.token_expired) throw new HttpError(400, 'link_expired');
  const { token_id, token_email, token_used_at: _u, token_revoked_at: _r, token_expired: _e, ...user } = row;
  return { id: String(token_id), email: token_email, user: user as UserRow };
}

/** Marks a link used in the caller's transaction; a concurrent use of the same link loses with 400 link_used. */
export async function useLink(trx: Db, id: string): Promise<void> {
  const used = await trx
    .updateTable('auth_tokens')
    .set({ used_at: sql`now()` })
    .where('id', '=', id as never)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!used) throw new HttpError(400, 'link_used');
}

/** Clients get their language; staff mail is Russian (issue 22 §1). */
export function mailLanguageOf(user: Pick<UserRow, 'role' | 'language'>): MailLanguage {
  return user.role === 'client' ? user.language : 'ru';
}
