import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { SERVER_PID_FILE } from '../src/bootstrap.js';
import { createTestApp, dbKinds, runAdminCommand, type TestApp } from './helpers.js';
import { fund, registerClient, type TestClient } from './trading-helpers.js';

const VISA = '4111111111111111';
const now = new Date();
const EXPIRY = `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String((now.getUTCFullYear() + 2) % 100).padStart(2, '0')}`;

/** What an operator would compare after a restore: every balance, the ledger, the audit chain, clients, requests. */
async function snapshot(t: TestApp) {
  const [accounts, ledger, audit, clients, requests, users] = await Promise.all([
    t.db.selectFrom('trading_accounts').select(['id', 'balance_cents', 'status']).orderBy('id').execute(),
    t.db.selectFrom('ledger_entries').select(['id', 'account_id', 'amount_cents', 'kind']).orderBy('id').execute(),
    t.db.selectFrom('audit_log').select(['id', 'seq', 'action', 'hash']).orderBy('id').execute(),
    t.db.selectFrom('clients').select(['id', 'name', 'email']).orderBy('id').execute(),
    t.db.selectFrom('withdraw_requests').select(['id', 'status', 'amount_cents']).orderBy('id').execute(),
    t.db.selectFrom('users').select(['id', 'email']).orderBy('email').execute(),
  ]);
  return { accounts, ledger, audit, clients, requests, users };
}

