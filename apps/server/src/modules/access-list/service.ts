import type { CreateIpRequest, IpWhitelistEntry } from '@brokerage/shared';
import type { AppDeps } from '../../platform/deps.js';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { anyCovers, parseWhitelistEntry } from '../../platform/access/ip.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { HttpError, badRequest, conflict } from '../../platform/http/errors.js';

export async function listWhitelist(db: Db): Promise<IpWhitelistEntry[]> {
  const rows = await db
    .selectFrom('ip_whitelist as w')
    .leftJoin('users as u', 'u.id', 'w.created_by')
    .select(['w.id', 'w.ip_address', 'w.description', 'w.created_at', 'u.name as created_by_name'])
    .orderBy('w.id')
    .execute();
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}

/**
 * Adds an address or CIDR range. The first entry must cover the caller's own address: otherwise the list would
 * lock out the very person building it (recovery would need the command line).
 */
export async function addToWhitelist(deps: AppDeps, input: CreateIpRequest, actor: Actor): Promise<IpWhitelistEntry> {
  const canonical = parseWhitelistEntry(input.ip_address);
  if (!canonical) throw badRequest('ip_invalid');
  const current = await deps.db.selectFrom('ip_whitelist').select('ip_address').execute();
  if (current.some((r) => r.ip_address === canonical)) throw conflict('ip_exists');
  const after = [...current.map((r) => r.ip_address), canonical];
  if (actor.ip && !anyCovers(after, actor.ip)) throw conflict('ip_would_lock_out', { ip: actor.ip });

  try {
    const id = await deps.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('ip_whitelist')
        .values({ ip_address: canonical, description: input.description ?? '', created_by: actor.id })
        .returning('id')
        .executeTakeFirstOrThrow();
      await writeAudit(trx, actor, {
        action: 'ip_whitelist.add',
        entityType: 'ip_whitelist',
        entityId: row.id,
        after: { ip_address: canonical, description: input.description ?? '' },
      });
      return row.id;
    });
    deps.whitelist.invalidate();
    const entry = (await listWhitelist(deps.db)).find((e) => e.id === id);
    return entry!;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('ip_exists');
    throw err;
  }
}

/** Removes an entry, unless what remains would shut the caller out. */
export async function removeFromWhitelist(deps: AppDeps, id: number, actor: Actor): Promise<void> {
  const current = await deps.db.selectFrom('ip_whitelist').selectAll().execute();
  const target = current.find((r) => r.id === id);
  if (!target) throw new HttpError(404, 'ip_entry_not_found');
  const remaining = current.filter((r) => r.id !== id).map((r) => r.ip_address);
  if (actor.ip && remaining.length > 0 && !anyCovers(remaining, actor.ip)) {
    throw conflict('ip_would_lock_out', { ip: actor.ip });
  }
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('ip_whitelist').where('id', '=', id).execute();
    await writeAudit(trx, actor, {
      action: 'ip_whitelist.remove',
      entityType: 'ip_whitelist',
      entityId: id,
      before: { ip_address: target.ip_address, description: target.description },
    });
  });
  deps.whitelist.invalidate();
}

/** The recovery path of the command line: empties the list, so staff may sign in from anywhere again. */
export async function clearWhitelist(db: Db, actor: Actor): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('ip_whitelist').returning('ip_address').execute();
    await writeAudit(trx, actor, {
      action: 'ip_whitelist.clear',
      entityType: 'ip_whitelist',
      before: { entries: removed.map((r) => r.ip_address) },
    });
    return removed.length;
  });
}
