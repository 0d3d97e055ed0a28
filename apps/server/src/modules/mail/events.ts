import { formatUsd } from '@brokerage/shared';
import type { Db } from '../../platform/db/index.js';
import type { MailLanguage, Trx } from '../../platform/db/types.js';
import type { Mailer } from './mailer.js';

/*
 * Issue 22 §5: the client mail of money events, written in the transaction of the event (so a rolled-back decision
 * sends nothing, and a committed one always has its message, whatever the SMTP server does afterwards).
 */

/** The client's own user (its address, name and mail language), or null for a lead without one (no mail then). */
async function clientRecipient(
  trx: Db | Trx,
  clientId: number,
): Promise<{ userId: string; email: string; name: string; language: MailLanguage } | null> {
  const row = await trx
    .selectFrom('clients as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['u.id', 'u.email', 'u.name', 'u.language'])
    .where('c.id', '=', clientId)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? { userId: row.id, email: row.email, name: row.name, language: row.language } : null;
}

/** withdrawal_approved / withdrawal_rejected (with the reason, when staff gave one) to the client. */
export async function mailWithdrawalDecision(
  trx: Db | Trx,
  mail: Mailer,
  input: { clientId: number; amountCents: number; cardLast4: string } & (
    { approved: true } | { approved: false; reason: string | null }
  ),
): Promise<void> {
  const to = await clientRecipient(trx, input.clientId);
  if (!to) return;
  const base = { to: to.email, userId: to.userId, language: to.language };
  const amount = formatUsd(input.amountCents);
  if (input.approved) {
    await mail.enqueue(trx, {
      ...base,
      template: 'withdrawal_approved',
      data: { name: to.name, amount, card_last4: input.cardLast4 },
    });
  } else {
    await mail.enqueue(trx, {
      ...base,
      template: 'withdrawal_rejected',
      data: { name: to.name, amount, reason: input.reason ?? '' },
    });
  }
}

/** deposit_credited to the client, when a deposit reaches the trading balance. */
export async function mailDepositCredited(
  trx: Db | Trx,
  mail: Mailer,
  input: { clientId: number; amountCents: number },
): Promise<void> {
  const to = await clientRecipient(trx, input.clientId);
  if (!to) return;
  await mail.enqueue(trx, {
    to: to.email,
    userId: to.userId,
    language: to.language,
    template: 'deposit_credited',
    data: { name: to.name, amount: formatUsd(input.amountCents) },
  });
}
