import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';
import { pumpOutbox, scanReminders } from './service.js';

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * The notification worker of one server process: scans the reminders every `scanMs` and pushes the committed
 * notifications every `pumpMs`. Safe with several processes: the scan's inserts are deduplicated by a unique index,
 * and the outbox is claimed with SKIP LOCKED, so each notification is created once and pushed once.
 * Created stopped; the app starts it when it listens, tests call tick().
 */
export class NotificationWorker {
  private scanTimer: NodeJS.Timeout | null = null;
  private pumpTimer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: {
      db: Db;
      bus: EventBus;
      log?: Log;
      now?: () => Date;
      scanMs?: number;
      pumpMs?: number;
    },
  ) {}

  /** One scan and one pump, now (or at a given time); returns what was created and pushed. */
  async tick(now: Date = (this.deps.now ?? (() => new Date()))()): Promise<{ created: number; pushed: number }> {
    const created = await scanReminders(this.deps.db, now);
    const pushed = await pumpOutbox(this.deps.db, this.deps.bus);
    return { created, pushed };
  }

  private guard(job: () => Promise<unknown>, what: string): void {
    this.running = this.running.then(job).catch((err: unknown) => this.deps.log?.warn({ err }, what));
  }

  start(): void {
    if (this.scanTimer) return;
    this.guard(() => this.tick(), 'notification scan failed');
    this.scanTimer = setInterval(
      () =>
        this.guard(() => scanReminders(this.deps.db, (this.deps.now ?? (() => new Date()))()), 'reminder scan failed'),
      this.deps.scanMs ?? 20_000,
    );
    this.pumpTimer = setInterval(
      () => this.guard(() => pumpOutbox(this.deps.db, this.deps.bus), 'notification push failed'),
      this.deps.pumpMs ?? 1_000,
    );
    this.scanTimer.unref();
    this.pumpTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.scanTimer) clearInterval(this.scanTimer);
    if (this.pumpTimer) clearInterval(this.pumpTimer);
    this.scanTimer = null;
    this.pumpTimer = null;
    await this.running;
  }
}
