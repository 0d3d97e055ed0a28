import { randomBytes } from 'node:crypto';
import {
  centsToDollars,
  type Affiliate,
  type AffiliateStats,
  type AffiliateStatus,
  type AffiliateUpdate,
  type AffiliateUpdateResponse,
  type PostbackDelivery,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { SecretsVault } from '../../platform/crypto/vault.js';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { OutboundUrlError, checkOutboundUrl, refusedUrl, type OutboundRules } from '../../platform/http/outbound.js';
import { SIGNING_SECRET_PURPOSE } from '../postbacks/jobs.js';

/**
 * The affiliates page (back-office.md §2.13, §3, §7; decisions.md D13, D17). Affiliates are created with their first
 * token (the integration tab); here they are listed with their leads' figures, edited, and soft-deleted. The leads of
 * an affiliate are read through the client scope (D5). The postback signing secret is created when a webhook URL is
 * first saved, stored encrypted with the card vault's key (D7), and answered only by the call that creates it.
 */

export interface AffiliatesDeps {
  db: Db;
  vault: SecretsVault;
  rules: OutboundRules;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A new signing secret: 32 random bytes, base64url (43 characters). */
function newSigningSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Per affiliate: its leads in the caller's scope, and their distinct campaign names. */
function leadFigures(db: Db, actor: Actor) {
  return scopeClients(db.selectFrom('clients'), actor)
    .where('clients.affiliate_id', 'is not', null)
    .select([
      'clients.affiliate_id as affiliate_id',
      sql<string>`count(*)`.as('total_clients'),
      sql<
        string[]
      >`coalesce(array_agg(distinct trim(clients.campaign)) filter (where trim(clients.campaign) <> ''), '{}')`.as(
        'campaigns',
      ),
    ])
    .groupBy('clients.affiliate_id');
}

type AffiliateRow = {
  id: string | number;
  name: string;
  contact_person: string;
  contact_email: string;
  description: string;
  webhook_url: string | null;
  status: AffiliateStatus;
  has_signing_secret: boolean;
  total_clients: string | number | null;
  campaigns: string[] | null;
  token_prefix: string | null;
};

function toAffiliate(r: AffiliateRow): Affiliate {
  return {
    id: Number(r.id),
    name: r.name,
    contact_person: r.contact_person,
    contact_email: r.contact_email,
    description: r.description,
    webhook_url: r.webhook_url,
    status: r.status,
    total_clients: Number(r.total_clients ?? 0),
    campaigns: [...(r.campaigns ?? [])].sort((a, b) => a.localeCompare(b, 'ru', { sensitivity: 'base' })),
    api_token: r.token_prefix === null ? null : `${r.token_prefix}...`,
    has_signing_secret: r.has_signing_secret,
  };
}

function selectAffiliates(db: Db, actor: Actor) {
  return db
    .selectFrom('affiliates as a')
    .leftJoin(leadFigures(db, actor).as('f'), 'f.affiliate_id', 'a.id')
    .select([
      'a.id',
      'a.name',
      'a.contact_person',
      'a.contact_email',
      'a.description',
      'a.webhook_url',
      'a.status',
      sql<boolean>`a.signing_secret_enc is not null`.as('has_signing_secret'),
      'f.total_clients',
      'f.campaigns',
      // The newest live token's first 8 characters (§2.13: 'first 8 characters then ...').
      sql<string | null>`(select t.token_prefix from affiliate_tokens t
        where t.affiliate_id = a.id and t.revoked_at is null order by t.created_at desc, t.id desc limit 1)`.as(
        'token_prefix',
      ),
    ])
    .where('a.deleted_at', 'is', null);
}

/** GET /api/affiliates: the affiliates that are not deleted, oldest first. */
export async function listAffiliates(db: Db, actor: Actor): Promise<Affiliate[]> {
  const rows = await selectAffiliates(db, actor).orderBy('a.id').execute();
  return (rows as unknown as AffiliateRow[]).map(toAffiliate);
}

async function loadAffiliate(db: Db, actor: Actor, id: number): Promise<Affiliate> {
  const row = await selectAffiliates(db, actor).where('a.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404, 'affiliate_not_found');
  return toAffiliate(row as unknown as AffiliateRow);
}

/** GET /api/affiliates/{id}/stats: §3 'Affiliate stats' over its leads in scope, and the last 20 deliveries. */
export async function affiliateStats(db: Db, actor: Actor, id: number): Promise<AffiliateStats> {
  const affiliate = await db
    .selectFrom('affiliates')
    .select('name')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!affiliate) throw new HttpError(404, 'affiliate_not_found');
  const leads = scopeClients(db.selectFrom('clients'), actor).where('clients.affiliate_id', '=', id);
  const [byCampaign, deposits, deliveries] = await Promise.all([
    leads
      .select([
        sql<string>`trim(clients.campaign)`.as('campaign'),
        sql<string>`count(*)`.as('clients'),
        sql<string>`count(*) filter (where clients.ftd)`.as('ftd_clients'),
      ])
      .groupBy(sql`trim(clients.campaign)`)
      .orderBy(sql`count(*)`, 'desc')
      .orderBy(sql`trim(clients.campaign)`)
      .execute(),
    scopeClients(db.selectFrom('deposits as d').innerJoin('clients', 'clients.id', 'd.client_id'), actor)
      .where('clients.affiliate_id', '=', id)
      .where('d.deleted_at', 'is', null)
      .select([sql<string>`coalesce(sum(d.amount_cents), 0)`.as('sum'), sql<string>`count(*)`.as('count')])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('postback_events')
      .select(['id', 'created_at', 'event', 'status', 'last_status_code', 'attempts', 'last_attempt_at', 'last_error'])
      .where('affiliate_id', '=', id)
      .orderBy('id', 'desc')
      .limit(20)
      .execute(),
  ]);
  const total = byCampaign.reduce((n, r) => n + Number(r.clients), 0);
  const ftd = byCampaign.reduce((n, r) => n + Number(r.ftd_clients), 0);
  const campaigns = byCampaign
    .map((r) => r.campaign)
    .filter((c) => c !== '')
    .sort((a, b) => a.localeCompare(b, 'ru', { sensitivity: 'base' }));
  const count = Number(deposits.count);
  const sumCents = Number(deposits.sum);
  return {
    affiliate_name: affiliate.name,
    total_clients: total,
    ftd_clients: ftd,
    conversion_rate: total === 0 ? 0 : Math.round((ftd / total) * 1000) / 10,
    total_campaigns: campaigns.length,
    total_deposits: centsToDollars(deposits.sum),
    avg_deposit: count === 0 ? 0 : centsToDollars(Math.round(sumCents / count)),
    campaigns,
    campaign_breakdown: byCampaign.map((r) => ({
      campaign: r.campaign,
      clients: Number(r.clients),
      ftd_clients: Number(r.ftd_clients),
    })),
    deliveries: deliveries.map((d): PostbackDelivery => ({
      id: Number(d.id),
      created_at: iso(d.created_at)!,
      event: d.event,
      status: d.status,
      last_status_code: d.last_status_code,
      attempts: d.attempts,
      last_attempt_at: iso(d.last_attempt_at),
      last_error: d.last_error,
    })),
  };
}

/** The live affiliate locked for the transaction, or 404. */
async function lockAffiliate(trx: Db, id: number) {
  const row = await trx
    .selectFrom('affiliates')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'affiliate_not_found');
  return row;
}

/** A webhook URL that passes the rules of D17 (https, a public address) — the address is resolved now. */
async function checkWebhook(url: string, rules: OutboundRules): Promise<string> {
  try {
    return (await checkOutboundUrl(url, rules)).toString();
  } catch (err) {
    if (err instanceof OutboundUrlError) throw refusedUrl(err, 'webhook_url');
    throw err;
  }
}

/**
 * PUT /api/affiliates/{id}: the fields sent change. A new webhook URL is checked (D17) before the transaction; the
 * first one saved creates the signing secret, answered here once. Audited with what changed, never the secret.
 */
export async function updateAffiliate(
  deps: AffiliatesDeps,
  actor: Actor,
  id: number,
  input: AffiliateUpdate,
): Promise<AffiliateUpdateResponse> {
  const webhookInput = input.webhook_url === undefined ? undefined : (input.webhook_url ?? '').trim() || null;
  // A new URL is checked (and resolved) before the transaction; the one already saved is not re-checked here (each
  // delivery checks it), so a partner's DNS outage does not block editing the contact fields.
  const saved = await deps.db
    .selectFrom('affiliates')
    .select('webhook_url')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!saved) throw new HttpError(404, 'affiliate_not_found');
  const webhook =
    webhookInput && webhookInput !== saved.webhook_url ? await checkWebhook(webhookInput, deps.rules) : webhookInput;
  let secret: string | undefined;
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockAffiliate(trx, id);
    const next = {
      name: input.name,
      contact_person: input.contact_person ?? current.contact_person,
      contact_email: input.contact_email ?? current.contact_email,
      description: input.description ?? current.description,
      webhook_url: webhook === undefined ? current.webhook_url : webhook,
      status: input.status ?? current.status,
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== current[k]);
    const createSecret = next.webhook_url !== null && current.signing_secret_enc === null;
    if (createSecret) secret = newSigningSecret();
    if (changed.length === 0 && !createSecret) return;
    await trx
      .updateTable('affiliates')
      .set({
        ...next,
        ...(secret ? { signing_secret_enc: deps.vault.encryptSecret(secret, SIGNING_SECRET_PURPOSE) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
    await writeAudit(trx, actor, {
      action: 'affiliate.update',
      entityType: 'affiliate',
      entityId: id,
      before: Object.fromEntries(changed.map((k) => [k, current[k]])),
      after: { ...Object.fromEntries(changed.map((k) => [k, next[k]])), ...(secret ? { signing: 'created' } : {}) },
    });
  });
  const affiliate = await loadAffiliate(deps.db, actor, id);
  return secret ? { ...affiliate, signing_secret: secret } : affiliate;
}

/** POST /api/affiliates/{id}/rotate-secret: a new signing secret, answered this once; the old one stops at once. */
export async function rotateSigningSecret(
  deps: AffiliatesDeps,
  actor: Actor,
  id: number,
): Promise<{ signing_secret: string }> {
  const secret = newSigningSecret();
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockAffiliate(trx, id);
    if (!current.webhook_url) throw new HttpError(409, 'affiliate_no_webhook');
    await trx
      .updateTable('affiliates')
      .set({ signing_secret_enc: deps.vault.encryptSecret(secret, SIGNING_SECRET_PURPOSE), updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    await writeAudit(trx, actor, {
      action: 'affiliate.rotate_secret',
      entityType: 'affiliate',
      entityId: id,
      after: { name: current.name, signing: current.signing_secret_enc === null ? 'created' : 'rotated' },
    });
  });
  return { signing_secret: secret };
}

/**
 * DELETE /api/affiliates/{id}: soft delete. Its tokens are revoked at once (D17) and its undelivered postbacks
 * dropped; its leads keep affiliate_id, so they keep showing its name.
 */
export async function deleteAffiliate(db: Db, actor: Actor, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await lockAffiliate(trx, id);
    await trx
      .updateTable('affiliates')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    const revoked = await trx
      .updateTable('affiliate_tokens')
      .set({ revoked_at: sql`now()` })
      .where('affiliate_id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await trx
      .updateTable('postback_events')
      .set({ status: 'failed', last_error: 'the affiliate was deleted' })
      .where('affiliate_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    await writeAudit(trx, actor, {
      action: 'affiliate.delete',
      entityType: 'affiliate',
      entityId: id,
      before: { name: current.name, status: current.status, webhook_url: current.webhook_url },
      after: { deleted: true, credentials_revoked: Number(revoked.numUpdatedRows) },
    });
  });
}
