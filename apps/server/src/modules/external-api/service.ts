import {
  normalisePhone,
  type ExternalClient,
  type ExternalClientsQuery,
  type ExternalClientsResponse,
  type ExternalPostResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { centsToDollars } from '../../platform/money.js';
import { findLeadByContact, lockLeadCreation } from '../clients/duplicates.js';
import type { Trx } from '../../platform/db/types.js';
import { enqueuePostback } from '../postbacks/outbox.js';
import type { AffiliateCaller } from './access.js';

/** Where a lead came in: the affiliate endpoint or one of the two provider endpoints (§3, §7). */
export type LeadSource = 'affiliate' | 'lead_ads' | 'search_ads';

/** A lead as posted, whatever the endpoint: the contact and the provider fields it carries (absent = none). */
export interface IncomingLead {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  country?: string | undefined;
  campaign?: string | undefined;
  ad_name?: string | undefined;
  utm_source?: string | undefined;
  utm_campaign?: string | undefined;
  utm_medium?: string | undefined;
  keyword?: string | undefined;
  region?: string | undefined;
  device?: string | undefined;
}

interface LeadRow {
  id: string | number;
  name: string;
  email: string;
  phone_e164: string | null;
  status: string;
  ftd: boolean;
  created_at: Date | string;
}

function toExternalClient(row: LeadRow): ExternalClient {
  return {
    client_id: Number(row.id),
    name: row.name,
    email: row.email || null,
    phone: row.phone_e164,
    status: row.status,
    ftd: row.ftd,
    created_at: new Date(row.created_at).toISOString(),
  };
}

const LEAD_COLUMNS = ['id', 'name', 'email', 'phone_e164', 'status', 'ftd', 'created_at'] as const;

/** The phone as E.164 (D17), or 400 naming the field when libphonenumber-js cannot make a number of it. */
export function leadPhone(phone: string | undefined, region: string): string | null {
  if (!phone) return null;
  const e164 = normalisePhone(phone, region);
  if (!e164) throw new HttpError(400, 'phone_invalid', { field: 'phone' });
  return e164;
}

/**
 * One posted lead (D13, D17), in the caller's transaction: a duplicate when its e-mail (case-insensitive) or E.164
 * phone is already a lead's (clients/duplicates.ts, the one rule). A duplicate of this affiliate's own lead answers
 * that lead; of anyone else's, nothing about it. A new lead is status new, without a manager, carries the token's
 * affiliate and the provider fields, and writes its LEAD postback to the outbox in the same transaction.
 */
export async function postLead(
  trx: Trx,
  caller: AffiliateCaller,
  source: LeadSource,
  lead: IncomingLead,
  phoneE164: string | null,
): Promise<ExternalPostResponse> {
  await lockLeadCreation(trx);
  const existing = await findLeadByContact(trx, { email: lead.email, phoneE164 });
  if (existing) {
    if (existing.affiliate_id !== caller.affiliateId) return { status: 'duplicate', client_id: null, client: null };
    const row = await trx
      .selectFrom('clients')
      .select([...LEAD_COLUMNS])
      .where('id', '=', existing.id)
      .executeTakeFirstOrThrow();
    return { status: 'duplicate', client_id: existing.id, client: toExternalClient(row as LeadRow) };
  }
  const row = await trx
    .insertInto('clients')
    .values({
      name: lead.name,
      email: lead.email ?? '',
      phone: lead.phone ?? '',
      phone_e164: phoneE164,
      country: lead.country ?? '',
      campaign: lead.campaign ?? '',
      source,
      notes: '',
      status: 'new',
      assigned_manager: null,
      affiliate_id: caller.affiliateId,
      user_id: null,
      registration_date: null,
      last_comment_date: null,
      ad_name: lead.ad_name ?? null,
      utm_source: lead.utm_source ?? null,
      utm_campaign: lead.utm_campaign ?? null,
      utm_medium: lead.utm_medium ?? null,
      keyword: lead.keyword ?? null,
      region: lead.region ?? null,
      device: lead.device ?? null,
    })
    .returning([...LEAD_COLUMNS])
    .executeTakeFirstOrThrow();
  const client = toExternalClient(row as LeadRow);
  await enqueuePostback(trx, { clientId: client.client_id, event: 'LEAD' });
  return { status: 'created', client_id: client.client_id, client };
}

/**
 * GET /api/external/clients: the affiliate's leads, newest first. `balance` is the figure the CRM's clients list shows
 * as the balance — the total of the lead's deposits (back-office.md §7: total_deposits, 'shown as the balance in the
 * list'); `trading_balance` is what its trading account holds now (0 without an account). Issue 27 item 16: the API
 * answered the trading balance as `balance`, so an FTD lead with $100 in the CRM read 0.
 */
export async function listAffiliateLeads(
  db: Db,
  caller: AffiliateCaller,
  query: ExternalClientsQuery,
): Promise<ExternalClientsResponse> {
  const [total, rows] = await Promise.all([
    db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('affiliate_id', '=', caller.affiliateId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('clients as c')
      .leftJoin('trading_accounts as ta', 'ta.client_id', 'c.id')
      .select([
        'c.id',
        'c.name',
        'c.email',
        'c.phone_e164',
        'c.status',
        'c.ftd',
        'c.created_at',
        'c.total_deposits_cents',
        sql<string | number>`coalesce(ta.balance_cents, 0)`.as('balance_cents'),
      ])
      .where('c.affiliate_id', '=', caller.affiliateId)
      .orderBy('c.id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
  ]);
  return {
    affiliate: caller.name,
    total_clients: Number(total.n),
    clients: rows.map((r) => ({
      ...toExternalClient(r as LeadRow),
      balance: centsToDollars(String(r.total_deposits_cents)),
      trading_balance: centsToDollars(String(r.balance_cents)),
    })),
  };
}
