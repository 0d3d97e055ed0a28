import { z } from 'zod';
import { missingOrWrongType, pageQuery } from './common.js';

/** Issue 22 §1: what a message in the outbox is in ('kept' = not sent: no SMTP_URL; listed on /crm/outbox). */
export const MAIL_STATUSES = ['kept', 'pending', 'sent', 'failed'] as const;
export const mailStatusSchema = z.enum(MAIL_STATUSES);
export type MailStatus = z.infer<typeof mailStatusSchema>;

export const MAIL_CATEGORIES = ['security', 'transactional', 'bulk'] as const;

/** GET /api/mail/outbox: newest first; `search` matches the recipient or the subject. */
export const mailOutboxQuerySchema = z.strictObject({
  ...pageQuery,
  status: mailStatusSchema.optional(),
  search: z.string().trim().max(200).optional(),
});
export type MailOutboxQuery = z.infer<typeof mailOutboxQuerySchema>;

export const mailOutboxItemSchema = z.object({
  id: z.number().int(),
  to: z.string(),
  subject: z.string(),
  template: z.string(),
  category: z.enum(MAIL_CATEGORIES),
  language: z.enum(['ru', 'en', 'kk']),
  status: mailStatusSchema,
  attempts: z.number().int(),
  /** The SMTP error of the last failed attempt (never a body or a link). */
  last_error: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
});
export type MailOutboxItem = z.infer<typeof mailOutboxItemSchema>;

export const mailOutboxResponseSchema = z.object({ items: z.array(mailOutboxItemSchema), total: z.number().int() });
export type MailOutboxResponse = z.infer<typeof mailOutboxResponseSchema>;

export const mailOutboxIdParam = z.object({ id: z.coerce.number().int().positive() });

/** GET /api/mail/outbox/:id: the message as rendered, with its extra headers (List-Unsubscribe …). */
export const mailOutboxDetailSchema = mailOutboxItemSchema.extend({
  text_body: z.string(),
  html_body: z.string(),
  headers: z.record(z.string(), z.string()),
});
export type MailOutboxDetail = z.infer<typeof mailOutboxDetailSchema>;

/** POST /api/mail/unsubscribe?token=: the link's token (the List-Unsubscribe URL, or the /unsubscribe page). */
export const mailUnsubscribeQuerySchema = z.strictObject({
  token: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(200, { error: 'max_length:200' }),
});
