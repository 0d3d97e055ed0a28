import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { UserRow } from '../db/types.js';

export const SESSION_COOKIE = 'session';

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url'); // 256 bits
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface SessionPolicy {
  staffIdleSeconds: number;
  clientIdleSeconds: number;
}

export function idleSecondsFor(role: string, policy: SessionPolicy): number {
  return role === 'client' ? policy.clientIdleSeconds : policy.staffIdleSeconds;
}

export async function createSession(
  db: Db,
  user: Pick<UserRow, 'id' | 'role'>,
  policy: SessionPolicy,
  meta: { ip: string; userAgent: string | undefined },
): Promise<string> {
  const token = newSessionToken();
  const idle = idleSecondsFor(user.role, policy);
  await db
    .insertInto('sessions')
    .values({
      token_hash: hashToken(token),
      user_id: user.id,
      idle_seconds: idle,
      expires_at: sql<Date>`now() + make_interval(secs => ${idle})`,
      ip: meta.ip,
      user_agent: meta.userAgent?.slice(0, 300) ?? null,
    })
    .execute();
  return token;
}

export interface ResolvedSession {
  sessionId: string;
  user: UserRow;
}

/** A resolved session with what the cache needs to keep sliding its idle expiry and to stop serving it once expired. */
export interface LookedUpSession extends ResolvedSession {
  idleSeconds: number;
  /** When the idle expiry was last slid forward (ms since the epoch). */
  lastSeenAt: number;
  /** When it expires unless slid forward again (ms since the epoch). */
  expiresAt: number;
}

/** The sliding idle-expiry write happens only when it moved by more than this, so busy screens do not write on every call. */
export const SLIDE_AFTER_MS = 30_000;

/**
 * Looks a token up, refusing revoked, expired or deleted users' sessions, and slides the idle expiry forward
 * (only when it moved by more than 30 s).
 */
export async function lookupSession(db: Db, tokenHash: string): Promise<LookedUpSession | null> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id as session_id', 's.idle_seconds', 's.last_seen_at', 's.expires_at as session_expires_at'])
    .selectAll('u')
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  const { session_id, idle_seconds, last_seen_at, session_expires_at, ...user } = row;
  const found: LookedUpSession = {
    sessionId: session_id,
    user: user as UserRow,
    idleSeconds: idle_seconds,
    lastSeenAt: new Date(last_seen_at).getTime(),
    expiresAt: new Date(session_expires_at).getTime(),
  };
  await slideIfDue(db, found);
  return found;
}

/** Slides the idle expiry forward when the last slide is more than 30 s old; updates `session` to match. */
export async function slideIfDue(db: Db, session: LookedUpSession): Promise<void> {
  const now = Date.now();
  if (now - session.lastSeenAt <= SLIDE_AFTER_MS) return;
  // Noted first, so concurrent calls on one cached session do not all write.
  session.lastSeenAt = now;
  session.expiresAt = now + session.idleSeconds * 1000;
  await db
    .updateTable('sessions')
    .set({ last_seen_at: sql`now()`, expires_at: sql`now() + make_interval(secs => ${session.idleSeconds})` })
    .where('id', '=', session.sessionId)
    .execute();
}

/** Looks a token up straight in the database (no cache); see lookupSession. */
export async function resolveSession(db: Db, token: string): Promise<ResolvedSession | null> {
  const found = await lookupSession(db, hashToken(token));
  return found && { sessionId: found.sessionId, user: found.user };
}

export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', sessionId)
    .execute();
}

/** Ends every session of a user, optionally keeping one (the caller's own after a password change). */
export async function revokeUserSessions(db: Db, userId: string, keepSessionId?: string): Promise<void> {
  let q = db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepSessionId) q = q.where('id', '!=', keepSessionId);
  await q.execute();
}
