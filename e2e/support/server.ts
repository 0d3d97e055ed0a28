import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Starts the real server (the same entry as `npm start`) on a free port with its own embedded database in a temp
 * directory, and waits until it says it is serving. The web app must have been built (`npm test` builds it first).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  // WEB_DIST (as for the server) lets a build in another directory be tested.
  const webDist = path.resolve(root, env.WEB_DIST ?? process.env.WEB_DIST ?? 'apps/web/dist');
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(`${webDist} is missing: run \`npm run build\` first (npm test does)`);
  }
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-e2e-'));
  let out = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DEMO_DATA: '1',
      // Password-only sign-in, except in the two-factor test (which sets it).
      REQUIRE_2FA_ROLES: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (out.includes('Serving on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
