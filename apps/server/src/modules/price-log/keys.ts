import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { readOrCreateKeyFile } from '../../platform/crypto/vault.js';

/**
 * The price log's signing key (decisions.md D27): Ed25519, from the configuration (PRICE_LOG_KEY, a PKCS#8 PEM private
 * key) or, when that is unset, the key file DATA_DIR/keys/price-log-ed25519.pem, created with mode 0600 on first use
 * like the card and audit chain keys (platform/crypto/vault.ts). Several processes over one database must share it
 * (PRICE_LOG_KEY, or one DATA_DIR): a head signed by another key would not verify under the published one.
 * Never logged: only the public key and its id leave this module.
 */

/** Parses a PKCS#8 PEM Ed25519 private key; throws (without the key's text) when it is not one. */
export function parseEd25519PrivateKey(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem.replace(/\\n/g, '\n'), format: 'pem' });
  } catch {
    throw new Error(`${where}: not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${where}: the price log key must be an Ed25519 key`);
  return key;
}

/** Reads the key file, or creates it with a new key (atomically, as every key file: readOrCreateKeyFile). */
function loadOrCreatePemKeyFile(file: string): KeyObject {
  const pem = readOrCreateKeyFile(file, () =>
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  );
  return parseEd25519PrivateKey(pem, file);
}

export interface PriceLogPublicKey {
  algorithm: 'Ed25519';
  /** The 32 raw public key bytes. */
  raw: Buffer;
  /** The first 16 hex digits of SHA-256 of `raw`. */
  keyId: string;
  /** SubjectPublicKeyInfo PEM. */
  pem: string;
}

/** The fingerprint D27 names a key by: the first 16 hex digits of SHA-256 of the raw 32-byte public key. */
export function priceLogKeyId(raw: Uint8Array): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

export function describePublicKey(publicKey: KeyObject): PriceLogPublicKey {
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Buffer.from(jwk.x!, 'base64url');
  return {
    algorithm: 'Ed25519',
    raw,
    keyId: priceLogKeyId(raw),
    pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export class PriceLogSigner {
  #private: KeyObject | null = null;
  #public: PriceLogPublicKey | null = null;

  constructor(private readonly options: { key?: string | undefined; dataDir: string }) {}

  get keyFile(): string {
    return path.join(this.options.dataDir, 'keys', 'price-log-ed25519.pem');
  }

  private privateKey(): KeyObject {
    this.#private ??= this.options.key
      ? parseEd25519PrivateKey(this.options.key, 'PRICE_LOG_KEY')
      : loadOrCreatePemKeyFile(this.keyFile);
    return this.#private;
  }

  /** The public half (the key file is created when there is none). */
  publicKey(): PriceLogPublicKey {
    this.#public ??= describePublicKey(createPublicKey(this.privateKey()));
    return this.#public;
  }

  get keyId(): string {
    return this.publicKey().keyId;
  }

  /** Ed25519 (pure, RFC 8032) signature of `data`: 64 bytes. */
  sign(data: Uint8Array): Buffer {
    return sign(null, data, this.privateKey());
  }
}

export function priceLogSignerFromConfig(config: {
  PRICE_LOG_KEY?: string | undefined;
  dataDir: string;
}): PriceLogSigner {
  return new PriceLogSigner({ key: config.PRICE_LOG_KEY, dataDir: config.dataDir });
}
