import type { LiveUserEventType, PriceLogHead } from '@brokerage/shared';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/index.js';

/**
 * Events between the parts of the server and between server processes (decisions.md D11). Published after the
 * transaction that caused them has committed; delivery is best effort (a process that crashes loses what it had not
 * sent), so nothing that decides money may depend on an event, and what a screen shows is read from the database: a
 * socket resumes from its last sequence and the gateway re-reads after a reconnect and every LIVE_RESYNC_MS (issue 21 §7).
 */
export type BusEvent =
  /** A price of the feed; not routed to a user. `price` is the stored decimal string, `at` ISO 8601. */
  | { type: 'price.tick'; symbol: string; price: string; at: string }
  /** D27: a signed tree head of the price log, just published by the feed leader; goes to every socket. */
  | { type: 'price_log.head'; head: PriceLogHead }
  | { type: LiveUserEventType; user_id: string; payload: Record<string, unknown> }
  /**
   * A hint (issue 21 §7): the trading account of `user_id` changed (a trade placed, settled or voided, a balance
   * moved), committed up to its live sequence `seq` when given. The sockets read what changed from the database
   * (platform/ws/replay.ts), so a lost hint loses nothing but time: the gateway also re-reads after the bus reconnects
   * and every LIVE_RESYNC_MS.
   */
  | { type: 'account.changed'; user_id: string; account_id?: number; seq?: number }
  /**
   * Emitted by the bus itself, never sent: its listening connection is back after being lost (and at start), so
   * whatever was announced meanwhile may have been missed.
   */
  | { type: 'bus.reconnected' }
  /**
   * Who sees which client may have changed (a reassignment, a staff member's role or deletion): every process
   * re-checks its staff sockets' watched accounts at once (issue 9 finding 4).
   */
  | { type: 'access.changed' }
  /**
   * A session was revoked or who may call what changed (logout, password or role change, staff deletion, 2FA
   * change, IP whitelist change): every process drops its session cache and its whitelist cache at once.
   */
  | { type: 'auth.changed' };

export type BusHandler = (event: BusEvent) => void;

export interface EventBus {
  readonly kind: 'in-process' | 'postgres';
  publish(event: BusEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(handler: BusHandler): () => void;
  close(): Promise<void>;
  /**
   * The latest moment (Date.now()) by which every 'auth.changed' the database announced (migration 0020's triggers)
   * is known to have reached this bus's handlers, or null when that cannot be said (no listening connection, or it
   * has not answered lately). Absent on a bus that hears no database (in-process).
   */
  announcedSince?(): number | null;
}

interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

class Handlers {
  private readonly set = new Set<BusHandler>();
  constructor(private readonly log?: Log) {}
  add(handler: BusHandler): () => void {
    this.set.add(handler);
    return () => void this.set.delete(handler);
  }
  emit(event: BusEvent): void {
    for (const h of this.set) {
      try {
        h(event);
      } catch (err) {
        this.log?.error({ err, type: event.type }, 'event handler failed');
      }
    }
  }
}

/** One process (the embedded database admits one): events go straight to the handlers, in order. */
export class InProcessBus implements EventBus {
  readonly kind = 'in-process' as const;
  private readonly handlers: Handlers;
  constructor(log?: Log) {
    this.handlers = new Handlers(log);
  }
  publish(event: BusEvent): void {
    this.handlers.emit(event);
  }
  subscribe(handler: BusHandler): () => void {
    return this.handlers.add(handler);
  }
  async close(): Promise<void> {}
}

export const BUS_CHANNEL = 'brokerage_events';
/**
 * Events published within this long of the first one waiting go out together, in one statement: a busy server sends
 * one NOTIFY statement per window rather than one per placed trade (measured: one per call cost place-trade ~15 % of
 * its rate one at a time), at the price of the live events reaching the screens up to this much later.
 */
export const PUBLISH_WINDOW_MS = 5;
/** How often the listening connection is asked a `select 1` (PgBus.announcedSince). */
export const HEARTBEAT_MS = 200;
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const MAX_NOTIFY_BYTES = 7900;
/** The longest wait before the listening connection is tried again, and before a failed publish is retried. */
export const MAX_BACKOFF_MS = 1000;
/** Events kept for a retry while publishing fails; beyond it the oldest go (the sockets' resync covers them). */
export const MAX_RETRY_EVENTS = 10_000;

/** The wait before the next attempt after one that waited `previousMs` (0: the first): 100 ms, doubling, at most 1 s. */
export function nextBackoffMs(previousMs: number): number {
  return Math.min(previousMs > 0 ? previousMs * 2 : 100, MAX_BACKOFF_MS);
}

/**
 * Several processes over one PostgreSQL: every event is a NOTIFY on one channel, and every process (the publisher too)
 * receives it through its own LISTEN connection, so all handlers see the same stream. Publishing goes through the
 * pool, batched: the events of PUBLISH_WINDOW_MS are one statement; a batch that could not be sent is sent again
 * (backoff up to 1 s). A payload too large for NOTIFY loses its payload (the screens refetch anyway). A lost listening
 * connection is reconnected with backoff up to 1 s; events sent while it was down are missed by this process, so once
 * it listens again the bus emits 'bus.reconnected' and the socket gateway re-reads its sockets' streams from the
 * database (issue 21 §7).
 */
export class PgBus implements EventBus {
  readonly kind = 'postgres' as const;
  private readonly handlers: Handlers;
  private client: pg.Client | null = null;
  private closed = false;
  private backoffMs = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private queue: string[] = [];
  private flushing: Promise<void> | null = null;
  private publishBackoffMs = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private listening: Promise<void> | null = null;
  /** When the last answered heartbeat on the listening connection was sent (see announcedSince). */
  private heardAt: number | null = null;
  private beating = false;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly options: { db: Db; url: string; channel?: string; log?: Log }) {
    this.handlers = new Handlers(options.log);
  }

