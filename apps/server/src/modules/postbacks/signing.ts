import { createHmac } from 'node:crypto';
import type { PostbackPayload } from './outbox.js';

/**
 * The postback signature of decisions.md D17 (the scheme Stripe and GitHub partners already verify):
 * `sha256=` + lowercase hex HMAC-SHA256, keyed with the signing secret string as shown (its UTF-8 bytes), over
 * `<X-Timestamp>.<raw body>`. A receiver recomputes it over the exact bytes it received and compares in constant time.
 */
export function postbackSignature(secret: string, timestamp: string, body: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestamp}.${body}`, 'utf8');
  return `sha256=${mac.digest('hex')}`;
}

/**
 * The body a partner receives: the event's stable id (the same in every retry, so a partner drops a delivery it
 * already has; issue 20 §11), then the payload's fields in the documented order (jsonb keeps its own key order).
 * The signature covers the body, so the id is signed.
 */
export function postbackBody(eventId: string, payload: PostbackPayload): string {
  return JSON.stringify({
    event_id: eventId,
    event: payload.event,
    client_id: payload.client_id,
    status: payload.status,
    ftd: payload.ftd,
    ...(payload.amount === undefined || payload.amount === null ? {} : { amount: Number(payload.amount) }),
    occurred_at: payload.occurred_at,
  });
}

/** The headers of one delivery signed at `at` (X-Timestamp in unix seconds); X-Event-Id repeats the body's event_id. */
export function postbackHeaders(secret: string, body: string, at: Date, eventId: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'Content-Type': 'application/json',
    'X-Event-Id': eventId,
    'X-Timestamp': timestamp,
    'X-Signature': postbackSignature(secret, timestamp, body),
  };
}
