import { LeaseLeader } from './leader.js';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * A job that polls while this process leads it (the postbacks' and the mail's delivery workers): with a database URL
 * only the holder of the job's lease polls (one per cluster, LeaseLeader), without one (the embedded database, tests)
 * this process does. Each poll waits for the previous one and is followed by `pollMs` of rest; a failed poll is logged
 * and the next one comes as usual. `drain`, when given, is awaited on stop after the last poll (work a poll started in
 * the background).
 */
export class LeaderPoller {
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private leader: LeaseLeader | null = null;
  private current: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: {
      /** For logs ('postbacks', 'mail'). */
      name: string;
      lease: string;
      key: number;
      databaseUrl?: string | undefined;
      leaseMs?: number | undefined;
      retryMs?: number | undefined;
      pollMs?: number | undefined;
      log?: Log | undefined;
      poll: () => Promise<void>;
      drain?: () => Promise<void>;
    },
  ) {}

  private startPolling(): void {
    if (this.polling) return;
    this.polling = true;
    const loop = () => {
      if (!this.polling) return;
      this.current = this.options
        .poll()
        .catch((err: unknown) => this.options.log?.warn({ err }, `${this.options.name} poll failed`))
        .finally(() => {
          if (!this.polling) return;
          this.timer = setTimeout(loop, this.options.pollMs ?? 1000);
          this.timer.unref();
        });
    };
    loop();
  }

  private async stopPolling(): Promise<void> {
    this.polling = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
    await this.options.drain?.();
  }

  /** Polls (as the cluster's leader when there is a database URL) until stop(). */
  async start(): Promise<void> {
    if (this.polling || this.leader) return;
    const { databaseUrl, leaseMs, log } = this.options;
    if (databaseUrl) {
      // A lease (issue 21 §4): a stalled leader is replaced once it runs out, a crashed one at once.
      this.leader = new LeaseLeader({
        url: databaseUrl,
        lease: this.options.lease,
        key: this.options.key,
        name: this.options.name,
        ...(leaseMs ? { leaseMs } : {}),
        retryMs: this.options.retryMs ?? 3000,
        ...(log ? { log } : {}),
        onLead: () => this.startPolling(),
        onLose: () => this.stopPolling(),
      });
      await this.leader.start();
    } else {
      this.startPolling();
    }
  }

  async stop(): Promise<void> {
    if (this.leader) await this.leader.stop();
    this.leader = null;
    await this.stopPolling();
  }
}
