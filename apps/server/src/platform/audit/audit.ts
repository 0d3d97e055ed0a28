import type { AuditAction } from '@brokerage/shared';
import type { Db } from '../db/index.js';
import type { Actor } from '../auth/actor.js';

export interface AuditRecord {
  action: AuditAction;
  entityType?: string;
  entityId?: string | number | null;
  before?: unknown;
  after?: unknown;
}

/** Keys never written to the audit log, whatever a caller passes in before/after. */
const SECRET_KEYS = /password|token|secret|card_number|hash/i;

function scrub(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(scrub);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => !SECRET_KEYS.test(k))
        .map(([k, v]) => [k, scrub(v)]),
    );
  }
  return value;
}

/**
 * Appends one row to the audit log (decisions.md D9). Call it with the transaction that makes the change, so the
 * change and its record commit together or not at all.
 */
export async function writeAudit(db: Db, actor: Actor | null, record: AuditRecord): Promise<void> {
  const before = scrub(record.before);
  const after = scrub(record.after);
  await db
    .insertInto('audit_log')
    .values({
      actor_id: actor?.id ?? null,
      actor_name: actor?.name ?? null,
      actor_role: actor?.role ?? null,
      action: record.action,
      entity_type: record.entityType ?? null,
      entity_id: record.entityId === undefined || record.entityId === null ? null : String(record.entityId),
      before: before === null ? null : JSON.stringify(before),
      after: after === null ? null : JSON.stringify(after),
      ip: actor?.ip ?? null,
    })
    .execute();
}
