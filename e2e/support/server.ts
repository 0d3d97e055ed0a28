import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startServerProcess } from '../../apps/server/test/server-process.js';
import { dataTemplate, E2E_AUDIT_CHAIN_KEY } from './template.js';

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the real server (the same entry as `npm start`, bundled: apps/server/test/server-bundle.ts) on a free port
 * with its own embedded database in a temp directory, and waits until it says it is serving. The web app must have
 * been built (`npm test` builds it first).
 *
 * With DEMO_DATA=1 (the default) on an empty data directory, the directory starts as a copy of a template seeded
 * minutes earlier with the same settings (template.ts) instead of the server seeding it; `output()` then begins with
 * what the template's first start printed (the demo logins).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  // WEB_DIST (as for the server) lets a build in another directory be tested.
  const webDist = path.resolve(REPO_ROOT, env.WEB_DIST ?? process.env.WEB_DIST ?? 'apps/web/dist');
  if (!fs.existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(`${webDist} is missing: run \`npm run build\` first (npm test does)`);
  }
  const full: Record<string, string> = {
    DEMO_DATA: '1',
    // Password-only sign-in, except in the two-factor test (which sets it).
    REQUIRE_2FA_ROLES: '',
    AUDIT_CHAIN_KEY: E2E_AUDIT_CHAIN_KEY,
    ...env,
  };
  const firstStart = !full.DATA_DIR || !fs.existsSync(full.DATA_DIR) || fs.readdirSync(full.DATA_DIR).length === 0;
  const template = full.DEMO_DATA === '1' && firstStart ? await dataTemplate(full) : undefined;
  const server = await startServerProcess(full, {
    tmpPrefix: 'brokerage-e2e-',
    bundle: true,
    ...(template ? { dataFrom: template.dataDir } : {}),
  });
  const before = template?.firstStartOutput ?? '';
  return { url: server.url, dataDir: server.dataDir, output: () => before + server.output(), stop: server.stop };
}