/** Issue 13 item 6: backup → more writes → restore gives the backed-up state, reconciled and with its audit chain. */
describe.each(dbKinds())('backup and restore on %s', (kind) => {
  if (kind === 'postgres') {
    it('sends PostgreSQL operators to pg_dump / pg_restore instead', async () => {
      const t = await createTestApp(kind);
      try {
        const lines: string[] = [];
        expect(await runCli(['backup', '/tmp/never-written'], t.cliEnv!, (l) => void lines.push(l))).toBe(2);
        expect(lines.join('\n')).toContain('pg_dump');
        expect(fs.existsSync('/tmp/never-written')).toBe(false);
      } finally {
        await t.close();
      }
    });
    return;
  }

  let dataDir: string;
  let backupFile: string;
  let t: TestApp;
  let staff: { token: string };
  let alice: TestClient;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-data-'));
    backupFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'backup-file-')), 'brokerage.backup');
    // No AUDIT_CHAIN_KEY: the audit chain's key lives in DATA_DIR/keys/audit.key, as the card key does (issue 20 §7).
    t = await createTestApp(kind, { DATA_DIR: dataDir, AUDIT_CHAIN_KEY: '' }, { dataDir });
    staff = await t.userWithToken('superadmin');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(path.dirname(backupFile), { recursive: true, force: true });
  });

  const balanceChange = (accountId: number, amount: number) =>
    t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${accountId}/balance`,
      token: staff.token,
      payload: { action: 'add', amount, reason: 'backup test' },
    });

  it('restores exactly the state that was backed up, card key, audit key and audit checkpoints included', async () => {
    t.app.auditCheckpoints.start(); // as main.ts does: checkpoints of the chain's head outside the database
    alice = await registerClient(t, 'Alice Backup');
    await fund(t, alice.accountId, 100_000);
    expect((await balanceChange(alice.accountId, 250)).statusCode).toBe(200);
    const filed = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: alice.token,
      payload: { amount: 100, card_number: VISA, card_holder: 'Alice Backup', card_expiry: EXPIRY },
    });
    expect(filed.statusCode, filed.body).toBe(201);
    const requestId = (filed.json() as { id: number }).id;
    const backedUp = await snapshot(t);
    expect(fs.existsSync(path.join(dataDir, 'keys', 'card.key'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'keys', 'audit.key'))).toBe(true);

    const backup = await runAdminCommand(t, ['backup', backupFile]);
    t = backup.t;
    t.app.auditCheckpoints.start();
    expect(backup.code, backup.output).toBe(0);
    expect(backup.output).toContain('card key');
    expect(backup.output).toContain('It includes the audit chain key file and the audit checkpoints.');
    expect(fs.statSync(backupFile).mode & 0o077).toBe(0); // it holds the card key: owner only

    // More writes after the backup: a new client, more money, a rejected request.
    const bob = await registerClient(t, 'Bob After');
    await fund(t, bob.accountId, 5_000);
    expect((await balanceChange(alice.accountId, 40)).statusCode).toBe(200);
    const rejected = await t.inject({
      method: 'PUT',
      url: `/api/withdraw-requests/${requestId}/reject`,
      token: staff.token,
      payload: { reason: 'after the backup' },
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(await snapshot(t)).not.toEqual(backedUp);
    // A checkpoint of the newer chain: without the backup's own checkpoints the restored chain would look cut short.
    expect((await t.app.auditCheckpoints.writeNow())!.seq).toBeGreaterThan(backedUp.audit.length);

    // The disk is lost with its key; the backup comes back (with the server stopped).
    await t.close();
    fs.rmSync(path.join(dataDir, 'keys'), { recursive: true, force: true });
    const lines: string[] = [];
    const out = (l: string) => void lines.push(l);
    expect(await runCli(['restore', backupFile], t.cliEnv!, out), lines.join('\n')).toBe(0);
    expect(lines.join('\n')).toContain('kept in');
    expect(lines.join('\n')).toContain('The audit chain key file was restored with it.');
    expect(lines.join('\n')).toContain('The audit checkpoints of the backup were restored with it.');
    const aside = lines.join('\n').match(/kept in (\S+?)\.?$/m)![1]!;
    expect(fs.existsSync(path.join(aside, 'audit-checkpoints.log.before-restore'))).toBe(true);
    expect(await runCli(['reconcile-ledger'], t.cliEnv!, out), lines.join('\n')).toBe(0);
    expect(await runCli(['verify-audit'], t.cliEnv!, out), lines.join('\n')).toBe(0);
    expect(lines.join('\n')).toContain(`verified ${backedUp.audit.length} rows`);
    expect(lines.join('\n')).toContain(`the newest: chain position ${backedUp.audit.length}`);
    t = await t.reopen();

    expect(await snapshot(t)).toEqual(backedUp);
    // The restored card key opens the card stored before the backup.
    const revealed = await t.inject({
      method: 'POST',
      url: `/api/withdraw-requests/${requestId}/reveal-card`,
      token: staff.token,
    });
    expect(revealed.statusCode, revealed.body).toBe(200);
    expect(revealed.body.replace(/\D/g, '')).toContain(VISA);
  }, 120_000); // three stops and starts of the embedded database

  it('refuses while a server holds the data directory, and refuses a file that is not a whole backup', async () => {
    await t.close();
    const pidFile = path.join(dataDir, SERVER_PID_FILE);
    const lines: string[] = [];
    const out = (l: string) => void lines.push(l);
    try {
      fs.writeFileSync(pidFile, `${process.pid}\n`); // a live process holds it
      for (const command of ['backup', 'restore']) {
        lines.length = 0;
        expect(await runCli([command, backupFile], t.cliEnv!, out)).toBe(1);
        expect(lines.join('\n')).toContain('Stop it first');
      }
    } finally {
      fs.rmSync(pidFile, { force: true });
    }

    const before = fs.readdirSync(path.join(dataDir, 'pgdata')).sort();
    const truncated = `${backupFile}.cut`;
    const whole = fs.readFileSync(backupFile);
    fs.writeFileSync(truncated, whole.subarray(0, whole.length - 100));
    lines.length = 0;
    expect(await runCli(['restore', truncated], t.cliEnv!, out)).toBe(1);
    expect(lines.join('\n')).toContain('incomplete');
    fs.writeFileSync(truncated, 'hello');
    lines.length = 0;
    expect(await runCli(['restore', truncated], t.cliEnv!, out)).toBe(1);
    expect(lines.join('\n')).toContain('is not a backup');
    expect(fs.readdirSync(path.join(dataDir, 'pgdata')).sort()).toEqual(before);

    t = await t.reopen();
    const me = await t.inject({ method: 'GET', url: '/api/audit/verify', token: staff.token });
    expect(me.statusCode).toBe(200);
    expect(me.json().broken).toBeNull();
  });

  it('keeps a copy of the audit checkpoints it replaces, also when there was no database to move aside', async () => {
    // The head moves past the backup and is anchored: these checkpoints are the only record of the newer rows.
    await registerClient(t, 'Carol Anchored');
    expect(await t.app.auditCheckpoints.writeNow()).not.toBeNull();
    const file = path.join(dataDir, 'audit-checkpoints.log');
    const anchors = fs.readFileSync(file, 'utf8');
    await t.close();
    // The database folder is lost (a disk replaced); the data directory with its checkpoints is still there.
    fs.rmSync(path.join(dataDir, 'pgdata'), { recursive: true, force: true });
    const lines: string[] = [];
    expect(await runCli(['restore', backupFile], t.cliEnv!, (l) => void lines.push(l)), lines.join('\n')).toBe(0);
    expect(lines.join('\n')).not.toContain('The database that was there');
    const kept = fs.readdirSync(dataDir).filter((f) => f.startsWith('audit-checkpoints.log.before-restore'));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(dataDir, kept[0]!), 'utf8')).toBe(anchors);
    expect(fs.statSync(path.join(dataDir, kept[0]!)).mode & 0o077).toBe(0);
    expect(lines.join('\n')).toContain(
      `The audit checkpoints that were there are kept in ${path.join(dataDir, kept[0]!)}.`,
    );
    // The file in place is the backup's own, which the restored chain reaches.
    expect(fs.readFileSync(file, 'utf8')).not.toBe(anchors);
    lines.length = 0;
    expect(await runCli(['verify-audit'], t.cliEnv!, (l) => void lines.push(l)), lines.join('\n')).toBe(0);
    t = await t.reopen();
  }, 120_000);
});
