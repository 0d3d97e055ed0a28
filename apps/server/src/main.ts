import { buildApp } from './app.js';
import { bootstrap, markEmbeddedDbInUse } from './bootstrap.js';
import { loadConfig, twoFactorBanner } from './config.js';
import { keyedRowsAfter } from './platform/audit/chain.js';
import { AuditChainKeyMissing, useAuditChainKey } from './platform/audit/chain-key.js';
import { isDatabaseUnavailable } from './platform/db/errors.js';
import { openReadyDb } from './platform/db/startup.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const chainKey = useAuditChainKey(config); // audit rows, the first-start seed's too, are stamped with it at commit (issue 20 §7)
  const releaseDataDir = markEmbeddedDbInUse(config); // DATA_DIR/server.pid: the command line keeps out meanwhile
  // Waits for PostgreSQL (DB_STARTUP_WAIT_SECONDS), migrates, creates the first users; then the serving pool, with
  // the connect and statement timeouts of issue 21 §5.
  const database = await openReadyDb(
    {
      databaseUrl: config.DATABASE_URL,
      dataDir: config.dataDir,
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      waitSeconds: config.DB_STARTUP_WAIT_SECONDS,
      log: (line) => console.log(line),
    },
    (db) => bootstrap(db, config, (line) => console.log(line)),
  );

  // Several processes share one chain key (AUDIT_CHAIN_KEY, or one key file): one that has none while the log is
  // keyed would refuse every audited write, so it does not start (issue 20 §7, review).
  const keyed = await keyedRowsAfter(database.db);
  if (keyed !== null && !chainKey.existing()) {
    console.error(new AuditChainKeyMissing(chainKey, String(keyed)).message);
    await database.close();
    releaseDataDir();
    process.exit(1);
  }

  const app = await buildApp({ config, database });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await app.close(); // stops accepting, lets requests in flight finish
      await database.close();
      releaseDataDir();
    } finally {
      clearTimeout(timer);
      process.exit(0);
    }
  };
  // No database error ends the process (issue 21 §1): one that escaped a background task is logged; any other
  // unhandled rejection still ends it, as Node does by default.
  process.on('unhandledRejection', (reason) => {
    if (!isDatabaseUnavailable(reason)) throw reason;
    app.log.error({ err: reason }, 'a background database call failed');
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // The price feed and the settlement worker (which first settles whatever expired while the server was down).
  await app.engine.start();
  await app.listen({ port: config.PORT, host: config.HOST });
  // Affiliate postbacks: one delivering process per cluster (a leader lock on PostgreSQL).
  await app.postbackWorker.start();
  // Mail (issue 22): one delivering process per cluster, which also sends the staff's daily digest.
  await app.mailWorker.start();
  // The audit chain's head, anchored outside the database at least once a minute (issue 20 §7; every process).
  app.auditCheckpoints.start();
  console.log(twoFactorBanner(config));
  console.log(
    `Serving on http://localhost:${config.PORT} (database: ${database.kind === 'pglite' ? `embedded, ${config.dataDir}` : 'PostgreSQL'})`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
