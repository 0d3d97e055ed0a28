import { randomInt } from 'node:crypto';
import { generatePassword } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Config } from './config.js';
import type { Db } from './platform/db/index.js';
import { hashPassword } from './platform/auth/passwords.js';
import { writeAudit } from './platform/audit/audit.js';
import { CLI_ACTOR } from './platform/auth/actor.js';
import { demoAccounts, seedDemoData } from './seed/demo.js';
import { cardVaultFromConfig } from './platform/crypto/card-vault.js';

export function randomPassword(): string {
  return generatePassword((n) => randomInt(n), 16);
}

export async function createSuperadmin(db: Db, email: string, password: string, name = 'Superadmin'): Promise<string> {
  const hash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({
        email: email.toLowerCase(),
        name,
        role: 'superadmin',
        department: null,
        phone: null,
        password_hash: hash,
        deleted_at: null,
        last_login_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, CLI_ACTOR, {
      action: 'user.create',
      entityType: 'user',
      entityId: row.id,
      after: { email, role: 'superadmin' },
    });
    return row.id;
  });
}

/**
 * First start on an empty database (decisions.md D8): create the superadmin from ADMIN_EMAIL / ADMIN_PASSWORD, or
 * generate a password and print it once; with DEMO_DATA=1 also seed the demo data set and print its logins.
 * `print` writes to the console, never to the log files.
 */
export async function bootstrap(db: Db, config: Config, print: (line: string) => void): Promise<void> {
  const { n } = await db
    .selectFrom('users')
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  if (Number(n) > 0) return;

  if (config.DEMO_DATA) {
    await seedDemoData(db, cardVaultFromConfig(config), { durations: config.TRADE_DURATIONS });
    print('Demo data set created. Demo logins (password for all shown):');
    for (const a of demoAccounts()) print(`  ${a.role.padEnd(20)} ${a.email.padEnd(34)} ${a.password}`);
  }
  if (config.ADMIN_EMAIL) {
    const password = config.ADMIN_PASSWORD ?? randomPassword();
    await createSuperadmin(db, config.ADMIN_EMAIL, password);
    if (config.ADMIN_PASSWORD) print(`Superadmin ${config.ADMIN_EMAIL} created with the password from ADMIN_PASSWORD.`);
    else print(`Superadmin ${config.ADMIN_EMAIL} created. Password (shown once): ${password}`);
  } else if (!config.DEMO_DATA) {
    const password = randomPassword();
    await createSuperadmin(db, 'admin@localhost', password);
    print(`Superadmin admin@localhost created. Password (shown once, change it): ${password}`);
  }
}
