import { sql } from 'kysely';
import { LEADER_LOCKS, LEASES } from '../../platform/bus/leader.js';
import { LeaderPoller } from '../../platform/bus/leader-poller.js';
import type { SecretsVault } from '../../platform/crypto/vault.js';
import type { Db } from '../../platform/db/index.js';
import {
  OutboundNetworkError,
  OutboundUrlError,
  outboundRequest,
  type OutboundRules,
} from '../../platform/http/outbound.js';
import type { PostbackPayload } from './outbox.js';
import { postbackBody, postbackHeaders } from './signing.js';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What the card vault binds an affiliate's signing secret to (D7, D17). */
export const SIGNING_SECRET_PURPOSE = 'affiliate-signing-secret';

/** Failed deliveries are retried for this long after the event, then the event is failed (D17). */
export const RETRY_WINDOW_MS = 24 * 3600 * 1000;
const DELIVERY_TIMEOUT_MS = 10_000;
/** A claimed event is not claimed again for this long, so a process that dies mid-delivery only delays it. */
const LEASE_MS = 60_000;
const BATCH = 20;
const MAX_IN_FLIGHT = 20;

/** The wait after the n-th failed attempt: 10 s, 20 s, 40 s … doubling, at most an hour. */
export function retryDelayMs(failures: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, failures - 1), 3_600_000);
}

interface ClaimedEvent {
  id: number;
  /** The event's stable id, the same in every attempt (X-Event-Id and body event_id; issue 20 §11). */
  event_id: string;
  payload: PostbackPayload;
  attempts: number;
  created_at: Date;
  webhook_url: string | null;
  signing_secret_enc: string | null;
  affiliate_deleted: boolean;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface PostbackWorkerDeps {
  db: Db;
  vault: SecretsVault;
  rules: OutboundRules;
  log?: Log;
  /** With a database URL, only the process holding the postbacks leader lock delivers (one worker per cluster). */
  databaseUrl?: string | undefined;
  leaderRetryMs?: number;
  /** The leader lease's length (FEED_LEASE_MS, shared with the feed's lease). */
  leaseMs?: number;
  pollMs?: number;
  timeoutMs?: number;
  now?: () => Date;
}

/**
 * The postback delivery worker (decisions.md D13, D17): reads the outbox (postback_events, written by enqueuePostback
 * in the transaction of the event), POSTs each event signed to its affiliate's webhook, and records the outcome.
 * A non-2xx answer, a network error or a refused address is retried with exponential backoff for 24 h after the
 * event, then the event is failed. Due rows are claimed with FOR UPDATE SKIP LOCKED and leased, so even two workers
 * never send one event twice at once; normally only one runs per cluster (the leader, like the price feed).
 * Created stopped: main.ts starts it (polling every second, so the first attempt follows the commit within about a
 * second); tests call tick(now) with a clock of their own.
 */
export class PostbackWorker {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly poller: LeaderPoller;

