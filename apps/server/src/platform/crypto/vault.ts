import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Secrets at rest, one vault per server (AppDeps.vault): card numbers (decisions.md D7), affiliates' postback signing
 * secrets (D17) and staff TOTP secrets, each bound to its purpose. Card numbers at rest (D7): AES-256-GCM with a 32-byte key that never lives in the database — from the
 * configuration (CARD_ENCRYPTION_KEY, base64) or, when that is unset, from the key file DATA_DIR/keys/card.key,
 * created with mode 0600 on first use. The key is read lazily, so a server that never handles a card needs none.
 *
 * Stored form: 'v1:' + base64(iv[12] ‖ tag[16] ‖ ciphertext). The version prefix leaves room for a key rotation.
 */

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Binds a ciphertext to its purpose: a blob made for something else does not decrypt as a card number. */
const AAD = Buffer.from('brokerage:card-number:v1');
const secretAad = (purpose: string) => Buffer.from(`brokerage:secret:${purpose}:v1`);

export interface VaultOptions {
  /** CARD_ENCRYPTION_KEY: 32 bytes, base64. */
  key?: string | undefined;
  /** The data directory; the key file is keys/card.key under it. */
  dataDir: string;
}

function decodeKey(text: string, where: string, what = 'the card encryption key'): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${where}: ${what} must be ${KEY_BYTES} bytes in base64`);
  return key;
}

/**
 * The text of a key file (mode 0600 in a 0700 folder), created with `make()` when there is none. Creation is atomic
 * (written to a temporary file, then hard-linked into place), so two processes starting together end up with the same
 * key: the one that links first. Every key file of the server is made here (the card and audit keys, the price log's).
 */
export function readOrCreateKeyFile(file: string, make: () => string): string {
  if (!fs.existsSync(file)) {
    const dir = path.dirname(file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(tmp, make(), { mode: 0o600, flag: 'wx' });
    fs.chmodSync(tmp, 0o600);
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return fs.readFileSync(file, 'utf8');
}

/** Reads the key file, or creates it with a new random 32-byte key (base64). */
export function loadOrCreateKeyFile(file: string, what?: string): Buffer {
  const text = readOrCreateKeyFile(file, () => `${randomBytes(KEY_BYTES).toString('base64')}\n`);
  return decodeKey(text, file, what);
}

export class SecretsVault {
  #key: Buffer | null = null;

  constructor(private readonly options: VaultOptions) {}

  /** Where the key file is (used only when no key is configured). */
  get keyFile(): string {
    return path.join(this.options.dataDir, 'keys', 'card.key');
  }

  private key(): Buffer {
    this.#key ??= this.options.key
      ? decodeKey(this.options.key, 'CARD_ENCRYPTION_KEY')
      : loadOrCreateKeyFile(this.keyFile);
    return this.#key;
  }

  encryptCard(cardNumber: string): string {
    return this.seal(cardNumber, AAD);
  }

  /** Throws when the blob was not made with this key (or was altered): GCM authenticates it. */
  decryptCard(stored: string): string {
    return this.open(stored, AAD);
  }

  /**
   * Any other secret at rest under the same key (D17: an affiliate's postback signing secret). `purpose` is bound into
   * the ciphertext, so a blob made for one purpose (or a card number) never decrypts as another.
   */
  encryptSecret(plain: string, purpose: string): string {
    return this.seal(plain, secretAad(purpose));
  }

  decryptSecret(stored: string, purpose: string): string {
    return this.open(stored, secretAad(purpose));
  }

  private seal(plain: string, aad: Buffer): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(), iv);
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  private open(stored: string, aad: Buffer): string {
    const [version, payload] = stored.split(':');
    if (version !== VERSION || !payload) throw new Error('unknown card ciphertext format');
    const raw = Buffer.from(payload, 'base64');
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('card ciphertext too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key(), raw.subarray(0, IV_BYTES));
    decipher.setAAD(aad);
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** The vault of a running server: the configured key, else the key file in its data directory. */
export function vaultFromConfig(config: { CARD_ENCRYPTION_KEY?: string | undefined; dataDir: string }): SecretsVault {
  return new SecretsVault({ key: config.CARD_ENCRYPTION_KEY, dataDir: config.dataDir });
}
