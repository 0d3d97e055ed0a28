import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Advisory lock keys of single-leader jobs (one number per job, shared by every process). */
export const LEADER_LOCKS = { priceFeed: 7_342_001, postbacks: 7_342_002, mail: 7_342_003 } as const;
/** Their rows in leader_leases (migration 0025). */
export const LEASES = { priceFeed: 'price-feed', postbacks: 'postbacks', mail: 'mail' } as const;

/** How long a lease lasts unless renewed (renewed every third of it). */
export const DEFAULT_LEASE_MS = 3000;

const ms = (value: number) => Math.max(1, Math.round(value));

/**
 * Single-leader election over PostgreSQL with a lease (issue 21 §4, design.md §3). The leader holds the job's row in
 * leader_leases: it renews `expires_at` (database time) every third of `leaseMs` on a dedicated connection, and each
 * take-over raises the row's `fence`. A leader that stops renewing — crashed, stopped (SIGSTOP), starved of CPU, cut
 * off — loses the lease when it expires, and another process takes over; the writes that matter carry the fence and
 * the database refuses them once it is not the row's (modules/prices/feed-store.ts), so a leader that wakes after
 * losing writes nothing. When it finds out (a refused renewal or write, or its own deadline passing) it steps down.
 *
 * A crash is seen sooner than the lease: the leader also holds the job's session advisory lock on its connection and
 * says so in the row (`locked`). A process that finds the lock free while the row says the holder had it knows the
 * holder's session ended and takes over at once; a stalled process keeps its session alive, so for a stall the lease
 * decides. Followers try every `retryMs`, and also right after the lease they saw would run out.
 */
export class LeaseLeader {
  readonly holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private fence: string | null = null;
  private hasLock = false;
  /** performance.now() by which the lease has run out unless renewed (counted from before the renewal was sent). */
  private validUntil = 0;
  private attempt: Promise<number> | null = null;

  constructor(
    private readonly options: {
      url: string;
      /** The row in leader_leases. */
      lease: string;
      /** The advisory lock key. */
      key: number;
      /** For logs. */
      name: string;
      leaseMs?: number;
      retryMs?: number;
      log?: Log;
      onLead: (fence: string) => Promise<void> | void;
      onLose: () => Promise<void> | void;
    },
  ) {}

  get isLeader(): boolean {
    return this.fence !== null;
  }

