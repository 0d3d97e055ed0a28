import {
  DEPOSIT_INTENTS_PER_HOUR,
  DEPOSIT_INTENT_MAX_DOLLARS,
  DEPOSIT_INTENT_MIN_DOLLARS,
  centsToDollars,
  dollarsToCents,
  type DepositIntent,
  type DepositIntentRequest,
  type DepositIntentsResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { HttpError } from '../../platform/http/errors.js';
import { notifyDepositIntent } from '../notifications/service.js';
import { requireVerifiedEmail } from '../auth/email-verification.js';

/**
 * Deposit intents (decision D21, changing client-platform.md §2.5): when a client confirms a top-up, the payment
 * details are shown as before and the intent (amount, method) is stored and told to the client's manager, or to the
 * retention team leads when the client has none, so a person follows up. Not money: no balance, no ledger entry.
 */
export interface DepositIntentDeps {
  db: Db;
  now: () => Date;
}

const HOUR_MS = 3600_000;

type Row = {
  id: string | number;
  client_id: string | number;
  amount_cents: string | number;
  method_id: string | number | null;
  method_title: string;
  created_at: Date | string;
};

function toIntent(r: Row): DepositIntent {
  return {
    id: Number(r.id),
    client_id: Number(r.client_id),
    amount: centsToDollars(r.amount_cents),
    method_id: r.method_id === null ? null : Number(r.method_id),
    method_title: r.method_title,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The refusal, with the seconds to wait, when the client made DEPOSIT_INTENTS_PER_HOUR intents in the last hour. */
const intentRateLimited = (retryAfterSeconds: number) => new HttpError(429, 'rate_limited', {}, retryAfterSeconds);

export async function createDepositIntent(
  deps: DepositIntentDeps,
  userId: string,
  input: DepositIntentRequest,
): Promise<DepositIntent> {
  if (!(input.amount >= DEPOSIT_INTENT_MIN_DOLLARS))
    throw new HttpError(400, 'deposit_intent_amount_too_small', { min: `$${DEPOSIT_INTENT_MIN_DOLLARS}` });
  if (input.amount > DEPOSIT_INTENT_MAX_DOLLARS)
    throw new HttpError(400, 'deposit_intent_amount_too_large', { max: `$${DEPOSIT_INTENT_MAX_DOLLARS}` });
  const amountCents = dollarsToCents(input.amount);
  if (amountCents === null) throw new HttpError(400, 'deposit_intent_amount_invalid');

  return deps.db.transaction().execute(async (trx) => {
    const account = await trx
      .selectFrom('trading_accounts')
      .select(['client_id'])
      .where('user_id', '=', userId)
      // One client's intents are counted one request at a time, so ten parallel posts cannot make twenty.
      .forUpdate()
      .executeTakeFirst();
    if (!account) throw new HttpError(404, 'trading_account_not_found');
    // Issue 22 §2: a top-up request needs a verified e-mail address.
    await requireVerifiedEmail(trx, userId);
    const method = await trx
      .selectFrom('deposit_methods')
      .select(['id', 'title', 'enabled'])
      .where('id', '=', input.method_id)
      .executeTakeFirst();
    if (!method || !method.enabled) throw new HttpError(404, 'deposit_method_not_found');

    const now = deps.now();
    const since = new Date(now.getTime() - HOUR_MS);
    const recent = await trx
      .selectFrom('deposit_intents')
      .where('user_id', '=', userId)
      .where('created_at', '>', since)
      .select([sql<string>`count(*)`.as('n'), sql<Date | string | null>`min(created_at)`.as('oldest')])
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= DEPOSIT_INTENTS_PER_HOUR) {
      const oldest = new Date(recent.oldest!).getTime();
      throw intentRateLimited(Math.max(1, Math.ceil((oldest + HOUR_MS - now.getTime()) / 1000)));
    }

    const row = await trx
      .insertInto('deposit_intents')
      .values({
        client_id: account.client_id,
        user_id: userId,
        amount_cents: amountCents,
        method_id: method.id,
        method_title: method.title,
        created_at: now,
      })
      .returning(['id', 'client_id', 'amount_cents', 'method_id', 'method_title', 'created_at'])
      .executeTakeFirstOrThrow();
    await notifyDepositIntent(trx, {
      intentId: row.id,
      clientId: row.client_id,
      amountCents,
      methodTitle: method.title,
    });
    return toIntent(row as Row);
  });
}

/** The card's list (CRM): the intents of one client in the caller's scope (D5), newest first; 404 outside it. */
export async function listClientDepositIntents(
  deps: DepositIntentDeps,
  actor: Actor,
  clientId: number,
  page: { page: number; per_page: number },
): Promise<DepositIntentsResponse> {
  const visible = await scopeClients(deps.db.selectFrom('clients'), actor)
    .select('clients.id')
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!visible) throw new HttpError(404, 'client_not_found');
  const base = deps.db.selectFrom('deposit_intents').where('client_id', '=', clientId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'client_id', 'amount_cents', 'method_id', 'method_title', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.per_page)
      .offset((page.page - 1) * page.per_page)
      .execute(),
  ]);
  return { items: (rows as Row[]).map(toIntent), total: Number(total) };
}
