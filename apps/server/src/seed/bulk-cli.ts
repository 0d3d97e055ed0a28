/**
 * npm run seed:bulk -- --clients 1000000 [--append] [--deposit-share 0.08] [--span-days 540]
 *
 * Fills the PostgreSQL database of DATABASE_URL with realistic leads (seed/bulk.ts), migrating it first.
 */
import { parseArgs } from 'node:util';
import { migrate, openDb } from '../platform/db/index.js';
import { BulkSeedRefused, seedBulk } from './bulk.js';

const USAGE = `Usage: DATABASE_URL=postgres://… npm run seed:bulk -- --clients <n> [--append] [--deposit-share 0.08] [--span-days 540]`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        clients: { type: 'string', default: '1000000' },
        append: { type: 'boolean', default: false },
        'deposit-share': { type: 'string', default: '0.08' },
        'span-days': { type: 'string', default: '540' },
        chunk: { type: 'string', default: '50000' },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error(
      `seed:bulk needs DATABASE_URL (a PostgreSQL database). It does not fill the embedded PGlite database of ` +
        `DATA_DIR: PGlite is one WebAssembly connection inside the server process, and a million leads there would ` +
        `take far longer than on PostgreSQL and say nothing about production. Create a database and run e.g.\n` +
        `  DATABASE_URL=postgres://postgres@127.0.0.1:5432/brokerage_bulk npm run seed:bulk -- --clients 1000000`,
    );
    return 2;
  }
  const clients = Number(values.clients);
  const database = await openDb({ databaseUrl: url, dataDir: 'memory', poolSize: 2 });
  try {
    await migrate(database.db);
    console.log(`seed:bulk: ${clients.toLocaleString('en')} leads into ${new URL(url).pathname.slice(1)}`);
    const result = await seedBulk(database.db, {
      clients,
      append: values.append,
      depositShare: Number(values['deposit-share']),
      spanDays: Number(values['span-days']),
      chunk: Number(values.chunk),
      progress: (line) => console.log(line),
    });
    console.log(
      `done: ${result.clients.toLocaleString('en')} leads (ids ${result.firstId}–${result.lastId}), ` +
        `${result.deposits.toLocaleString('en')} deposits, ${result.comments.toLocaleString('en')} comments, ` +
        `${result.staff} staff, in ${result.seconds.toFixed(1)} s`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BulkSeedRefused) {
      console.error(`seed:bulk refused: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