  /** The fence of the lease this process holds, or null. */
  get currentFence(): string | null {
    return this.fence;
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Tries once at once, then keeps renewing (as the leader) or trying (as a follower). */
  async start(): Promise<void> {
    this.stopped = false;
    const next = await this.step();
    this.schedule(next);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.step().then((next) => this.schedule(next));
    }, ms(delay));
    this.timer.unref();
  }

  /** One renewal or attempt; answers the wait before the next. */
  private step(): Promise<number> {
    this.attempt ??= this.doStep().finally(() => (this.attempt = null));
    return this.attempt;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.leaseMs,
      query_timeout: this.leaseMs,
    });
    client.on('error', () => this.dropConnection(client));
    client.on('end', () => this.dropConnection(client));
    await client.connect();
    this.client = client;
    return client;
  }

  private dropConnection(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.hasLock = false; // the session's advisory lock ends with it
    client.end().catch(() => undefined);
  }

  private async doStep(): Promise<number> {
    const retryMs = this.options.retryMs ?? 3000;
    if (this.stopped) return retryMs;
    try {
      const client = await this.connection();
      if (this.fence !== null) {
        if (performance.now() > this.validUntil) {
          await this.lose('lease ran out before it could be renewed');
          return retryMs;
        }
        if (!this.hasLock) this.hasLock = await this.tryLock(client);
        const sent = performance.now();
        const res = await client.query(
          `update leader_leases set expires_at = clock_timestamp() + $1 * interval '1 millisecond', locked = $2
           where name = $3 and fence = $4 and expires_at > clock_timestamp()
           returning fence`,
          [this.leaseMs, this.hasLock, this.options.lease, this.fence],
        );
        if (res.rowCount === 0) {
          await this.lose('lease lost to another process');
          return retryMs;
        }
        this.validUntil = sent + this.leaseMs;
        return this.leaseMs / 3;
      }
      const locked = await this.tryLock(client);
      const sent = performance.now();
      const res = await client.query<{ fence: string | null; left_ms: number | null }>(
        `with cur as (
           select case when isfinite(expires_at)
                       then greatest(0, extract(epoch from (expires_at - clock_timestamp())) * 1000) else 0 end::float8
                    as left_ms
           from leader_leases where name = $1
         ), took as (
           insert into leader_leases as l (name, holder, fence, expires_at, locked)
           values ($1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond', $4)
           on conflict (name) do update
             set holder = excluded.holder, fence = l.fence + 1, expires_at = excluded.expires_at, locked = excluded.locked
             where l.expires_at <= clock_timestamp() or ($4 and l.locked)
           returning fence
         )
         select (select fence::text from took) as fence, (select left_ms from cur) as left_ms`,
        [this.options.lease, this.holder, this.leaseMs, locked],
      );
      const row = res.rows[0];
      if (row?.fence && !this.stopped) {
        this.fence = row.fence;
        this.hasLock = locked;
        this.validUntil = sent + this.leaseMs;
        this.options.log?.info({ job: this.options.name, fence: row.fence }, 'this process is now the leader');
        try {
          await this.options.onLead(row.fence);
        } catch (err) {
          this.options.log?.warn({ err, job: this.options.name }, 'could not start as the leader');
          await this.lose('start failed');
          return retryMs;
        }
        return this.leaseMs / 3;
      }
      if (locked) await client.query('select pg_advisory_unlock($1)', [this.options.key]);
      if (row?.fence) {
        // Taken while stopping: handed back at once.
        await client.query('update leader_leases set expires_at = clock_timestamp() where name = $1 and fence = $2', [
          this.options.lease,
          row.fence,
        ]);
        return retryMs;
      }
      // Try again right after the lease seen would run out (a stalled leader's), or every retryMs.
      return Math.min(retryMs, (row?.left_ms ?? retryMs) + 25);
    } catch (err) {
      this.options.log?.warn({ err, job: this.options.name }, 'leader election: database unreachable; will retry');
      if (this.client) this.dropConnection(this.client);
      if (this.fence !== null && performance.now() > this.validUntil)
        await this.lose('lease ran out before it could be renewed');
      return Math.min(retryMs, this.leaseMs / 6);
    }
  }

  private async tryLock(client: pg.Client): Promise<boolean> {
    const res = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
      this.options.key,
    ]);
    return res.rows[0]?.locked === true;
  }

  private async lose(why: string): Promise<void> {
    if (this.fence === null) return;
    this.fence = null;
    this.options.log?.warn({ job: this.options.name, why }, 'leader lock lost');
    if (this.hasLock && this.client) {
      this.hasLock = false;
      await this.client.query('select pg_advisory_unlock($1)', [this.options.key]).catch(() => undefined);
    }
    await Promise.resolve(this.options.onLose()).catch(() => undefined);
  }

  /**
   * Called when a fenced write was refused (the lease `fence` is no longer this process's): steps down at once
   * instead of at the next renewal.
   */
  async lost(fence: string): Promise<void> {
    await this.attempt;
    if (this.fence === fence) await this.lose('a write was refused: the lease is no longer this process');
  }

  /** Stops trying and, if leading, steps down (onLose first, so the job's last writes still carry the fence). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.attempt;
    const fence = this.fence;
    if (fence !== null) {
      this.fence = null;
      await Promise.resolve(this.options.onLose()).catch(() => undefined);
      // Handed back at once: another process need not wait for it to run out.
      await this.client
        ?.query('update leader_leases set expires_at = clock_timestamp() where name = $1 and fence = $2', [
          this.options.lease,
          fence,
        ])
        .catch(() => undefined);
    }
    const client = this.client;
    this.client = null;
    this.hasLock = false;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
