import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { SecretsVault, vaultFromConfig, loadOrCreateKeyFile } from '../src/platform/crypto/vault.js';
import { PriceLogSigner } from '../src/modules/price-log/keys.js';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { fund, registerClient } from './trading-helpers.js';

const VISA = '4111111111111111';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'card-vault-'));
}

/** decisions.md D7: card numbers at rest are AES-256-GCM ciphertext; the key never lives in the database. */
describe('the card vault', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const dir = () => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };

  it('encrypts with a fresh IV each time and decrypts with the configured key', () => {
    const vault = new SecretsVault({ key: randomBytes(32).toString('base64'), dataDir: dir() });
    const a = vault.encryptCard(VISA);
    const b = vault.encryptCard(VISA);
    expect(a).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(VISA);
    expect(Buffer.from(a.slice(3), 'base64').toString('latin1')).not.toContain(VISA);
    expect(vault.decryptCard(a)).toBe(VISA);
    expect(vault.decryptCard(b)).toBe(VISA);
  });

  it('refuses a ciphertext that was altered, made with another key, or is not one', () => {
    const vault = new SecretsVault({ key: randomBytes(32).toString('base64'), dataDir: dir() });
    const blob = vault.encryptCard(VISA);
    const raw = Buffer.from(blob.slice(3), 'base64');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    expect(() => vault.decryptCard(`v1:${raw.toString('base64')}`)).toThrow();
    const other = new SecretsVault({ key: randomBytes(32).toString('base64'), dataDir: dir() });
    expect(() => other.decryptCard(blob)).toThrow();
    expect(() => vault.decryptCard(VISA)).toThrow(/format/);
    expect(() => vault.decryptCard('v1:AAAA')).toThrow(/short/);
  });

  it('without a configured key, creates DATA_DIR/keys/card.key with mode 0600 on first use and reuses it', () => {
    const dataDir = dir();
    const vault = new SecretsVault({ dataDir });
    const file = path.join(dataDir, 'keys', 'card.key');
    expect(vault.keyFile).toBe(file);
    expect(fs.existsSync(file)).toBe(false); // nothing until a card is handled
    const blob = vault.encryptCard(VISA);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o077).toBe(0);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    // A restart (a new vault over the same directory) opens what the first one wrote; no temporary files remain.
    expect(new SecretsVault({ dataDir }).decryptCard(blob)).toBe(VISA);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['card.key']);
    // Creating over an existing file keeps its key: every creator ends with the same one.
    const raced = dir();
    const keys = [0, 1, 2].map(() => loadOrCreateKeyFile(path.join(raced, 'keys', 'card.key')).toString('hex'));
    expect(new Set(keys).size).toBe(1);
  });

  it('makes the price log key file the same way: 0600, reused after a restart, one key for every creator (D27)', () => {
    const dataDir = dir();
    const signer = new PriceLogSigner({ dataDir });
    const file = path.join(dataDir, 'keys', 'price-log-ed25519.pem');
    expect(signer.keyFile).toBe(file);
    expect(fs.existsSync(file)).toBe(false);
    const keyId = signer.keyId;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toContain('BEGIN PRIVATE KEY');
    expect(new PriceLogSigner({ dataDir }).keyId).toBe(keyId);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['price-log-ed25519.pem']);
  });

  it('refuses a key file or a configured key that is not 32 bytes', () => {
    const dataDir = dir();
    fs.mkdirSync(path.join(dataDir, 'keys'));
    fs.writeFileSync(path.join(dataDir, 'keys', 'card.key'), 'c2hvcnQ=');
    expect(() => new SecretsVault({ dataDir }).encryptCard(VISA)).toThrow(/32 bytes/);
    expect(() => loadConfig({ CARD_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/CARD_ENCRYPTION_KEY/);
    expect(() => loadConfig({ CARD_ENCRYPTION_KEY: 'not base64 at all!' })).toThrow(/CARD_ENCRYPTION_KEY/);
    const key = randomBytes(32).toString('base64');
    const config = loadConfig({ CARD_ENCRYPTION_KEY: key, DATA_DIR: dataDir });
    expect(config.CARD_ENCRYPTION_KEY).toBe(key);
    expect(loadConfig({ CARD_ENCRYPTION_KEY: '' }).CARD_ENCRYPTION_KEY).toBeUndefined();
    // The configured key wins over a key file.
    const fromConfig = vaultFromConfig(config);
    expect(new SecretsVault({ key, dataDir: '/nonexistent' }).decryptCard(fromConfig.encryptCard(VISA))).toBe(VISA);
  });
});

describe.each(dbKinds())('card keys of a running server on %s', (kind) => {
  let t: TestApp;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir();
    t = await createTestApp(kind, { DATA_DIR: dataDir, LOGIN_RATE_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the key in a 0600 file of the data directory, never in the database', async () => {
    const file = path.join(dataDir, 'keys', 'card.key');
    expect(fs.existsSync(file)).toBe(false);
    const client = await registerClient(t, 'Key Holder');
    await fund(t, client.accountId, 10_000);
    const { year } = monthIn('Europe/Kyiv', new Date());
    const res = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: client.token,
      payload: {
        amount: 20,
        card_number: VISA,
        card_holder: 'KEY HOLDER',
        card_expiry: `12/${String((year + 3) % 100).padStart(2, '0')}`,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const keyText = fs.readFileSync(file, 'utf8').trim();
    const key = Buffer.from(keyText, 'base64');

    const row = await t.db.selectFrom('withdraw_requests').select('card_number_enc').executeTakeFirstOrThrow();
    expect(new SecretsVault({ dataDir }).decryptCard(row.card_number_enc)).toBe(VISA);

    // Neither the key (base64 or hex) nor the clear number is anywhere in the database.
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(
      t.db,
    );
    expect(tables.rows.map((r) => r.table_name)).toContain('withdraw_requests');
    for (const { table_name } of tables.rows) {
      const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(t.db);
      const text = rows.rows.map((r) => r.row).join('\n');
      expect(text.includes(keyText), `key in ${table_name}`).toBe(false);
      expect(text.includes(key.toString('hex')), `hex key in ${table_name}`).toBe(false);
      expect(text.includes(VISA), `card number in ${table_name}`).toBe(false);
    }
  });
});