  constructor(private readonly deps: PostbackWorkerDeps) {
    this.poller = new LeaderPoller({
      name: 'postbacks',
      lease: LEASES.postbacks,
      key: LEADER_LOCKS.postbacks,
      databaseUrl: deps.databaseUrl,
      leaseMs: deps.leaseMs,
      retryMs: deps.leaderRetryMs,
      pollMs: deps.pollMs,
      log: deps.log,
      poll: () => this.poll(),
      // Deliveries a poll started in the background end before the worker stops.
      drain: async () => void (await Promise.allSettled([...this.inFlight])),
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Claims the due events (at `now`), delivers them all, and answers how each ended. */
  async tick(now: Date = this.now()): Promise<{ delivered: number; retried: number; failed: number }> {
    const events = await this.claim(now, BATCH);
    const outcomes = await Promise.all(events.map((e) => this.deliver(e, now)));
    return {
      delivered: outcomes.filter((o) => o === 'delivered').length,
      retried: outcomes.filter((o) => o === 'retry').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  private async claim(now: Date, limit: number): Promise<ClaimedEvent[]> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const { rows } = await sql<{
      id: string | number;
      event_id: string;
      payload: PostbackPayload | string;
      attempts: number;
      created_at: Date | string;
      webhook_url: string | null;
      signing_secret_enc: string | null;
      affiliate_deleted: boolean;
    }>`
      with due as (
        select id from postback_events
        where status = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at, id
        limit ${limit}
        for update skip locked
      )
      update postback_events p set next_attempt_at = ${leaseUntil}
      from due, affiliates a
      where p.id = due.id and a.id = p.affiliate_id
      returning p.id, p.event_id, p.payload, p.attempts, p.created_at, a.webhook_url, a.signing_secret_enc,
                a.deleted_at is not null as affiliate_deleted`.execute(this.deps.db);
    return rows.map((r) => ({
      id: Number(r.id),
      event_id: r.event_id,
      payload: typeof r.payload === 'string' ? (JSON.parse(r.payload) as PostbackPayload) : r.payload,
      attempts: Number(r.attempts),
      created_at: new Date(r.created_at),
      webhook_url: r.webhook_url,
      signing_secret_enc: r.signing_secret_enc,
      affiliate_deleted: r.affiliate_deleted,
    }));
  }

  /** One attempt; never throws (a failure is recorded on the row). */
  private async deliver(event: ClaimedEvent, now: Date): Promise<DeliveryOutcome> {
    if (event.affiliate_deleted || !event.webhook_url || !event.signing_secret_enc) {
      await this.finish(event, now, { failed: true, statusCode: null, error: 'the affiliate has no webhook URL now' });
      return 'failed';
    }
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const secret = this.deps.vault.decryptSecret(event.signing_secret_enc, SIGNING_SECRET_PURPOSE);
      const body = postbackBody(event.event_id, event.payload);
      const answer = await outboundRequest({
        url: event.webhook_url,
        method: 'POST',
        headers: postbackHeaders(secret, body, now, event.event_id),
        body,
        timeoutMs: this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        rules: this.deps.rules,
      });
      statusCode = answer.status;
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
    } catch (err) {
      error = describe(err, this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    }
    if (error === null) {
      await this.finish(event, now, { delivered: true, statusCode, error: null });
      return 'delivered';
    }
    const failures = event.attempts + 1;
    const deadline = event.created_at.getTime() + RETRY_WINDOW_MS;
    const failed = now.getTime() >= deadline;
    const next = new Date(Math.min(now.getTime() + retryDelayMs(failures), deadline));
    this.deps.log?.warn(
      { postback_id: event.id, attempts: failures, status: statusCode, error, final: failed },
      'postback delivery failed',
    );
    await this.finish(event, now, { failed, statusCode, error, next });
    return failed ? 'failed' : 'retry';
  }

  private async finish(
    event: ClaimedEvent,
    now: Date,
    outcome: { delivered?: boolean; failed?: boolean; statusCode: number | null; error: string | null; next?: Date },
  ): Promise<void> {
    await this.deps.db
      .updateTable('postback_events')
      .set({
        status: outcome.delivered ? 'delivered' : outcome.failed ? 'failed' : 'pending',
        attempts: event.attempts + 1,
        last_attempt_at: now,
        last_status_code: outcome.statusCode,
        last_error: outcome.error === null ? null : outcome.error.slice(0, 500),
        ...(outcome.delivered ? { delivered_at: now } : {}),
        ...(outcome.next ? { next_attempt_at: outcome.next } : {}),
      })
      .where('id', '=', event.id)
      .where('status', '=', 'pending')
      .execute();
  }

  /** One poll: claims what there is room for and delivers it in the background. */
  private async poll(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return;
    const now = this.now();
    const events = await this.claim(now, Math.min(room, BATCH));
    for (const event of events) {
      const run: Promise<unknown> = this.deliver(event, now)
        .catch((err: unknown) => this.deps.log?.warn({ err, postback_id: event.id }, 'postback delivery crashed'))
        .finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  /** Polls (as the cluster's leader when there is a database URL) until stop(). */
  async start(): Promise<void> {
    await this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }
}

/** A failure as stored in last_error: short, without the URL's query or any header (never the secret). */
function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof OutboundUrlError) {
    if (err.code === 'url_private_address')
      return `refused: ${err.host} resolves to a non-public address ${err.address}`;
    if (err.code === 'url_unresolvable') return `host not found: ${err.host}`;
    if (err.code === 'url_not_https') return 'refused: the webhook URL is not https';
    return 'refused: the webhook URL is not valid';
  }
  if (err instanceof OutboundNetworkError) {
    if (err.kind === 'timeout') return `timeout: no answer within ${timeoutMs / 1000} s`;
    return `${err.kind === 'failed' ? 'network error' : err.kind}: ${err.message}`;
  }
  return 'could not sign the postback (signing secret unreadable)';
}
