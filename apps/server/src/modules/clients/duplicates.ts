import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../../platform/db/types.js';

/**
 * decisions.md D13, D17: a lead is a duplicate of an existing one with the same e-mail (case-insensitive) or the same
 * E.164 phone. `phoneE164` null (a phone that cannot be parsed) never matches. The oldest match is answered.
 * The base may already hold duplicates, so this is a check at creation, not a unique index.
 */
export async function findLeadByContact(
  db: Db | Trx,
  contact: { email: string | null | undefined; phoneE164: string | null | undefined },
): Promise<{ id: number; affiliate_id: number | null } | undefined> {
  const email = (contact.email ?? '').trim().toLowerCase();
  const phone = contact.phoneE164 ?? null;
  if (!email && !phone) return undefined;
  const row = await db
    .selectFrom('clients')
    .select(['id', 'affiliate_id'])
    .where((eb) =>
      eb.or([...(email ? [eb(sql`lower(email)`, '=', email)] : []), ...(phone ? [eb('phone_e164', '=', phone)] : [])]),
    )
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return { id: Number(row.id), affiliate_id: row.affiliate_id === null ? null : Number(row.affiliate_id) };
}

/**
 * The transaction-scoped advisory lock every path that creates leads takes before its duplicate check (the external
 * API one lead at a time, an import a whole file): the check and the insert are not atomic otherwise, so two posts of
 * the same lead, two imports of the same file, or an import and a post at once, would each create it. One lock for all
 * leads; each holder keeps it for one short insert (an import for its dedupe-and-insert statements).
 */
export const LEAD_CREATION_LOCK = 7342010;

export async function lockLeadCreation(trx: Trx): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LEAD_CREATION_LOCK})`.execute(trx);
}
