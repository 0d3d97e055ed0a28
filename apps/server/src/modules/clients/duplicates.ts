import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Trx } from '../ledger/service.js';

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
