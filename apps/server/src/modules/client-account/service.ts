import {
  centsToDollars,
  type ClientSummary,
  type RegisterClientUser,
  type RegisterClientUserResponse,
  type VerifyIdentityResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { creditPendingDepositsTotal } from '../ledger/pending-deposits.js';
import { publishBalanceChanged } from '../ledger/live.js';
import type { EventBus } from '../../platform/bus/index.js';
import { openTradingAccount } from '../trading/service.js';
import { enqueuePostback } from '../postbacks/outbox.js';
import { mailDepositCredited } from '../mail/events.js';
import type { Mailer } from '../mail/mailer.js';
import { sendVerification } from '../auth/email-verification.js';

/**
 * The client card's platform user (back-office.md §2.6, §7, §8): 'Register user', 'Change password', and the card's
 * statistics sidebar with its trading account and first withdrawal requests. Every call goes through the client scope
 * (D5): a client outside it answers 404 like a missing one. Writes are audited in their transaction (D9).
 */

async function lockClientInScope(trx: Db, actor: Actor, clientId: number) {
  const client = await scopeClients(trx.selectFrom('clients'), actor)
    .select(['clients.id', 'clients.user_id', 'clients.name', 'clients.email'])
    .where('clients.id', '=', clientId)
    .forUpdate()
    .executeTakeFirst();
  if (!client) throw new HttpError(404, 'client_not_found');
  return client;
}

/**
 * POST /api/clients/:id/register-user: creates the client user (role client), links it to the client and opens its
 * trading account with balance 0, in one transaction. When the e-mail is already registered (§8 'Email already
 * registered'), only the trading account is created, linked to that existing user — provided it is a live client
 * user not linked to another client; otherwise 409 with §8's 'User exists, but failed to create trading account'.
 * Issue 20 finding 1: the staff member chose the e-mail and the password, so the login proves nothing about who holds
 * it. It is unverified exactly like a self-registration linked to a lead: the client's recorded deposits stay
 * uncredited and withdrawals are refused until a finance approver other than its creator confirms the identity
 * (clients.login_created_by says who created it; recentInvolvement counts it for 30 days).
 */
export async function registerClientUser(
  db: Db,
  actor: Actor,
  clientId: number,
  input: RegisterClientUser,
  mail?: Mailer,
): Promise<RegisterClientUserResponse> {
  const passwordHash = await hashPassword(input.password);
  return db
    .transaction()
    .execute(async (trx) => {
      const client = await lockClientInScope(trx, actor, clientId);
      if (client.user_id) throw new HttpError(409, 'client_already_registered');
      const existing = await trx
        .selectFrom('users')
        .select(['id', 'role'])
        .where(sql`lower(email)`, '=', input.email.toLowerCase())
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      let userId: string;
      let outcome: RegisterClientUserResponse['outcome'];
      if (existing) {
        const linked =
          (await trx.selectFrom('clients').select('id').where('user_id', '=', existing.id).executeTakeFirst()) ??
          (await trx.selectFrom('trading_accounts').select('id').where('user_id', '=', existing.id).executeTakeFirst());
        if (existing.role !== 'client' || linked) throw new HttpError(409, 'email_registered_unlinkable');
        userId = existing.id;
        outcome = 'linked_existing_user';
      } else {
        const phone = input.phone?.trim() ?? '';
        const created = await trx
          .insertInto('users')
          .values({
            email: input.email,
            name: input.name,
            role: 'client',
            department: null,
            phone: phone || null,
            password_hash: passwordHash,
            deleted_at: null,
            last_login_at: null,
          })
          .returning(['id', 'name', 'email', 'language'])
          .executeTakeFirstOrThrow();
        userId = created.id;
        outcome = 'created';
        // Issue 22 §2: the staff member typed the address, which proves nothing: it stays unverified (no withdrawal or
        // top-up request until then) and the client gets the link to verify it.
        if (mail) await sendVerification(trx, mail, created, created.email, actor.ip);
      }
      await trx
        .updateTable('clients')
        .set({
          user_id: userId,
          registration_date: sql`now()`,
          updated_at: sql`now()`,
          identity_verified: false,
          identity_verified_at: null,
          identity_verified_by: null,
          login_created_by: actor.id,
        })
        .where('id', '=', clientId)
        .execute();
      const accountId = await openTradingAccount(trx, { clientId, userId });
      // D13/D17: an affiliate's lead became a platform user.
      await enqueuePostback(trx, { clientId, event: 'REGISTRATION' });
      await writeAudit(trx, actor, {
        action: 'client.register_user',
        entityType: 'client',
        entityId: clientId,
        before: { user_id: null },
        after: {
          user_id: userId,
          email: input.email,
          outcome,
          trading_account_id: accountId,
          identity_verified: false,
        },
      });
      return { outcome, user_id: userId, trading_account_id: accountId, identity_verified: false };
    })
    .catch((err: unknown) => {
      // Two registrations raced for the same e-mail: the unique index decided.
      if (isUniqueViolation(err)) throw new HttpError(409, 'email_registered_unlinkable');
      throw err;
    });
}

/**
 * PUT /api/clients/:id/change-password: sets the client user's password and ends its sessions, so whoever knew the
 * old one is signed out.
 */
export async function changeClientPassword(
  db: Db,
  actor: Actor,
  clientId: number,
  newPassword: string,
  mail?: Mailer,
): Promise<{ ok: true }> {
  const passwordHash = await hashPassword(newPassword);
  await db.transaction().execute(async (trx) => {
    const client = await lockClientInScope(trx, actor, clientId);
    if (!client.user_id) throw new HttpError(409, 'client_not_registered');
    const updated = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: sql`now()` })
      .where('id', '=', client.user_id)
      .where('role', '=', 'client')
      .where('deleted_at', 'is', null)
      .returning(['id', 'name', 'email', 'language'])
      .executeTakeFirst();
    if (!updated) throw new HttpError(409, 'client_not_registered');
    // Issue 22 §3: the owner hears of every password change.
    await mail?.enqueue(trx, {
      to: updated.email,
      userId: updated.id,
      template: 'password_changed',
      language: updated.language,
      data: { name: updated.name },
    });
    await trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', client.user_id)
      .where('revoked_at', 'is', null)
      .execute();
    await writeAudit(trx, actor, {
      action: 'client.change_password',
      entityType: 'client',
      entityId: clientId,
      after: { user_id: client.user_id },
    });
  });
  return { ok: true };
}

