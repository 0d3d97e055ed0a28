import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startServerProcess } from '../../apps/server/test/server-process.js';

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the real server (the same entry as `npm start`) on a free port with its own embedded database in a temp
 * directory, and waits until it says it is serving. The web app must have been built (`npm test` builds it first).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  // WEB_DIST (as for the server) lets a build in another directory be tested.
  const webDist = path.resolve(REPO_ROOT, env.WEB_DIST ?? process.env.WEB_DIST ?? 'apps/web/dist');
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(`${webDist} is missing: run \`npm run build\` first (npm test does)`);
  }
  const server = await startServerProcess(
    {
      DEMO_DATA: '1',
      // Password-only sign-in, except in the two-factor test (which sets it).
      REQUIRE_2FA_ROLES: '',
      ...env,
    },
    { tmpPrefix: 'brokerage-e2e-' },
  );
  return { url: server.url, dataDir: server.dataDir, output: server.output, stop: server.stop };
}
