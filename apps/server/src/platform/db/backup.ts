import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_EXTENSIONS } from './index.js';
import { checkpointFile } from '../audit/checkpoints.js';

/**
 * Backups of the embedded database (issue 13 item 6). One file:
 *
 *   line 1: `brokerage-backup v1`
 *   line 2: a JSON header {created_at, database_bytes, card_key, audit_key, audit_checkpoints} — card_key is the
 *           content of DATA_DIR/keys/card.key (base64 text) or null when there is none (CARD_ENCRYPTION_KEY
 *           configured, or no card stored yet); audit_key likewise of DATA_DIR/keys/audit.key (AUDIT_CHAIN_KEY), and
 *           audit_checkpoints the content of DATA_DIR/audit-checkpoints.log or null (issue 20 §7: the chain of the
 *           restored database verifies only with its key and against its own checkpoints)
 *   then:   PGlite's dumpDataDir('gzip'): a gzipped tar of the data directory, taken after a checkpoint by the one
 *           process that has the database open — a consistent copy.
 *
 * The file holds the keys: it is written with mode 0600 and must be kept like the keys themselves (docs/operations.md).
 */
const MAGIC = 'brokerage-backup v1';

export interface BackupHeader {
  created_at: string;
  database_bytes: number;
  card_key: string | null;
  /** Issue 20 §7; absent in backups made before it (read as null). */
  audit_key: string | null;
  audit_checkpoints: string | null;
}

export function pgdataDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

export function cardKeyFile(dataDir: string): string {
  return path.join(dataDir, 'keys', 'card.key');
}

export function auditKeyFile(dataDir: string): string {
  return path.join(dataDir, 'keys', 'audit.key');
}

const readIfThere = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);

/** Writes the backup of an open embedded database to `file` (atomically: a temporary file renamed into place). */
export async function writeBackup(pglite: PGlite, dataDir: string, file: string): Promise<BackupHeader> {
  await pglite.query('checkpoint');
  const dump = await pglite.dumpDataDir('gzip');
  const database = Buffer.from(await dump.arrayBuffer());
  const header: BackupHeader = {
    created_at: new Date().toISOString(),
    database_bytes: database.length,
    card_key: readIfThere(cardKeyFile(dataDir))?.trim() ?? null,
    audit_key: readIfThere(auditKeyFile(dataDir))?.trim() ?? null,
    audit_checkpoints: readIfThere(checkpointFile(dataDir)),
  };
  const tmp = `${file}.partial-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, `${MAGIC}\n${JSON.stringify(header)}\n`);
    fs.writeSync(fd, database);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return header;
}

/** Reads and checks a backup file; throws an Error naming the problem. */
export function readBackup(file: string): { header: BackupHeader; database: Buffer } {
  const buf = fs.readFileSync(file);
  const first = buf.indexOf(0x0a);
  const second = first < 0 ? -1 : buf.indexOf(0x0a, first + 1);
  if (first < 0 || second < 0 || buf.subarray(0, first).toString('utf8') !== MAGIC)
    throw new Error(`${file} is not a backup made by 'npm run admin -- backup'`);
  let header: BackupHeader;
  try {
    header = JSON.parse(buf.subarray(first + 1, second).toString('utf8')) as BackupHeader;
  } catch {
    throw new Error(`${file}: the backup header is damaged`);
  }
  header.audit_key ??= null;
  header.audit_checkpoints ??= null;
  const database = buf.subarray(second + 1);
  if (database.length !== header.database_bytes)
    throw new Error(
      `${file} is incomplete: ${database.length} database bytes instead of ${header.database_bytes} (truncated copy?)`,
    );
  return { header, database };
}

export interface RestoreResult {
  header: BackupHeader;
  /** Where the data directory's previous database (and key) were moved, if there was one. */
  movedAside: string | null;
  /** The copy of the audit checkpoints the restore replaced, if there were any. */
  checkpointsKept: string | null;
}

/**
 * Replaces the embedded database of `dataDir` with the backup's. The current database is not deleted: it is moved
 * to `pgdata.before-restore-<time>` (and its keys and audit checkpoints beside it), so a restore by mistake can be
 * undone by hand. The checkpoints are always replaced by the backup's (none if it had none): those of the replaced
 * database name rows the restored one never had. A copy of them is always kept — in the moved-aside folder, or beside
 * the file as `audit-checkpoints.log.before-restore-<time>` when there was no database to move.
 */
export async function restoreBackup(file: string, dataDir: string): Promise<RestoreResult> {
  const { header, database } = readBackup(file);
  const dir = pgdataDir(dataDir);
  const keyFile = cardKeyFile(dataDir);
  const auditKey = auditKeyFile(dataDir);
  const checkpoints = checkpointFile(dataDir);
  let movedAside: string | null = null;
  let checkpointsKept: string | null = null;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    movedAside = `${dir}.before-restore-${stamp}`;
    fs.renameSync(dir, movedAside);
    if (fs.existsSync(keyFile)) fs.copyFileSync(keyFile, path.join(movedAside, 'card.key.before-restore'));
    if (fs.existsSync(auditKey)) fs.copyFileSync(auditKey, path.join(movedAside, 'audit.key.before-restore'));
  }
  if (fs.existsSync(checkpoints)) {
    // The anchors are evidence about the database they were written for: never dropped, whether or not there was a
    // database to move aside (a data directory whose pgdata was lost still has them). Copied before the file goes.
    const copy = movedAside
      ? path.join(movedAside, 'audit-checkpoints.log.before-restore')
      : `${checkpoints}.before-restore-${stamp}`;
    fs.copyFileSync(checkpoints, copy, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(copy, 0o600);
    checkpointsKept = copy;
    fs.rmSync(checkpoints);
  }
  fs.mkdirSync(dir, { recursive: true });
  const pglite = new PGlite(dir, {
    extensions: PGLITE_EXTENSIONS,
    loadDataDir: new Blob([new Uint8Array(database)]),
  });
  try {
    await pglite.waitReady;
    await pglite.query('select 1');
  } finally {
    await pglite.close();
  }
  const writeSecret = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // A different key already there is kept too when there was no database folder to keep it in.
    if (!movedAside && fs.existsSync(file) && fs.readFileSync(file, 'utf8') !== text)
      fs.copyFileSync(file, `${file}.before-restore-${stamp}`, fs.constants.COPYFILE_EXCL);
    fs.writeFileSync(file, text, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
  };
  if (header.card_key !== null) writeSecret(keyFile, `${header.card_key}\n`);
  if (header.audit_key !== null) writeSecret(auditKey, `${header.audit_key}\n`);
  if (header.audit_checkpoints !== null) writeSecret(checkpoints, header.audit_checkpoints);
  return { header, movedAside, checkpointsKept };
}
