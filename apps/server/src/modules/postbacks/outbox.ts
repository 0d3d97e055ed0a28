import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { PostbackEvent, Trx } from '../../platform/db/types.js';

/** The postback body of decisions.md D13/D17: what a partner receives, signed, for one event of one of its leads. */
export interface PostbackPayload {
  event: PostbackEvent;
  client_id: number;
  status: string;
  ftd: boolean;
  /** Dollars with 2 decimals, for PURCHASE and ADD_TO_CART. */
  amount?: number;
  occurred_at: string;
}

/**
 * Writes a postback event to the outbox in the caller's transaction (D13): only for a lead whose affiliate has a
 * webhook URL and is not deleted; nothing otherwise. The payload carries the lead's status and ftd as they are in this
 * transaction, so call it after the change. The delivery worker (postbacks/jobs.ts) sends it after the commit.
 */
export async function enqueuePostback(
  trx: Db | Trx,
  input: { clientId: number | string; event: PostbackEvent; amountCents?: number; occurredAt?: Date },
): Promise<void> {
  const occurredAt = (input.occurredAt ?? new Date()).toISOString();
  const amount = input.amountCents === undefined ? null : (input.amountCents / 100).toFixed(2);
  await sql`
    insert into postback_events (affiliate_id, client_id, event, payload)
    select a.id, c.id, ${input.event},
           jsonb_strip_nulls(jsonb_build_object(
             'event', ${input.event}::text, 'client_id', c.id, 'status', c.status, 'ftd', c.ftd,
             'amount', ${amount}::numeric, 'occurred_at', ${occurredAt}::text))
    from clients c
    join affiliates a on a.id = c.affiliate_id
    where c.id = ${Number(input.clientId)} and a.webhook_url is not null and a.deleted_at is null`.execute(trx);
}
