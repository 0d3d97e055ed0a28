import { sql } from 'kysely';
import { fourEyesApplies, needsSecondPerson } from '../../platform/access/four-eyes.js';
import type { Actor } from '../../platform/auth/actor.js';
import type { Trx } from '../../platform/db/types.js';

/**
 * D20 amended (issue 20 finding 3): the threshold MANUAL_CREDIT_SECOND_APPROVAL bounds what staff put on one client
 * in 24 hours without a second person, not one operation, so splitting a credit in parts gains nothing.
 */
export const CREDIT_WINDOW_HOURS = 24;

/**
 * The money staff put on this client in the last 24 hours that no second person confirmed, in cents, whoever the
 * authors were: staff balance raises and raises of credited deposits (the ledger's positive `adjustment` and
 * `deposit_correction` entries by a person, less those a confirmation posted, `manual-credit:<id>`), credited CRM
 * deposits whose crediting no one confirmed (`deposit:<id>`), and deposits recorded in the window that are not credited
 * yet but will be without anyone's confirmation (no account or identity yet, no manual credit). Money moved by the
 * command line or the seed (no actor) does not count. `exceptDepositId` leaves out an uncredited deposit being edited.
 * The caller holds the client row's lock, so two credits at once cannot both see the sum without the other.
 */
export async function unconfirmedCreditsCents(
  trx: Trx,
  clientId: number,
  options: { exceptDepositId?: number } = {},
): Promise<number> {
  const since = sql`now() - make_interval(hours => ${CREDIT_WINDOW_HOURS})`;
  const except = options.exceptDepositId ?? 0;
  const row = await sql<{ cents: string | number }>`
    select
      coalesce((
        select sum(e.amount_cents) from ledger_entries e
        where e.account_id in (select a.id from trading_accounts a where a.client_id = ${clientId})
          and e.created_at >= ${since} and e.actor_id is not null and e.amount_cents > 0
          and e.kind in ('adjustment', 'deposit', 'deposit_correction')
          and e.reference not like 'manual-credit:%'
          and not (e.kind = 'deposit' and exists (
            select 1 from manual_credits mc
            where mc.client_id = ${clientId} and mc.kind = 'deposit' and mc.status = 'confirmed'
              and e.reference = 'deposit:' || mc.deposit_id::text))
      ), 0)
      + coalesce((
        select sum(d.amount_cents) from deposits d
        where d.client_id = ${clientId} and d.deleted_at is null and d.credited_at is null
          and d.created_at >= ${since} and d.id <> ${except}
          and not exists (select 1 from manual_credits mc where mc.deposit_id = d.id)
      ), 0) as cents`.execute(trx);
  return Number(row.rows[0]?.cents ?? 0);
}

/**
 * Whether a staff credit of `cents` to this client has to wait for a second person (D20 amended): it would take the
 * client's unconfirmed staff credits of the last 24 hours above the threshold. 0 turns the rule off; the command line
 * and the seed (role 'system') are exempt. The caller holds the client row's lock.
 */
export async function creditWaits(
  trx: Trx,
  actor: Actor,
  clientId: number,
  cents: number,
  thresholdCents: number,
  options: { exceptDepositId?: number } = {},
): Promise<boolean> {
  if (!fourEyesApplies({ actor, cents, thresholdCents })) return false;
  if (cents > thresholdCents) return true; // above it on its own: the window need not be read
  const windowCents = await unconfirmedCreditsCents(trx, clientId, options);
  return needsSecondPerson({ actor, cents, windowCents, thresholdCents });
}

/** Locks the client row of a trading account (the order every deposit write takes: client, then account). */
export async function lockClientOfAccount(trx: Trx, accountId: number): Promise<number> {
  const account = await trx
    .selectFrom('trading_accounts')
    .select('client_id')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const clientId = Number(account.client_id);
  await trx.selectFrom('clients').select('id').where('id', '=', clientId).forUpdate().execute();
  return clientId;
}
