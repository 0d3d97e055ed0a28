import fs from 'node:fs';
import { sql } from 'kysely';
import { emailField } from '@brokerage/shared';
import { createSuperadmin, embeddedDbHolder, randomPassword, SERVER_PID_FILE } from './bootstrap.js';
import { loadConfig } from './config.js';
import { migrate, openDb } from './platform/db/index.js';
import { CLI_ACTOR } from './platform/auth/actor.js';
import { hashPassword } from './platform/auth/passwords.js';
import { writeAudit } from './platform/audit/audit.js';
import { clearWhitelist } from './modules/access-list/service.js';
import { reconcile } from './modules/ledger/service.js';
import { resetTwoFactor } from './modules/auth/two-factor.js';
import { Mailer } from './modules/mail/mailer.js';
import { pino } from 'pino';
import { liftSignInDelays } from './platform/auth/sign-in-delays.js';
import { CHAIN_BREAK_TEXT, verifyAuditChain, type ChainStatus } from './platform/audit/chain.js';
import {
  AuditChainKey,
  currentAuditChainKey,
  keyFingerprint,
  setCurrentAuditChainKey,
} from './platform/audit/chain-key.js';
import { checkpointFile, readCheckpoints } from './platform/audit/checkpoints.js';
import { restoreBackup, writeBackup } from './platform/db/backup.js';
import { priceLogSignerFromConfig } from './modules/price-log/keys.js';
import { verifyLogReport, verifyPriceLog } from './modules/price-log/verify-log.js';

const USAGE = `Usage: npm run admin -- <command>
  create-superadmin <email>   create a superadmin (password from ADMIN_PASSWORD, or generated and printed)
  reset-password <email>      set a new password (ADMIN_PASSWORD or generated), end that user's sessions
  clear-ip-whitelist          empty the staff IP whitelist, so staff can sign in from any address
  reset-2fa <email>           remove a staff member's two-factor enrollment (a lost device), end their sessions
  reconcile-ledger            check that every trading balance equals the sum of its ledger entries (exit 1 if not)
  verify-audit                walk the tamper-evident audit chain with its key and checkpoints. Exit 0 intact;
                              1 tampered (names the first row that does not match, or the rows missing after the
                              chain's end); 3 chain key missing; 4 chain key does not match; 5 consistent but not
                              anchored (no checkpoint file)
  verify-price-log [--from ISO --to ISO]
                              recompute the price log (decisions.md D27) from the stored ticks: every leaf, every
                              stored subtree hash, every signed head's root and signature; names a changed tick by
                              its leaf index and the trades whose proofs used it. Audited. Exit 0 intact, 1 not
  backup <file>               write a consistent copy of the embedded database (with its card and audit keys and
                              the audit checkpoints) to <file>
  restore <file>              replace the embedded database with a backup (the current one is moved aside)
Uses the same DATA_DIR / DATABASE_URL as the server.`;

/**
 * Exit codes of verify-audit (issue 20 §7): only 1 reports tampering; 3 and 4 say the check could not be made with
 * the key at hand, 5 that the chain is consistent but has no checkpoint outside the database to be held against.
 */
export const VERIFY_AUDIT_EXIT = {
  intact: 0,
  broken: 1,
  key_missing: 3,
  key_mismatch: 4,
  not_anchored: 5,
} as const satisfies Record<ChainStatus, number>;

/** The mail of a command: queued in the outbox like the server's, delivered by the server's mail worker. */
function cliMailer(config: ReturnType<typeof loadConfig>): Mailer {
  return new Mailer(config, pino({ level: 'error' }));
}

