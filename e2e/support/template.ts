import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../../apps/server/test/server-process.js';
import { ensureServerBundle } from '../../apps/server/test/server-bundle.js';

/**
 * Seeded data directories that the browser tests' servers start from, instead of each creating its database and
 * seeding the demo data set (DEMO_DATA=1) on its first start — most of a test file's setup otherwise.
 *
 * A template is made by starting the bundled server once on an empty data directory with the settings that shape what
 * the first start writes (SEED_KEYS) and stopping it cleanly as soon as it serves; a test's server gets a copy and
 * starts on it: the same database, card key and audit checkpoints as had it seeded them itself a few minutes earlier.
 * Templates are kept in the system's temp directory under a hash of the bundle (so of the code, migrations and seed)
 * and of those settings, for TEMPLATE_MAX_AGE_MS: the demo data is relative to the moment it was seeded (the trade
 * history ends then, reminders are due hours after it), so a template that old is seeded again.
 */

/** The audit chain key of the browser tests' servers (unless a test gives its own): one, so a template's fits. */
export const E2E_AUDIT_CHAIN_KEY = createHash('sha256').update('brokerage e2e audit chain key').digest('base64');

/**
 * Settings that only shape how a server runs, never what its first start writes: left out of a template's key and not
 * given to the server that makes it. Any other setting a test gives makes its own template.
 */
const RUNTIME_ONLY = new Set([
  'DATA_DIR',
  'PRICE_SOURCE',
  'SETTLEMENT_INTERVAL_MS',
  'LOGIN_RATE_PER_MINUTE',
  'TRUST_PROXY',
  'WEB_DIST',
  'SITE_CONTENT_FILE',
  'ALLOW_PRIVATE_WEBHOOKS',
  // Issue 22: where mail goes and the links' address (a new test SMTP server's port must not reseed).
  'PORT',
  'SMTP_URL',
  'MAIL_FROM',
  'PUBLIC_URL',
]);

/** How long a template is used after it was seeded. */
const TEMPLATE_MAX_AGE_MS = 20 * 60_000;

const CACHE_DIR = path.join(os.tmpdir(), 'brokerage-e2e-templates');

export interface DataTemplate {
  /** The data directory to copy. */
  dataDir: string;
  /** What the server printed on the first start that made it (the demo logins), up to "Serving on". */
  firstStartOutput: string;
}

interface TemplateMeta {
  created: number;
  firstStartOutput: string;
}

/** The template for a server started with `env` (laid over process.env), made now if there is none recent enough. */
export async function dataTemplate(env: Record<string, string>): Promise<DataTemplate> {
  const seedEnv = Object.fromEntries(
    Object.entries(env)
      .filter(([name]) => !RUNTIME_ONLY.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const bundle = await ensureServerBundle();
  const key = createHash('sha256')
    .update(fs.readFileSync(bundle))
    .update(JSON.stringify(seedEnv))
    .digest('hex')
    .slice(0, 16);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const now = Date.now();
  // <key>-<created ms>: a newer template of a key never replaces a directory another run may be copying.
  const mine = fs
    .readdirSync(CACHE_DIR)
    .map((name) => ({ name, match: /^([0-9a-f]{16})-(\d+)$/.exec(name) }))
    .filter((e) => e.match)
    .map((e) => ({ dir: path.join(CACHE_DIR, e.name), key: e.match![1]!, created: Number(e.match![2]) }));
  for (const old of mine.filter((e) => now - e.created > 2 * TEMPLATE_MAX_AGE_MS)) {
    fs.rmSync(old.dir, { recursive: true, force: true });
  }
  const recent = mine
    .filter((e) => e.key === key && now - e.created <= TEMPLATE_MAX_AGE_MS)
    .sort((a, b) => b.created - a.created)[0];
  if (recent) {
    try {
      return load(recent.dir);
    } catch {
      // Removed meanwhile by another run: make one.
    }
  }
  return make(key, seedEnv);
}

function load(dir: string): DataTemplate {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as TemplateMeta;
  return { dataDir: path.join(dir, 'data'), firstStartOutput: meta.firstStartOutput };
}

async function make(key: string, seedEnv: Record<string, string>): Promise<DataTemplate> {
  const created = Date.now();
  const building = fs.mkdtempSync(path.join(CACHE_DIR, `building-${key}-`));
  try {
    const dataDir = path.join(building, 'data');
    fs.mkdirSync(dataDir);
    const server = await startServerProcess(
      { AUDIT_CHAIN_KEY: E2E_AUDIT_CHAIN_KEY, ...seedEnv, DATA_DIR: dataDir },
      { tmpPrefix: 'brokerage-e2e-template-', bundle: true, startTimeoutMs: 150_000 },
    );
    await server.stop();
    // A shutdown cut short (exit 1 after its 10 s) may have left the database unflushed.
    if (server.child.exitCode !== 0) throw new Error(`the template server exited with ${server.child.exitCode}`);
    const output = server.output();
    const meta: TemplateMeta = { created, firstStartOutput: output.slice(0, output.indexOf('Serving on')) };
    fs.writeFileSync(path.join(building, 'meta.json'), JSON.stringify(meta));
    const dir = path.join(CACHE_DIR, `${key}-${created}`);
    fs.renameSync(building, dir);
    return load(dir);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    throw err;
  }
}
