import { z } from 'zod';
import { pageQuery } from './common.js';

export const auditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actor_id: z.string().nullable(),
  actor_name: z.string().nullable(),
  actor_role: z.string().nullable(),
  action: z.string(),
  entity_type: z.string().nullable(),
  entity_id: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** A calendar day; the ISO format admits year 0000, which PostgreSQL has not (it would fail in the query). */
const day = z.iso.date({ error: 'invalid_value' }).refine((v) => !v.startsWith('0000-'), { error: 'invalid_value' });

export const auditQuerySchema = z.strictObject({
  ...pageQuery,
  actor_id: z.uuid({ error: 'invalid_value' }).optional(),
  action: z.string().trim().max(64).optional(),
  date_from: day.optional(),
  date_to: day.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditResponseSchema = z.object({ items: z.array(auditEntrySchema), total: z.number().int() });
export type AuditResponse = z.infer<typeof auditResponseSchema>;

/** GET /api/audit/verify (issue 13): the tamper-evident chain walked from its first row. */
export const auditVerifyResponseSchema = z.object({
  /**
   * What the check found: `intact`; `broken` (tampered with: see `broken`); `not_anchored` (consistent in itself, but
   * no checkpoint outside the database to hold it against, so a cut-off tail could not be seen); `key_missing` or
   * `key_mismatch` (the rows past the switch to the keyed chain could not be checked with the key at hand; `broken`
   * then names the first of them, so a reader of `broken` alone never takes an unmade check for a pass).
   */
  status: z.enum(['intact', 'broken', 'not_anchored', 'key_missing', 'key_mismatch']),
  /** Rows verified, in chain order, before the first mismatch (all of them when `broken` is null). */
  verified: z.number().int(),
  /** The chain position (seq) of the last verified row; 0 for an empty log. */
  verified_up_to: z.number().int(),
  broken: z
    .object({
      /** The row at fault; null for a missing tail (issue 20 §7: its rows are gone, `seq` is the checkpoint's place). */
      id: z.string().nullable(),
      seq: z.string().nullable(),
      reason: z.enum(['content', 'prev_hash', 'seq_gap', 'unchained', 'checkpoint', 'missing_tail']),
    })
    .nullable(),
});
export type AuditVerifyResponse = z.infer<typeof auditVerifyResponseSchema>;

/** Every action the audit log records; the filter on /crm/audit offers these, labelled by the web. */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.register_client',
  'auth.2fa_enroll',
  'auth.2fa_login',
  'auth.2fa_failed',
  'auth.2fa_reset',
  'access.denied',
  'user.create',
  'user.update',
  'user.password_change',
  'user.delete',
  'ip_whitelist.add',
  'ip_whitelist.remove',
  'ip_whitelist.clear',
  'trade.void',
  'trade.void_request',
  'trade.void_reject',
  'trade.void_lapse',
  'trade.void_withdraw',
  'trading_account.create',
  'trading_account.balance_change',
  'trading_account.settings_update',
  'trading_account.block',
  'trading_account.activate',
  'withdrawal.approve',
  'withdrawal.first_approve',
  'withdrawal.reject',
  'withdrawal.card_reveal',
  'deposit_method.update',
  'client_message.send',
  'client.create',
  'client.update',
  'client.bulk_assign',
  'client.export',
  'client.register_user',
  'client.change_password',
  'client.verify_identity',
  'client.import',
  'deposit.create',
  'manual_credit.request',
  'manual_credit.confirm',
  'manual_credit.cancel',
  'deposit.update',
  'deposit.delete',
  'deposit.export',
  'comment.create',
  'comment.pin',
  'reminder.create',
  'reminder.update',
  'reminder.delete',
  'affiliate.update',
  'affiliate.rotate_secret',
  'affiliate.delete',
  'integration.test_connection',
  'affiliate_token.create',
  'affiliate_token.whitelist_update',
  'affiliate_token.delete',
  /** Issue 30 §4: `npm run admin -- verify-price-log` and what it found. */
  'price_log.verify',
  /** Issue 22 §2–§4: verified addresses, the mail settings, password reset, staff invitations. */
  'auth.email_verified',
  'auth.email_changed',
  'auth.email_change_requested',
  'auth.verify_email_resend',
  'auth.password_reset',
  'auth.invitation_accept',
  'user.profile_update',
  'user.invitation_resend',
  'user.invitation_revoke',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
