import type { AuditQuery, AuditResponse, AuditVerifyResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import { verifyAuditChain } from '../../platform/audit/chain.js';
import { AuditChainKey } from '../../platform/audit/chain-key.js';
import { checkpointFile, readCheckpoints } from '../../platform/audit/checkpoints.js';

/** The chain check of `npm run admin -- verify-audit` (the chain key, this process's checkpoints), for the audit page. */
export async function verifyAudit(deps: AppDeps): Promise<AuditVerifyResponse> {
  const key = new AuditChainKey({ key: deps.config.AUDIT_CHAIN_KEY, dataDir: deps.config.dataDir }).existing();
  const checkpoints = readCheckpoints(checkpointFile(deps.config.dataDir))?.checkpoints ?? [];
  const r = await verifyAuditChain(deps.db, { key, checkpoints });
  return {
    status: r.status,
    verified: r.verified,
    verified_up_to: r.verifiedUpTo,
    broken: r.broken && { id: r.broken.id, seq: r.broken.seq, reason: r.broken.reason },
  };
}

export async function listAudit(deps: AppDeps, query: AuditQuery): Promise<AuditResponse> {
  const tz = deps.config.BUSINESS_TIMEZONE;
  let base = deps.db.selectFrom('audit_log');
  if (query.actor_id) base = base.where('actor_id', '=', query.actor_id);
  if (query.action) base = base.where('action', '=', query.action);
  if (query.date_from)
    base = base.where('at', '>=', sql<Date>`(${query.date_from}::date)::timestamp at time zone ${tz}`);
  if (query.date_to)
    base = base.where('at', '<', sql<Date>`(${query.date_to}::date + 1)::timestamp at time zone ${tz}`);

  const { total } = await base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page)
    .execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      id: Number(r.id),
      at: new Date(r.at).toISOString(),
      actor_id: r.actor_id,
      actor_name: r.actor_name,
      actor_role: r.actor_role,
      action: r.action,
      entity_type: r.entity_type,
      entity_id: r.entity_id,
      before: r.before ?? null,
      after: r.after ?? null,
      ip: r.ip,
    })),
  };
}
