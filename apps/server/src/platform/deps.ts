import type { Config } from '../config.js';
import type { EventBus } from './bus/index.js';
import type { WhitelistCache } from './access/whitelist.js';
import type { SessionPolicy } from './auth/sessions.js';
import type { Db } from './db/index.js';
import type { SecretsVault } from './crypto/vault.js';
import type { Mailer } from '../modules/mail/mailer.js';

/** What every module's service receives: the database, the settings, and the shared caches. */
export interface AppDeps {
  db: Db;
  config: Config;
  whitelist: WhitelistCache;
  sessionPolicy: SessionPolicy;
  version: string;
  /** Live updates (D11): published after commit, to the sockets of this and every other process. */
  bus: EventBus;
  /** Secrets at rest (card numbers, signing and TOTP secrets): built once per server from its key. */
  vault: SecretsVault;
  /** Mail (issue 22): `mail.enqueue(trx, …)` in the transaction of the action that causes the message. */
  mail: Mailer;
}
