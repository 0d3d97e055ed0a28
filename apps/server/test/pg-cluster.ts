import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own (initdb + pg_ctl on a free port of 127.0.0.1, in a temporary directory), for
 * the fault tests that stop, restart or pause PostgreSQL without disturbing the shared server other tests use. The
 * binaries come from PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian's postgresql package). As root
 * (CI, containers) everything runs as the `postgres` user, since PostgreSQL refuses to run as root.
 */
export interface PgCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** The temporary directory: data/, the socket and server.log. */
  readonly dir: string;
  /** Whether the server runs (started and not stopped). */
  readonly running: boolean;
  /** Starts the server and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server ('fast' by default: sessions are ended cleanly; 'immediate' is a crash). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** Stops and starts again; 'immediate' as a crash would (recovery at start, every connection cut). */
  restart(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** SIGSTOP to the postmaster and every process of the cluster: connections stay open and nothing answers. */
  pause(): Promise<void>;
  /** SIGCONT to them all: the cluster goes on where it stopped. */
  resume(): Promise<void>;
  /** A URL of another database of this cluster. */
  urlOf(database: string): string;
  /** The server's log so far. */
  log(): string;
  /** Stops the server (immediate) if it runs and removes the temporary directory. */
  destroy(): Promise<void>;
}

/** The directory of initdb and pg_ctl, or null when no PostgreSQL server is installed. */
export function pgBinDir(): string | null {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0]!, 'bin') : null;
}

/** The uid and gid of the `postgres` user when this process is root (PostgreSQL will not run as root). */
async function runAs(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/** The ids of the processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** A process's state letter (T: stopped), or null when it is gone. */
function stateOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

async function untilStopped(pids: number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pids.some((pid) => !['T', 't', null].includes(stateOf(pid)))) {
    if (Date.now() > deadline) throw new Error(`processes ${pids.join(', ')} did not stop`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Creates the cluster (initdb), not started; `start()` starts it. `settings` are added to postgresql.conf after the
 * defaults here (which favour speed: fsync and synchronous_commit off), e.g. synchronous_commit = 'on' for a test that
 * crashes PostgreSQL and counts on every acknowledged commit surviving it.
 */
export async function createPgCluster(options: { settings?: Record<string, string> } = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb): install postgresql or set PG_BIN');
  const user = await runAs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();
  const as = { cwd: dir, ...(user ?? {}) };
  const tool = (name: string, args: string[]) => run(path.join(bin, name), args, as);

  await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 60',
      'shared_buffers = 32MB',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
  );

  let running = false;
  let paused: number[] = [];
  const postmasterPid = () => Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  const cluster: PgCluster = {
    url: url('postgres'),
    port,
    dir,
    get running() {
      return running;
    },
    async start() {
      await tool('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      if (paused.length > 0) await cluster.resume();
      await tool('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async restart(mode = 'fast') {
      if (paused.length > 0) await cluster.resume();
      await tool('pg_ctl', ['-D', data, '-l', logFile, '-m', mode, '-w', '-t', '60', 'restart']);
      running = true;
    },
    async pause() {
      if (paused.length > 0) return;
      // The postmaster first, so that it forks no new process, then everything it started.
      const postmaster = postmasterPid();
      process.kill(postmaster, 'SIGSTOP');
      await untilStopped([postmaster]);
      const children = childrenOf(postmaster);
      for (const pid of children) process.kill(pid, 'SIGSTOP');
      await untilStopped(children);
      paused = [postmaster, ...children];
    },
    async resume() {
      const pids = paused;
      paused = [];
      for (const pid of pids.reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone
        }
      }
    },
    urlOf: url,
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    async destroy() {
      try {
        if (running) await cluster.stop('immediate');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}
