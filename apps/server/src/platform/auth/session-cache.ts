import type { Db } from '../db/index.js';
import type { EventBus } from '../bus/index.js';
import { hashToken, lookupSession, slideIfDue, type LookedUpSession, type ResolvedSession } from './sessions.js';

/**
 * How long a resolved session is served from memory where nothing else bounds it: on the embedded database, and on
 * PostgreSQL whenever the database's announcements are not known to be heard (below). Revocations made through the
 * API reach every process at once (the guard drops this process's entries before answering and publishes
 * 'auth.changed' on the bus, which crosses processes by PostgreSQL LISTEN/NOTIFY). A revocation written by a process
 * without the bus — the command line (`npm run admin -- reset-2fa`, `reset-password`), a hand edit — is announced by
 * PostgreSQL's own triggers (migration 0020); where those cannot be relied on, it is seen when the entry expires: an
 * entry fetched just before the revocation is served for at most this long, so 1 s is the longest a revoked session
 * can still be honoured anywhere. It is also short enough that the other fields of the cached user are never
 * noticeably stale, and long enough that a busy client's calls (a trading screen placing several trades a second)
 * mostly skip the lookup.
 */
export const SESSION_CACHE_TTL_MS = 1000;

/**
 * A hit on an entry at least this old also starts a lookup in the background, which replaces the entry when it comes
 * back (refresh-ahead): a session in steady use is re-read about once per TTL without any call waiting for it, and no
 * entry is ever served longer than SESSION_CACHE_TTL_MS after the lookup that filled it was sent.
 */
export const SESSION_REFRESH_AFTER_MS = 750;

/**
 * How long a resolved session is served while the database announces every revocation to this process (migration
 * 0020's triggers, heard through the bus's listening connection, which has answered a heartbeat within
 * ANNOUNCED_WITHIN_MS): a revocation then drops the entry when its NOTIFY arrives, so the entry's age no longer bounds
 * how long a revoked session is honoured. Long enough that a client's calls seconds apart skip the lookup; finite, so
 * a session no one uses is read again now and then.
 */
export const ANNOUNCED_TTL_MS = 60_000;

/**
 * The bus's latest answered heartbeat must have been sent at most this long ago for the longer lifetime to apply.
 * Then any revocation committed more than this long ago has been heard (the heartbeat's answer comes after it), so a
 * listening connection that goes silent costs no more than falling back to SESSION_CACHE_TTL_MS: with the bus's
 * heartbeat every 200 ms, every revocation is still honoured for at most 1 s.
 */
export const ANNOUNCED_WITHIN_MS = 750;

/** Above this many entries, expired ones are swept when a new one is added (memory stays bounded by the active users). */
const SWEEP_ABOVE = 5000;

interface Entry {
  session: LookedUpSession;
  /** When the lookup that read it was sent: the data is at least this fresh. */
  fetchedAt: number;
  /** A background lookup for it is under way. */
  refreshing?: boolean;
}

/**
 * Resolved sessions in memory, keyed by the token's sha-256 (the token itself is never kept), for SESSION_CACHE_TTL_MS.
 * Only found sessions are cached: an unknown or revoked token always asks the database. The sliding idle-expiry write
 * still happens (on a lookup, or on a hit whose last slide is more than 30 s old). Entries in use are refreshed ahead
 * of their expiry (SESSION_REFRESH_AFTER_MS), off the request's path.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a lookup that started before one does not store what it read. */
  private generation = 0;

  private readonly ttlMs: number;
  private readonly refreshAfterMs: number;
  private readonly announcedSince: (() => number | null) | undefined;

  constructor(
    private readonly db: Db,
    options: {
      ttlMs?: number;
      refreshAfterMs?: number;
      /** The bus's EventBus.announcedSince: with it, entries live ANNOUNCED_TTL_MS while the database is heard. */
      announcedSince?: (() => number | null) | undefined;
    } = {},
  ) {
    this.ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS;
    this.refreshAfterMs = options.refreshAfterMs ?? SESSION_REFRESH_AFTER_MS;
    this.announcedSince = options.announcedSince;
  }

  /** Whether every revocation the database announced until ANNOUNCED_WITHIN_MS ago has reached this cache. */
  private heard(now: number): boolean {
    const since = this.announcedSince?.();
    return since !== null && since !== undefined && now - since <= ANNOUNCED_WITHIN_MS;
  }

  /** How long an entry lives right now. */
  private lifetime(now: number): number {
    return this.heard(now) ? Math.max(this.ttlMs, ANNOUNCED_TTL_MS) : this.ttlMs;
  }

  async resolve(token: string): Promise<ResolvedSession | null> {
    const tokenHash = hashToken(token);
    const now = Date.now();
    const hit = this.entries.get(tokenHash);
    const lifetime = this.lifetime(now);
    if (hit && now - hit.fetchedAt < lifetime && hit.session.expiresAt > now) {
      // Refresh-ahead only where the entry's age is the bound (the database not heard).
      if (lifetime === this.ttlMs && !hit.refreshing && now - hit.fetchedAt >= this.refreshAfterMs)
        this.refresh(tokenHash, hit);
      await slideIfDue(this.db, hit.session);
      return hit.session;
    }
    const generation = this.generation;
    const found = await lookupSession(this.db, tokenHash);
    if (!found) {
      this.entries.delete(tokenHash);
      return null;
    }
    if (generation === this.generation) {
      if (this.entries.size >= SWEEP_ABOVE) this.sweep(now, lifetime);
      this.entries.set(tokenHash, { session: found, fetchedAt: now });
    }
    return found;
  }

  /**
   * Reads the session again in the background. Its answer replaces the entry only if nothing was invalidated meanwhile
   * and the entry is still the one refreshed; a revoked session's entry goes, and so does the entry on an error (the
   * next call then asks the database itself and meets the error there).
   */
  private refresh(tokenHash: string, entry: Entry): void {
    entry.refreshing = true;
    const generation = this.generation;
    const sentAt = Date.now();
    const current = () => generation === this.generation && this.entries.get(tokenHash) === entry;
    lookupSession(this.db, tokenHash).then(
      (found) => {
        if (!current()) return;
        if (found) this.entries.set(tokenHash, { session: found, fetchedAt: sentAt });
        else this.entries.delete(tokenHash);
      },
      () => {
        if (current()) this.entries.delete(tokenHash);
      },
    );
  }

  /** Drops every entry (a logout, a password or role change, a deletion, a 2FA reset, a whitelist change). */
  invalidateAll(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Drops the entries on a 'auth.changed' event from any process (this one included). */
  listen(bus: EventBus): () => void {
    return bus.subscribe((event) => {
      if (event.type === 'auth.changed') this.invalidateAll();
    });
  }

  /** Whether a live entry for this token is held (the next call with it will not ask the database). */
  holds(token: string): boolean {
    const entry = this.entries.get(hashToken(token));
    const now = Date.now();
    return entry !== undefined && now - entry.fetchedAt < this.lifetime(now);
  }

  private sweep(now: number, lifetime: number): void {
    for (const [key, entry] of this.entries) if (now - entry.fetchedAt >= lifetime) this.entries.delete(key);
  }
}
