import pg from 'pg';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Advisory lock keys of single-leader jobs (one number per job, shared by every process). */
export const LEADER_LOCKS = { priceFeed: 7_342_001, postbacks: 7_342_002 } as const;

/**
 * Single-leader election over PostgreSQL (design.md §3): a session-level advisory lock held on a dedicated
 * connection. The process that takes it is the leader until that connection ends (a crash or a network loss ends it,
 * and PostgreSQL releases the lock); the others try again every `retryMs` to take over. `onLead` runs when this
 * process becomes the leader, `onLose` when its connection (and so the lock) is lost.
 */
export class LeaderLock {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private leading = false;
  private attempt: Promise<void> | null = null;

  constructor(
    private readonly options: {
      url: string;
      key: number;
      name: string;
      retryMs?: number;
      log?: Log;
      onLead: () => Promise<void> | void;
      onLose: () => Promise<void> | void;
    },
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** Tries once at once, then keeps trying every retryMs while not the leader. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tryLead();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tryLead().finally(() => this.schedule());
    }, this.options.retryMs ?? 3000);
    this.timer.unref();
  }

  private tryLead(): Promise<void> {
    this.attempt ??= this.doTryLead().finally(() => (this.attempt = null));
    return this.attempt;
  }

  private async doTryLead(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.client) {
        const client = new pg.Client({ connectionString: this.options.url });
        client.on('error', () => this.lost(client));
        client.on('end', () => this.lost(client));
        await client.connect();
        this.client = client;
      }
      if (this.leading) {
        // Still connected means still holding the lock; a query proves the connection is alive.
        await this.client.query('select 1');
        return;
      }
      const res = await this.client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
        this.options.key,
      ]);
      if (res.rows[0]?.locked && !this.stopped) {
        this.leading = true;
        this.options.log?.info({ job: this.options.name }, 'this process is now the leader');
        await this.options.onLead();
      }
    } catch (err) {
      this.options.log?.warn({ err, job: this.options.name }, 'leader election: database unreachable; will retry');
      if (this.client) this.lost(this.client);
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.leading) {
      this.leading = false;
      this.options.log?.warn({ job: this.options.name }, 'leader lock lost');
      void Promise.resolve(this.options.onLose()).catch(() => undefined);
    }
  }

  /** Stops trying and, if leading, gives the lock up (by ending the connection) after `onLose`. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.attempt;
    const client = this.client;
    this.client = null;
    if (this.leading) {
      this.leading = false;
      await this.options.onLose();
    }
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