/** GET /api/clients/:id/summary: the statistics sidebar (§2.6), the trading account and the first 3 requests. */
export async function clientSummary(db: Db, actor: Actor, clientId: number): Promise<ClientSummary> {
  const client = await scopeClients(db.selectFrom('clients'), actor)
    .select(['clients.id', 'clients.user_id', 'clients.ftd'])
    .where('clients.id', '=', clientId)
    .executeTakeFirst();
  if (!client) throw new HttpError(404, 'client_not_found');
  const [deposits, withdrawalCount, account, withdrawals, platformUser] = await Promise.all([
    db
      .selectFrom('deposits')
      .select([sql<string>`coalesce(sum(amount_cents), 0)`.as('sum'), sql<string>`count(*)`.as('count')])
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('withdraw_requests')
      .select(sql<string>`count(*)`.as('count'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow(),
    db.selectFrom('trading_accounts').select('id').where('client_id', '=', clientId).executeTakeFirst(),
    db
      .selectFrom('withdraw_requests')
      .select(['id', 'amount_cents', 'status', 'created_at', 'card_last4'])
      .where('client_id', '=', clientId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(3)
      .execute(),
    client.user_id
      ? db.selectFrom('users').select('platform_id').where('id', '=', client.user_id).executeTakeFirst()
      : Promise.resolve(undefined),
  ]);
  return {
    deposit_sum: centsToDollars(deposits.sum),
    deposit_count: Number(deposits.count),
    withdrawal_count: Number(withdrawalCount.count),
    ftd: client.ftd,
    registered: client.user_id !== null,
    trading_account_id: account ? Number(account.id) : null,
    platform_id: platformUser?.platform_id ?? null,
    withdrawals: withdrawals.map((w) => ({
      id: Number(w.id),
      amount: centsToDollars(w.amount_cents),
      status: w.status,
      created_at: new Date(w.created_at).toISOString(),
      card_last4: w.card_last4,
    })),
  };
}

/**
 * POST /api/clients/:id/verify-identity (finance.approve, issue 9 finding 1): a finance approver confirms that the
 * platform user linked to this lead is the lead. The lead's deposits that waited are then credited to its trading
 * account through the ledger, once each (reference deposit:<id>), in the same transaction; withdrawals open. Whoever
 * created the login on the card cannot confirm it (409 identity_verifier_created_login, issue 20 finding 1).
 */
export async function verifyClientIdentity(
  deps: { db: Db; bus?: EventBus; mail?: Mailer },
  actor: Actor,
  clientId: number,
): Promise<VerifyIdentityResponse> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const client = await scopeClients(trx.selectFrom('clients'), actor)
      .select(['clients.id', 'clients.user_id', 'clients.identity_verified', 'clients.login_created_by'])
      .where('clients.id', '=', clientId)
      .forUpdate()
      .executeTakeFirst();
    if (!client) throw new HttpError(404, 'client_not_found');
    if (client.identity_verified) throw new HttpError(409, 'identity_already_verified');
    if (client.login_created_by !== null && client.login_created_by === actor.id) {
      throw new HttpError(409, 'identity_verifier_created_login');
    }
    await trx
      .updateTable('clients')
      .set({
        identity_verified: true,
        identity_verified_at: sql`now()`,
        identity_verified_by: actor.id,
        updated_at: sql`now()`,
      })
      .where('id', '=', clientId)
      .execute();
    const account = await trx
      .selectFrom('trading_accounts')
      .select('id')
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    // D20: deposits whose crediting waits for a second person stay uncredited (creditPendingDepositsTotal skips them).
    const total = account
      ? await creditPendingDepositsTotal(trx, clientId, Number(account.id))
      : { count: 0, cents: 0 };
    const credited = total.count;
    const creditedCents = total.cents;
    // Issue 22 §5: the client is told the money reached the trading balance.
    if (deps.mail && creditedCents > 0)
      await mailDepositCredited(trx, deps.mail, { clientId, amountCents: creditedCents });
    await writeAudit(trx, actor, {
      action: 'client.verify_identity',
      entityType: 'client',
      entityId: clientId,
      before: { identity_verified: false },
      after: {
        identity_verified: true,
        user_id: client.user_id,
        credited_deposits: credited,
        credited_amount: centsToDollars(creditedCents),
      },
    });
    return {
      accountId: account ? Number(account.id) : null,
      body: {
        client_id: clientId,
        identity_verified: true as const,
        credited_deposits: credited,
        credited_amount: centsToDollars(creditedCents),
      },
    };
  });
  if (deps.bus && result.accountId !== null && result.body.credited_deposits > 0) {
    await publishBalanceChanged(deps.db, deps.bus, [result.accountId]);
  }
  return result.body;
}
