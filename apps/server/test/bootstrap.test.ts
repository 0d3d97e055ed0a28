import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emailField } from '@brokerage/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  bootstrap,
  DEFAULT_ADMIN_EMAIL,
  embeddedDbHolder,
  markEmbeddedDbInUse,
  SERVER_PID_FILE,
} from '../src/bootstrap.js';
import { runCli } from '../src/cli.js';
import { createTestApp, dbKinds, runAdminCommand, testConfig, type DbKind, type TestApp } from './helpers.js';

/** What a first (or later) start prints to the console. */
async function start(t: TestApp, env: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = [];
  await bootstrap(t.db, testConfig(env), (line) => void lines.push(line));
  return lines;
}

async function superadmins(t: TestApp) {
  return t.db.selectFrom('users').select(['id', 'email', 'role']).where('role', '=', 'superadmin').execute();
}

/** The first start of decisions.md D8: one superadmin from the configuration, or with a password printed once. */
describe.each(dbKinds())('first start on %s', (kind: DbKind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('without ADMIN_EMAIL and ADMIN_PASSWORD creates one superadmin and prints its generated password once', async () => {
    t = await createTestApp(kind);
    const lines = await start(t);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(DEFAULT_ADMIN_EMAIL);
    const password = /Password \(shown once, change it\): (\S+)$/.exec(lines[0]!)?.[1];
    expect(password).toBeDefined();
    expect(password!.length).toBeGreaterThanOrEqual(12);

    expect(await superadmins(t)).toEqual([{ id: expect.any(String), email: DEFAULT_ADMIN_EMAIL, role: 'superadmin' }]);
    const stored = await t.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
    expect(stored.password_hash).not.toContain(password!);
    const token = await t.login(DEFAULT_ADMIN_EMAIL, password!);
    const me = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(me.json()).toMatchObject({ email: DEFAULT_ADMIN_EMAIL, role: 'superadmin' });

    // A second start finds the user and neither creates another nor prints again.
    expect(await start(t)).toEqual([]);
    expect(await superadmins(t)).toHaveLength(1);
  });

  it('three processes starting together on the empty database create one superadmin between them', async () => {
    t = await createTestApp(kind);
    const printed = (await Promise.all([start(t), start(t), start(t)])).flat();
    expect(printed).toHaveLength(1);
    expect(await superadmins(t)).toEqual([{ id: expect.any(String), email: DEFAULT_ADMIN_EMAIL, role: 'superadmin' }]);
  });

  it('gives the default superadmin an e-mail the staff page accepts, so it can be edited there', async () => {
    // The shared schema refuses a dotless domain such as 'admin@localhost'.
    expect(emailField.safeParse('admin@localhost').success).toBe(false);
    expect(emailField.safeParse(DEFAULT_ADMIN_EMAIL).success).toBe(true);

    t = await createTestApp(kind);
    const password = /: (\S+)$/.exec((await start(t))[0]!)![1]!;
    const token = await t.login(DEFAULT_ADMIN_EMAIL, password);
    const [me] = await superadmins(t);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/users/${me!.id}`,
      token,
      payload: { name: 'Owner', email: DEFAULT_ADMIN_EMAIL, role: 'superadmin' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Owner', email: DEFAULT_ADMIN_EMAIL });
    const list = await t.inject({ method: 'GET', url: '/api/users', token });
    expect(list.json().items.map((u: { email: string }) => u.email)).toEqual([DEFAULT_ADMIN_EMAIL]);
  });

  it('with ADMIN_EMAIL and ADMIN_PASSWORD creates that superadmin, who signs in; the password is never printed', async () => {
    t = await createTestApp(kind);
    const env = { ADMIN_EMAIL: 'Owner@Example.com', ADMIN_PASSWORD: 'owner-secret-1' };
    const lines = await start(t, env);
    expect(lines).toEqual(['Superadmin Owner@Example.com created with the password from ADMIN_PASSWORD.']);
    expect(await superadmins(t)).toEqual([{ id: expect.any(String), email: 'owner@example.com', role: 'superadmin' }]);
    const token = await t.login('owner@example.com', 'owner-secret-1');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).json().role).toBe('superadmin');
    const [row] = await t.auditRows('user.create');
    expect(row).toMatchObject({ actor_id: null, after: { role: 'superadmin' } });

    expect(await start(t, env)).toEqual([]);
    expect(await start(t, { ADMIN_EMAIL: 'someone.else@example.com', ADMIN_PASSWORD: 'other-secret' })).toEqual([]);
    expect(await superadmins(t)).toHaveLength(1);
  });

  it('with ADMIN_EMAIL alone generates the password and prints it once', async () => {
    t = await createTestApp(kind);
    const lines = await start(t, { ADMIN_EMAIL: 'boss@example.com' });
    expect(lines).toHaveLength(1);
    const password = /Password \(shown once\): (\S+)$/.exec(lines[0]!)?.[1];
    expect(password).toBeDefined();
    await t.login('boss@example.com', password!);
    expect(await start(t, { ADMIN_EMAIL: 'boss@example.com' })).toEqual([]);
  });
});

/** `npm run admin -- create-superadmin <email>` (decisions.md D8). */
describe.each(dbKinds())('create-superadmin from the command line on %s', (kind: DbKind) => {
  let t: TestApp;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-cli-')) : undefined;
    t = await createTestApp(kind, {}, dir ? { dataDir: dir } : {});
  });
  afterAll(async () => {
    await t.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a superadmin with the password from ADMIN_PASSWORD, audited, who signs in', async () => {
    const run = await runAdminCommand(t, ['create-superadmin', 'Second.Boss@Example.com'], {
      ADMIN_PASSWORD: 'cli-secret-12',
    });
    t = run.t;
    expect(run.code).toBe(0);
    expect(run.output).toBe('Superadmin second.boss@example.com created with the password from ADMIN_PASSWORD');
    const token = await t.login('second.boss@example.com', 'cli-secret-12');
    expect((await t.inject({ method: 'GET', url: '/api/auth/me', token })).json().role).toBe('superadmin');
    const [row] = (await t.auditRows('user.create')).slice(-1);
    expect(row).toMatchObject({ actor_id: null, after: { email: 'second.boss@example.com', role: 'superadmin' } });
  });

  it('prints a generated password when ADMIN_PASSWORD is not set, and that password signs in', async () => {
    const run = await runAdminCommand(t, ['create-superadmin', 'third.boss@example.com']);
    t = run.t;
    expect(run.code).toBe(0);
    const password = /password: (\S+)$/.exec(run.output)?.[1];
    expect(password).toBeDefined();
    await t.login('third.boss@example.com', password!);
  });

  it('refuses an e-mail that already has a user, and one the staff page could not edit', async () => {
    const taken = await runAdminCommand(t, ['create-superadmin', 'THIRD.boss@example.com']);
    t = taken.t;
    expect(taken.code).toBe(1);
    expect(taken.output).toContain('already exists (role superadmin)');

    const dotless = await runAdminCommand(t, ['create-superadmin', 'admin@localhost']);
    t = dotless.t;
    expect(dotless.code).toBe(2);
    expect(dotless.output).toContain('create-superadmin needs an e-mail address');
    const emails = (await superadmins(t)).map((u) => u.email).sort();
    expect(emails).toEqual(['second.boss@example.com', 'third.boss@example.com']);
  });
});

/** The embedded database admits one process: the command line keeps out while a server holds DATA_DIR. */
describe('the command line beside a running server on the embedded database', () => {
  let dir: string;
  const env = () => ({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const run = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(args, env(), (line) => void lines.push(line));
    return { code, output: lines.join('\n') };
  };
  const pidFile = () => path.join(dir, SERVER_PID_FILE);

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-pid-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses to open the database while the server process named in server.pid runs, without touching it', async () => {
    const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
    await once(server, 'spawn');
    try {
      fs.writeFileSync(pidFile(), `${server.pid}\n`);
      const refused = await run(['clear-ip-whitelist']);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(`The server (process ${server.pid}) has the embedded database`);
      expect(fs.existsSync(path.join(dir, 'pgdata'))).toBe(false);
    } finally {
      server.kill();
    }
    await once(server, 'exit');

    // The server is gone and its file stale (as after a crash): the command runs.
    const ok = await run(['clear-ip-whitelist']);
    expect(ok.code, ok.output).toBe(0);
    expect(ok.output).toContain('IP whitelist cleared (0 entries removed)');
  });

  it('is marked by the server at start and unmarked at shutdown; PostgreSQL is never marked', async () => {
    const release = markEmbeddedDbInUse(testConfig(env()));
    expect(fs.readFileSync(pidFile(), 'utf8').trim()).toBe(String(process.pid));
    expect(embeddedDbHolder(dir)).toBe(process.pid);
    expect((await run(['reset-password', 'nobody@example.com'])).code).toBe(1);
    release();
    expect(fs.existsSync(pidFile())).toBe(false);
    expect(embeddedDbHolder(dir)).toBeNull();
    const ok = await run(['reset-password', 'nobody@example.com']);
    expect(ok.output).toBe('No user with e-mail nobody@example.com.');

    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'brokerage-pid-pg-'));
    try {
      const noop = markEmbeddedDbInUse(
        testConfig({ DATA_DIR: other, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }),
      );
      noop();
      expect(fs.readdirSync(other)).toEqual([]);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('ignores a server.pid whose process has ended', () => {
    const ended = spawnSync(process.execPath, ['-e', '']);
    fs.writeFileSync(pidFile(), `${ended.pid}\n`);
    expect(embeddedDbHolder(dir)).toBeNull();
    fs.writeFileSync(pidFile(), 'not a pid\n');
    expect(embeddedDbHolder(dir)).toBeNull();
    fs.rmSync(pidFile());
  });
});
