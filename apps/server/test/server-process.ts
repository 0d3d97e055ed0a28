import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { postEntry } from '../src/modules/ledger/service.js';
import { LEASES } from '../src/platform/bus/leader.js';
import type { Db } from '../src/platform/db/index.js';
import { ensureServerBundle } from './server-bundle.js';

/**
 * A real server process, started as production starts it (`node --import tsx apps/server/src/main.ts`), for the tests
 * that need separate processes (several servers over one PostgreSQL, SIGKILL mid-work) and for the browser tests and
 * benches (e2e/support/server.ts), which start it from the bundle (server-bundle.ts) instead.
 */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface ServerProcess {
  name: string;
  url: string;
  /** The live socket's address. */
  ws: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM (a clean shutdown), then its data directory removed. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), then its data directory removed. */
  kill(): Promise<void>;
}

let started = 0;

/** The audit chain key of the server processes this test file starts (unless a test gives its own). */
export const PROCESS_AUDIT_CHAIN_KEY = randomBytes(32).toString('base64');
/** Their price log signing key (D27): processes over one database sign heads with one key. */
export const PROCESS_PRICE_LOG_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/**
 * Starts a server on a free port of 127.0.0.1 with its own data directory (its embedded database, unless `env` names a
 * DATABASE_URL) and waits until it says it is serving; refuses with its output if it exits or is silent for 60 s.
 * `env` is laid over the parent's environment and PORT, HOST, DATA_DIR, LOG_LEVEL=warn.
 */
export async function startServerProcess(
  env: Record<string, string> = {},
  options: {
    tmpPrefix?: string;
    /** Called with each piece of output as it comes, also before the server is up. */
    onOutput?: (text: string) => void;
    /** How long it may take to say it is serving (60 s by default). */
    startTimeoutMs?: number;
    /**
     * Start the bundled server with plain node (apps/server/dist/main.js, rebuilt first if a source file is newer)
     * instead of compiling the sources with tsx on every start.
     */
    bundle?: boolean;
    /**
     * A data directory (a server's, stopped) copied into the one this server uses (`env.DATA_DIR` or its own) before
     * it starts, when that one is empty: it then starts on that database instead of creating one.
     */
    dataFrom?: string;
  } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), options.tmpPrefix ?? 'brokerage-server-'));
  const name = `server-${++started}`;
  if (options.dataFrom) {
    const target = env.DATA_DIR ?? dataDir;
    if (!fs.existsSync(target) || fs.readdirSync(target).length === 0) {
      fs.cpSync(options.dataFrom, target, { recursive: true });
    }
  }
  const args = options.bundle
    ? ['--enable-source-maps', await ensureServerBundle()]
    : ['--import', 'tsx', 'apps/server/src/main.ts'];
  let out = '';
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // The processes of a test share one database, so one chain key, as operations.md tells operators.
      AUDIT_CHAIN_KEY: PROCESS_AUDIT_CHAIN_KEY,
      PRICE_LOG_KEY: PROCESS_PRICE_LOG_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const take = (d: Buffer) => {
    out += d.toString();
    options.onOutput?.(d.toString());
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const limit = options.startTimeoutMs ?? 60_000;
    const timer = setTimeout(() => reject(new Error(`${name} did not start in ${limit / 1000} s:\n${out}`)), limit);
    const check = () => {
      if (out.includes('Serving on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/api/ws`,
    dataDir,
    child,
    output: () => out,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/** Polls `probe` until it answers something truthy, which it returns; throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * The process of `procs` that leads the price feed now: the holder (host:pid:…) of the feed's unexpired lease in
 * leader_leases (D22). Undefined while none of them holds it (a take-over under way).
 */
export async function feedLeaseHolder<P extends ServerProcess>(db: Db, procs: readonly P[]): Promise<P | undefined> {
  const row = await db
    .selectFrom('leader_leases')
    .select('holder')
    .where('name', '=', LEASES.priceFeed)
    .where(sql<boolean>`expires_at > now()`)
    .executeTakeFirst();
  if (!row) return undefined;
  const pid = Number(row.holder.split(':')[1]);
  return procs.find((p) => p.child.pid === pid && p.child.exitCode === null && p.child.signalCode === null);
}

/** The trading account of a user (registered through a process), funded straight through the ledger; its id. */
export async function fundUserAccount(db: Db, userId: string, cents: number): Promise<number> {
  const account = await db
    .selectFrom('trading_accounts')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  await db.transaction().execute((trx) =>
    postEntry(trx, {
      accountId: Number(account.id),
      kind: 'deposit',
      amountCents: cents,
      reference: `test:${randomUUID()}`,
      actor: null,
    }),
  );
  return Number(account.id);
}

/** Waits until no trade is active: the processes that are up have settled every one. */
export async function untilNoActiveTrade(db: Db, what: string, timeoutMs = 30_000): Promise<void> {
  await until(
    what,
    async () => {
      const { n } = await db
        .selectFrom('trades')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow();
      return Number(n) === 0;
    },
    timeoutMs,
  );
}