/** Runs one admin command; returns the process exit code. Exported for the tests. */
export async function runCli(args: string[], env = process.env, out = console.log): Promise<number> {
  const [command, arg] = args;
  if (
    !command ||
    ![
      'create-superadmin',
      'reset-password',
      'reset-2fa',
      'clear-ip-whitelist',
      'reconcile-ledger',
      // issue 13: the audit chain and backups
      'verify-audit',
      // issue 30 §4: the price log
      'verify-price-log',
      'backup',
      'restore',
    ].includes(command)
  ) {
    out(USAGE);
    return 2;
  }
  const config = loadConfig(env);
  const chainKey = new AuditChainKey({ key: config.AUDIT_CHAIN_KEY, dataDir: config.dataDir });
  if (!config.DATABASE_URL) {
    // PGlite admits one process at a time: opening its directory beside a running server can corrupt it.
    const holder = embeddedDbHolder(config.dataDir);
    if (holder !== null) {
      out(
        `The server (process ${holder}) has the embedded database in ${config.dataDir} open. Stop it first, then run ` +
          `this command again. If no server is running, delete ${SERVER_PID_FILE} in that directory.`,
      );
      return 1;
    }
  }
  if (command === 'backup' || command === 'restore') {
    if (config.DATABASE_URL) {
      out(
        `${command} is for the embedded database. On PostgreSQL use pg_dump / pg_restore (docs/operations.md, Backups).`,
      );
      return 2;
    }
    if (!arg) {
      out(`${command} needs a file name.\n\n${USAGE}`);
      return 2;
    }
    if (command === 'restore') {
      try {
        const { header, movedAside, checkpointsKept } = await restoreBackup(arg, config.dataDir);
        out(`Restored the backup of ${header.created_at} into ${config.dataDir}.`);
        if (movedAside) out(`The database that was there is kept in ${movedAside}.`);
        out(
          header.card_key === null
            ? 'The backup held no card key file: card numbers need the CARD_ENCRYPTION_KEY in use when it was made.'
            : 'The card key file was restored with it.',
        );
        out(
          header.audit_key === null
            ? 'The backup held no audit chain key file: verify-audit needs the AUDIT_CHAIN_KEY in use when it was made.'
            : 'The audit chain key file was restored with it.',
        );
        out(
          header.audit_checkpoints === null
            ? 'The backup held no audit checkpoints.'
            : 'The audit checkpoints of the backup were restored with it.',
        );
        if (checkpointsKept) out(`The audit checkpoints that were there are kept in ${checkpointsKept}.`);
        return 0;
      } catch (err) {
        out(`Restore failed: ${err instanceof Error ? err.message : String(err)}`);
        return 1;
      }
    }
  }
  const database = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, poolSize: 2 });
  // The rows this command writes are stamped with the chain key, like the server's (issue 20 §7); the process's
  // previous key is put back afterwards (the tests run commands beside their servers).
  const previousKey = currentAuditChainKey();
  setCurrentAuditChainKey(chainKey);
  try {
    await migrate(database.db);
    const db = database.db;
    if (command === 'backup') {
      const header = await writeBackup(database.pglite!, config.dataDir, arg!);
      out(`Backup written to ${arg} (${header.database_bytes} bytes of database).`);
      out(
        header.card_key === null
          ? 'No card key file in the data directory: keep CARD_ENCRYPTION_KEY with the backup, card numbers need it.'
          : 'It includes the card key file: keep the backup as safe as the key itself.',
      );
      out(
        header.audit_key === null
          ? 'No audit chain key file in the data directory: keep AUDIT_CHAIN_KEY with the backup, verify-audit needs it.'
          : 'It includes the audit chain key file and the audit checkpoints.',
      );
      return 0;
    }
    if (command === 'verify-audit') {
      const key = chainKey.existing();
      const file = checkpointFile(config.dataDir);
      const read = readCheckpoints(file);
      const result = await verifyAuditChain(db, { key, checkpoints: read?.checkpoints ?? null });
      const b = result.broken;
      const fingerprint = key && keyFingerprint(key);
      if (result.status === 'key_missing') {
        out(
          `Audit chain key missing: the rows after chain position ${result.keyedAfter} are stamped with the chain key, ` +
            `and this command has none (AUDIT_CHAIN_KEY is unset and ${chainKey.keyFile} does not exist). This is ` +
            "not a finding of tampering: run it with the server's AUDIT_CHAIN_KEY or DATA_DIR.",
        );
        out(`The ${result.verified} rows before the key (up to chain position ${result.verifiedUpTo}) verified.`);
      } else if (result.status === 'key_mismatch') {
        out(
          `Audit chain key does not match: the key from ${chainKey.source} (fingerprint ${fingerprint}) did not ` +
            `make the rows after chain position ${result.keyedAfter}` +
            (result.expectedKey ? ` (the checkpoints name key ${result.expectedKey})` : '') +
            ". Run it with the server's AUDIT_CHAIN_KEY or DATA_DIR. If this is the server's key, every keyed row " +
            'checked was rewritten: treat it as tampering.',
        );
        out(`The ${result.verified} rows before the key (up to chain position ${result.verifiedUpTo}) verified.`);
      } else if (!b) {
        out(`Audit chain intact: verified ${result.verified} rows.`);
        if (result.status === 'not_anchored')
          out(
            `Not anchored: the chain is consistent in itself, but ${read ? `${file} holds no checkpoint` : `there is no checkpoint file at ${file}`}, ` +
              'so rows cut from its end could not be seen. The server writes checkpoints there at least once a ' +
              'minute: run this with its DATA_DIR (on several hosts, with the file of each).',
          );
      } else if (b.reason === 'missing_tail')
        out(
          `Audit chain cut short: it ends at chain position ${result.verifiedUpTo}, but the checkpoint of ` +
            `${b.checkpointAt} in ${file} recorded position ${b.seq}: rows ${result.verifiedUpTo + 1} to ${b.seq} ` +
            `(at least) were removed.`,
        );
      else {
        out(
          `Audit chain broken at row ${b.id}${b.seq === null ? '' : ` (chain position ${b.seq})`}: ${CHAIN_BREAK_TEXT[b.reason]}.`,
        );
        out(`The ${result.verified} rows before it (up to chain position ${result.verifiedUpTo}) verified.`);
      }
      if (read) {
        const newest = result.newestCheckpoint;
        if (newest)
          out(
            `Checked against ${read.checkpoints.length} checkpoint(s) in ${file}; the newest: chain position ${newest.seq} at ${newest.at}.`,
          );
        if (read.damaged > 0) out(`${read.damaged} line(s) of it could not be read (a write cut short?).`);
        const others = new Set(read.checkpoints.map((c) => c.key).filter((k) => k && k !== fingerprint));
        if (others.size > 0 && result.status !== 'key_mismatch')
          out(
            `Checkpoints were written with another chain key (${[...others].join(', ')}; this one is ${fingerprint ?? 'none'}): ` +
              "is AUDIT_CHAIN_KEY / DATA_DIR the server's?",
          );
      }
      return VERIFY_AUDIT_EXIT[result.status];
    }
    if (command === 'verify-price-log') {
      const period: { from?: Date; to?: Date } = {};
      for (const [flag, name] of [
        ['--from', 'from'],
        ['--to', 'to'],
      ] as const) {
        const at = args.indexOf(flag);
        if (at < 0) continue;
        const value = args[at + 1];
        const date = value ? new Date(value) : null;
        if (!date || Number.isNaN(date.getTime())) {
          out(`${flag} needs an ISO 8601 date or instant (2026-11-01 or 2026-11-01T00:00:00Z).\n\n${USAGE}`);
          return 2;
        }
        period[name] = date;
      }
      // The server's own key checks the signatures when it is at hand (PRICE_LOG_KEY, or the key file: never made
      // here); else only the public keys stored beside the heads can, which whoever can write the database could add.
      const signer = priceLogSignerFromConfig(config);
      const serverKey = config.PRICE_LOG_KEY || fs.existsSync(signer.keyFile) ? signer.publicKey() : null;
      const result = await verifyPriceLog(db, { ...period, serverKey });
      for (const line of verifyLogReport(result)) out(line);
      await writeAudit(db, CLI_ACTOR, {
        action: 'price_log.verify',
        entityType: 'price_log',
        after: {
          ok: result.ok,
          from: period.from?.toISOString() ?? null,
          to: period.to?.toISOString() ?? null,
          leaves: [result.range.from, result.range.to],
          leaves_checked: result.leavesChecked,
          nodes_checked: result.nodesChecked,
          heads_checked: result.headsChecked,
          changed_leaves: result.badLeaves.items.slice(0, 100).map((l) => l.index),
          changed_leaves_count: result.badLeaves.count,
          bad_nodes_count: result.badNodes.count,
          bad_heads: result.badHeads.items.slice(0, 100).map((h) => ({ tree_size: h.treeSize, reason: h.reason })),
          bad_heads_count: result.badHeads.count,
          trades: result.trades.slice(0, 1000),
          server_key: result.serverKey,
        },
      });
      return result.ok ? 0 : 1;
    }
    if (command === 'clear-ip-whitelist') {
      const n = await clearWhitelist(db, CLI_ACTOR);
      out(`IP whitelist cleared (${n} entr${n === 1 ? 'y' : 'ies'} removed). Staff may sign in from any address.`);
      return 0;
    }
    if (command === 'reconcile-ledger') {
      const mismatches = await reconcile(db);
      if (mismatches.length === 0) {
        out('Ledger reconciled: every trading balance equals the sum of its entries.');
        return 0;
      }
      for (const m of mismatches)
        out(
          `Account ${m.accountId}: balance ${m.balanceCents} cents, ledger ${m.ledgerCents} cents, newest balance_after ${m.lastBalanceAfterCents ?? '—'}${m.badEntryIds.length ? `, entries off the running sum: ${m.badEntryIds.join(', ')}` : ''}`,
        );
      out(`${mismatches.length} account(s) do not match their ledger.`);
      return 1;
    }
    const email = arg?.trim().toLowerCase();
    // A new superadmin's e-mail must pass the schema the staff page edits it with; reset-password and reset-2fa take any stored one.
    const valid = command === 'create-superadmin' ? emailField.safeParse(email).success : /^\S+@\S+$/.test(email ?? '');
    if (!email || !valid) {
      out(`${command} needs an e-mail address.\n\n${USAGE}`);
      return 2;
    }
    if (command === 'reset-2fa') {
      const user = await db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(email)`, '=', email)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!user) {
        out(`No user with e-mail ${email}.`);
        return 1;
      }
      const wasEnrolled = await resetTwoFactor(db, user.id, CLI_ACTOR, cliMailer(config));
      out(
        wasEnrolled
          ? `Two-factor sign-in of ${email} removed; their sessions were ended. They enroll again at their next sign-in if their role requires it.`
          : `${email} had no two-factor enrollment; their sessions were ended.`,
      );
      return 0;
    }
    const password = env.ADMIN_PASSWORD && env.ADMIN_PASSWORD.length >= 6 ? env.ADMIN_PASSWORD : randomPassword();
    const shown = env.ADMIN_PASSWORD ? 'the password from ADMIN_PASSWORD' : `password: ${password}`;
    const existing = await db
      .selectFrom('users')
      .select(['id', 'role'])
      .where(sql`lower(email)`, '=', email)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();

    if (command === 'create-superadmin') {
      if (existing) {
        out(`A user with e-mail ${email} already exists (role ${existing.role}).`);
        return 1;
      }
      await createSuperadmin(db, email, password);
      out(`Superadmin ${email} created with ${shown}`);
      return 0;
    }
    if (!existing) {
      out(`No user with e-mail ${email}.`);
      return 1;
    }
    const hash = await hashPassword(password);
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        // A password set here also ends an invitation (issue 22 §4): the member signs in with it.
        .set({ password_hash: hash, invited_at: null, updated_at: sql`now()` })
        .where('id', '=', existing.id)
        .execute();
      await trx
        .updateTable('sessions')
        .set({ revoked_at: sql`now()` })
        .where('user_id', '=', existing.id)
        .where('revoked_at', 'is', null)
        .execute();
      await liftSignInDelays(trx, email);
      await writeAudit(trx, CLI_ACTOR, {
        action: 'user.password_change',
        entityType: 'user',
        entityId: existing.id,
        after: { via: 'command line' },
      });
      // Issue 22 §3: the owner hears of every password change (the server's mail worker delivers it).
      const owner = await trx
        .selectFrom('users')
        .select(['name', 'role', 'language'])
        .where('id', '=', existing.id)
        .executeTakeFirstOrThrow();
      await cliMailer(config).enqueue(trx, {
        to: email,
        userId: existing.id,
        template: 'password_changed',
        language: owner.role === 'client' ? owner.language : 'ru',
        data: { name: owner.name },
      });
    });
    out(`Password of ${email} reset; their sessions were ended and any sign-in delays lifted.`);
    out(env.ADMIN_PASSWORD ? 'The new password is the one in ADMIN_PASSWORD.' : `New password: ${password}`);
    return 0;
  } finally {
    setCurrentAuditChainKey(previousKey);
    await database.close();
  }
}

// Run only when executed directly (not when imported by a test).
if (process.argv[1] && /cli\.[jt]s$/.test(process.argv[1])) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
