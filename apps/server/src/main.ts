import { buildApp } from './app.js';
import { bootstrap, markEmbeddedDbInUse } from './bootstrap.js';
import { loadConfig, twoFactorBanner } from './config.js';
import { migrate, openDb } from './platform/db/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const releaseDataDir = markEmbeddedDbInUse(config); // DATA_DIR/server.pid: the command line keeps out meanwhile
  const database = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  await migrate(database.db);
  await bootstrap(database.db, config, (line) => console.log(line));

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
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // The price feed and the settlement worker (which first settles whatever expired while the server was down).
  await app.engine.start();
  await app.listen({ port: config.PORT, host: config.HOST });
  // Affiliate postbacks: one delivering process per cluster (a leader lock on PostgreSQL).
  await app.postbackWorker.start();
  console.log(twoFactorBanner(config));
  console.log(
    `Serving on http://localhost:${config.PORT} (database: ${database.kind === 'pglite' ? `embedded, ${config.dataDir}` : 'PostgreSQL'})`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
