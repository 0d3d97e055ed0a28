import type { DepositMethod, StaffDepositMethod, UpdateDepositMethodRequest } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';

/**
 * Deposit methods (client-platform.md §2.5, §3, §8; back-office.md §2.15, §7): the enabled ones are offered to clients
 * on top-up with their payment details; superadmin toggles and edits them, each change audited with before and after
 * (D9). No deposit request is ever created from them.
 */

/** The id column is an integer; a larger id cannot exist (and would fail in the query), so it is simply not found. */
const MAX_ID = 2_147_483_647;

type Row = {
  id: number;
  type: DepositMethod['type'];
  title: string;
  description: string;
  details: string;
  enabled: boolean;
};

function toMethod(r: Row): DepositMethod {
  return {
    id: Number(r.id),
    type: r.type,
    title: r.title,
    description: r.description,
    details: r.details,
    enabled: r.enabled,
  };
}

/** GET /api/deposit-methods (public, no authorization): the enabled methods, in their display order. */
export async function listEnabledMethods(db: Db): Promise<DepositMethod[]> {
  const rows = await db
    .selectFrom('deposit_methods')
    .select(['id', 'type', 'title', 'description', 'details', 'enabled'])
    .where('enabled', '=', true)
    .orderBy('sort')
    .orderBy('id')
    .execute();
  return rows.map(toMethod);
}

function staffQuery(db: Db) {
  return db
    .selectFrom('deposit_methods as m')
    .leftJoin('users as u', 'u.id', 'm.updated_by')
    .select([
      'm.id',
      'm.type',
      'm.title',
      'm.description',
      'm.details',
      'm.enabled',
      'm.sort',
      'm.updated_at',
      'm.updated_by',
      'u.name as updated_by_name',
    ]);
}

type StaffRow = Awaited<ReturnType<ReturnType<typeof staffQuery>['executeTakeFirstOrThrow']>>;

function toStaffMethod(r: StaffRow): StaffDepositMethod {
  return {
    ...toMethod(r),
    sort: r.sort,
    updated_at: new Date(r.updated_at).toISOString(),
    updated_by: r.updated_by,
    updated_by_name: r.updated_by_name,
  };
}

/** GET /api/deposit-methods/all: every method, enabled or not, for the staff page. */
export async function listAllMethods(db: Db): Promise<StaffDepositMethod[]> {
  const rows = await staffQuery(db).orderBy('m.sort').orderBy('m.id').execute();
  return rows.map(toStaffMethod);
}

/**
 * PUT /api/deposit-methods/:id: the toggle {enabled} or the edit {title, description, details, enabled}. Fields left
 * out keep their value; a change that changes nothing writes nothing (no audit row).
 */
export async function updateMethod(
  db: Db,
  actor: Actor,
  id: number,
  input: UpdateDepositMethodRequest,
): Promise<StaffDepositMethod> {
  if (id > MAX_ID) throw new HttpError(404, 'deposit_method_not_found');
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('deposit_methods')
      .select(['id', 'type', 'title', 'description', 'details', 'enabled'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw new HttpError(404, 'deposit_method_not_found');
    const after = {
      title: input.title ?? before.title,
      description: input.description ?? before.description,
      details: input.details ?? before.details,
      enabled: input.enabled ?? before.enabled,
    };
    const changed = (Object.keys(after) as (keyof typeof after)[]).filter((k) => after[k] !== before[k]);
    if (changed.length > 0) {
      await trx
        .updateTable('deposit_methods')
        .set({ ...after, updated_at: sql`now()`, updated_by: actor.id })
        .where('id', '=', id)
        .execute();
      const pick = (v: typeof after) => Object.fromEntries(changed.map((k) => [k, v[k]]));
      await writeAudit(trx, actor, {
        action: 'deposit_method.update',
        entityType: 'deposit_method',
        entityId: id,
        before: { type: before.type, ...pick(before) },
        after: { type: before.type, ...pick(after) },
      });
    }
    return toStaffMethod(await staffQuery(trx).where('m.id', '=', id).executeTakeFirstOrThrow());
  });
}