  private get channel(): string {
    return this.options.channel ?? BUS_CHANNEL;
  }

  /** Opens the listening connection; resolves once LISTEN is in place (or the first attempt failed). */
  start(): Promise<void> {
    this.listening ??= this.connect();
    return this.listening;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'brokerage-bus' });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      let event: BusEvent;
      try {
        event = JSON.parse(msg.payload) as BusEvent;
      } catch {
        return;
      }
      this.handlers.emit(event);
    });
    try {
      await client.connect();
      const sent = Date.now();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
      this.client = client;
      this.backoffMs = 0;
      this.heardAt = sent;
      // Whatever was announced while no connection listened is lost: the caches built meanwhile go, and the sockets
      // re-read what they may have missed.
      this.handlers.emit({ type: 'auth.changed' });
      this.handlers.emit({ type: 'bus.reconnected' });
      this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS);
      this.heartbeat.unref();
    } catch (err) {
      this.lost(client, err);
    }
  }

  /**
   * One round trip on the listening connection. PostgreSQL sends a listener what was notified before it answers the
   * next query, and pg hands each notification to the handlers as it reads it, so once a `select 1` sent at time T is
   * answered, every notification committed before T has been handled.
   */
  private beat(): void {
    const client = this.client;
    if (!client || this.beating) return;
    this.beating = true;
    const sent = Date.now();
    client.query('select 1').then(
      () => {
        this.beating = false;
        if (this.client === client) this.heardAt = sent;
      },
      () => {
        this.beating = false;
      },
    );
  }

  /**
   * See EventBus.announcedSince: the send time of the latest answered heartbeat, while the connection listens on the
   * channel the database's triggers notify (BUS_CHANNEL); null otherwise.
   */
  announcedSince(): number | null {
    return this.client && this.channel === BUS_CHANNEL ? this.heardAt : null;
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client && this.client !== client) return;
    this.client = null;
    this.heardAt = null;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.closed || this.reconnectTimer) return;
    this.backoffMs = nextBackoffMs(this.backoffMs);
    this.options.log?.warn({ err, retryInMs: this.backoffMs }, 'event bus connection lost; reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, this.backoffMs);
    this.reconnectTimer.unref();
  }

  publish(event: BusEvent): void {
    if (this.closed || event.type === 'bus.reconnected') return;
    let json = JSON.stringify(event);
    if (Buffer.byteLength(json) > MAX_NOTIFY_BYTES && 'user_id' in event)
      json = JSON.stringify({ ...event, payload: {} });
    if (Buffer.byteLength(json) > MAX_NOTIFY_BYTES) {
      this.options.log?.warn({ type: event.type }, 'event too large for NOTIFY; dropped');
      return;
    }
    this.queue.push(json);
    if (this.queue.length === 1 && !this.retryTimer) setTimeout(() => void this.flush(), PUBLISH_WINDOW_MS);
  }

  /**
   * Sends what is queued; the events of one batch reach listeners in order. A batch that fails (the database away)
   * goes back to the head of the queue, without its price ticks (stale by then), and is tried again after a backoff
   * of up to MAX_BACKOFF_MS, with what was queued meanwhile.
   */
  flush(): Promise<void> {
    const run = (this.flushing ?? Promise.resolve()).then(async () => {
      const batch = this.queue;
      this.queue = [];
      if (batch.length === 0) return;
      try {
        await sql`select pg_notify(${this.channel}, p) from unnest(${sql.val(batch)}::text[]) as t(p)`.execute(
          this.options.db,
        );
        this.publishBackoffMs = 0;
      } catch (err) {
        if (this.closed) return;
        const kept = batch.filter((json) => !json.startsWith('{"type":"price.tick"'));
        this.queue = [...kept, ...this.queue].slice(-MAX_RETRY_EVENTS);
        this.publishBackoffMs = nextBackoffMs(this.publishBackoffMs);
        this.options.log?.error(
          { err, events: batch.length, retryInMs: this.publishBackoffMs },
          'could not publish events; retrying',
        );
        if (!this.retryTimer && this.queue.length > 0) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            void this.flush();
          }, this.publishBackoffMs);
          this.retryTimer.unref();
        }
      }
    });
    this.flushing = run;
    return run;
  }

  subscribe(handler: BusHandler): () => void {
    return this.handlers.add(handler);
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heardAt = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}

/** The bus of a server: LISTEN/NOTIFY when the server runs on PostgreSQL with a URL, in-process otherwise. */
export async function createBus(options: { db: Db; url?: string | undefined; log?: Log }): Promise<EventBus> {
  if (!options.url) return new InProcessBus(options.log);
  const bus = new PgBus({ db: options.db, url: options.url, ...(options.log ? { log: options.log } : {}) });
  await bus.start();
  return bus;
}
