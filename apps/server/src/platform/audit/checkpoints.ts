import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { keyedAfter } from './chain.js';
import { keyFingerprint, type AuditChainKey } from './chain-key.js';

/**
 * The chain's head anchored outside the database (issue 20 §7). A keyed chain cannot be rewritten without the key, but
 * its newest rows can still be cut off, leaving a shorter chain that verifies. So every server process appends a
 * checkpoint — the head's place and hash, and when — to DATA_DIR/audit-checkpoints.log (append-only, mode 0600) and
 * to its log, at start, at least once a minute while the head moves, and when it stops; verify-audit then requires
 * the chain to reach the newest checkpoint with the recorded hash at each recorded place.
 *
 * Several processes: each appends its own lines (no leader). Lines are short single writes in append mode, so lines
 * of processes sharing a DATA_DIR do not interleave; processes on different hosts each anchor into their own file.
 */
export const CHECKPOINT_FILE = 'audit-checkpoints.log';
export const CHECKPOINT_INTERVAL_MS = 60_000;

export interface Checkpoint {
  seq: number;
  hash: string;
  /** When it was written (ISO). */
  at: string;
  /** The switch-over to keyed hashes the database showed then. */
  keyed_after: number;
  /** The fingerprint of the key in use (chain-key.ts), to tell a check with another key from a rewrite. */
  key: string;
  pid: number;
}

export function checkpointFile(dataDir: string): string {
  return path.join(dataDir, CHECKPOINT_FILE);
}

/** Every readable checkpoint in the file, oldest first; null when there is no file. Damaged lines are counted. */
export function readCheckpoints(file: string): { checkpoints: Checkpoint[]; damaged: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const checkpoints: Checkpoint[] = [];
  let damaged = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const c = JSON.parse(line) as Checkpoint;
      if (
        Number.isSafeInteger(c.seq) &&
        c.seq > 0 &&
        /^[0-9a-f]{64}$/.test(c.hash) &&
        Number.isSafeInteger(c.keyed_after)
      )
        checkpoints.push(c);
      else damaged++;
    } catch {
      damaged++; // e.g. the last line of a crash mid-write
    }
  }
  return { checkpoints, damaged };
}

/** The newest line of the file (its last 4 KB are enough: a line is ~200 bytes). */
function lastCheckpoint(file: string): Checkpoint | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, 4096);
    const buf = Buffer.alloc(length);
    fs.readSync(fd, buf, 0, length, size - length);
    const lines = buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    try {
      return JSON.parse(lines[lines.length - 1] ?? '') as Checkpoint;
    } catch {
      return null;
    }
  } finally {
    fs.closeSync(fd);
  }
}

async function chainHead(db: Db): Promise<{ seq: number; hash: string } | null> {
  const row = await sql<{ seq: string; hash: string }>`
    select a.seq::text as seq, a.hash from audit_log a where a.seq is not null order by a.seq desc limit 1`.execute(db);
  const head = row.rows[0];
  return head ? { seq: Number(head.seq), hash: head.hash } : null;
}

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Writes the checkpoints of one process. Created stopped: main.ts starts it; tests call `writeNow()`. `stop()` (on
 * the app's close) writes a last one if it was started.
 */
export class AuditCheckpointWriter {
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private last: { seq: number; hash: string } | null = null;
  private running: Promise<Checkpoint | null> = Promise.resolve(null);

  constructor(
    private readonly options: {
      db: Db;
      file: string;
      key: () => AuditChainKey | null;
      log: Log;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    try {
      fs.mkdirSync(path.dirname(this.options.file), { recursive: true }); // DATA_DIR, with PostgreSQL possibly new
    } catch (err) {
      this.options.log.error({ err, file: this.options.file }, 'could not create the audit checkpoint folder');
    }
    const previous = lastCheckpoint(this.options.file);
    this.last = previous && { seq: previous.seq, hash: previous.hash };
    void this.writeNow();
    this.timer = setInterval(() => void this.writeNow(), this.options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Appends a checkpoint if the head moved since the last one; returns it (null: nothing new, or it failed). */
  writeNow(): Promise<Checkpoint | null> {
    this.running = this.running.then(() => this.write());
    return this.running;
  }

  private async write(): Promise<Checkpoint | null> {
    try {
      const head = await chainHead(this.options.db);
      if (!head || (this.last && this.last.seq === head.seq && this.last.hash === head.hash)) return null;
      const key = this.options.key()?.existing();
      const checkpoint: Checkpoint = {
        seq: head.seq,
        hash: head.hash,
        at: new Date().toISOString(),
        keyed_after: await keyedAfter(this.options.db),
        key: key ? keyFingerprint(key) : '',
        pid: process.pid,
      };
      const fd = await fs.promises.open(this.options.file, 'a', 0o600);
      try {
        await fd.write(`${JSON.stringify(checkpoint)}\n`);
        await fd.datasync();
      } finally {
        await fd.close();
      }
      this.last = head;
      this.options.log.info({ audit_checkpoint: checkpoint }, 'audit chain checkpoint');
      return checkpoint;
    } catch (err) {
      this.options.log.error({ err, file: this.options.file }, 'could not write the audit chain checkpoint');
      return null;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.started) return;
    this.started = false;
    await this.writeNow();
  }
}
