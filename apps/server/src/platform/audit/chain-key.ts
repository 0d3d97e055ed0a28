import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadOrCreateKeyFile } from '../crypto/vault.js';

/**
 * The secret of the audit chain (issue 20 §7): the HMAC key each row's hash is made with. It never lives in the
 * database — from the configuration (AUDIT_CHAIN_KEY, base64, 32 bytes) or, when that is unset, the key file
 * DATA_DIR/keys/audit.key, created with mode 0600 on first use like the card key. So whoever can edit the database
 * but not read the server's configuration or data directory cannot make a row the chain accepts.
 */
export class AuditChainKey {
  #key: Buffer | null = null;

  constructor(private readonly options: { key?: string | undefined; dataDir: string }) {}

  get keyFile(): string {
    return path.join(this.options.dataDir, 'keys', 'audit.key');
  }

  /** Where the key comes from, for messages. */
  get source(): string {
    return this.options.key ? 'AUDIT_CHAIN_KEY' : this.keyFile;
  }

  /**
   * The key; the key file is created when there is none. Only stamping calls it, and only while no row is keyed yet
   * (stamping.ts): past that a missing key is an error, never a new key.
   */
  get(): Buffer {
    this.#key ??= this.options.key
      ? Buffer.from(this.options.key, 'base64')
      : loadOrCreateKeyFile(this.keyFile, 'the audit chain key');
    return this.#key;
  }

  /** The key if there is one, never creating the file (verification must not invent a key). */
  existing(): Buffer | null {
    if (this.#key || this.options.key || fs.existsSync(this.keyFile)) return this.get();
    return null;
  }
}

/**
 * Stamping refused: the log has keyed rows but this process has no key (issue 20 §7, review). Making a new key file
 * here would fork the chain, so the transaction fails instead, and says what to put back.
 */
export class AuditChainKeyMissing extends Error {
  constructor(key: AuditChainKey, keyedAfter: string) {
    super(
      `The audit chain key is missing: the audit log has rows stamped with it after chain position ${keyedAfter}, ` +
        `but AUDIT_CHAIN_KEY is unset and ${key.keyFile} does not exist. A new key would fork the chain, so audited ` +
        'writes are refused until the key is put back (restore the key file from a backup, or set AUDIT_CHAIN_KEY).',
    );
    this.name = 'AuditChainKeyMissing';
  }
}

/** A short public name of a key, written with each checkpoint, so a check with another key is told apart. */
export function keyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('brokerage-audit-chain-key-id').digest('hex').slice(0, 16);
}

/**
 * The process's key. The database driver stamps audit rows when their transaction commits (platform/audit/
 * stamping.ts), below any service that could hand it a key, so the key is set once per process: by main.ts before the
 * first-start seed, by the command line, and by buildApp (tests).
 */
let current: AuditChainKey | null = null;

export function useAuditChainKey(config: { AUDIT_CHAIN_KEY?: string | undefined; dataDir: string }): AuditChainKey {
  current = new AuditChainKey({ key: config.AUDIT_CHAIN_KEY, dataDir: config.dataDir });
  return current;
}

export function currentAuditChainKey(): AuditChainKey | null {
  return current;
}

/** Sets (or clears) the process's key: the command line sets its own for its run and puts the previous one back. */
export function setCurrentAuditChainKey(key: AuditChainKey | null): void {
  current = key;
}
