import { z } from 'zod';
import { missingOrWrongType } from './common.js';

/**
 * Messages from staff to a client (back-office.md §2.15, §7; client-platform.md §2.7, §3, §7). A message belongs to
 * the client (CRM record) and to the client's platform user, who reads it on the trading screen and marks it read.
 */

export const CLIENT_MESSAGE_MAX = 2000;

/** POST /api/client-messages: the text is trimmed and must not be blank. */
export const sendClientMessageSchema = z.strictObject({
  client_id: z
    .number({ error: missingOrWrongType })
    .int({ error: 'invalid_value' })
    .positive({ error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' }),
  content: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(CLIENT_MESSAGE_MAX, { error: `max_length:${CLIENT_MESSAGE_MAX}` }),
});
export type SendClientMessageRequest = z.infer<typeof sendClientMessageSchema>;

/**
 * A message as both of the spec's client shapes read it (bell: message, read; panel: content, is_read), so either
 * screen takes the same answer. created_by_name is null for a message without a sender ('Support' on screen).
 */
export const clientMessageSchema = z.object({
  id: z.number().int(),
  content: z.string(),
  message: z.string(),
  created_by_name: z.string().nullable(),
  created_at: z.string(),
  read: z.boolean(),
  is_read: z.boolean(),
  read_at: z.string().nullable(),
});
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** What staff see in 'История сообщений': the client's messages with their sender and read state. */
export const staffClientMessageSchema = clientMessageSchema.extend({
  client_id: z.number().int(),
  created_by: z.string().nullable(),
});
export type StaffClientMessage = z.infer<typeof staffClientMessageSchema>;

export const messagesQuerySchema = z.strictObject({
  /** Newest first; the most recent `limit` messages. */
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type MessagesQuery = z.infer<typeof messagesQuerySchema>;

export const clientMessagesResponseSchema = z.array(clientMessageSchema);
export const staffClientMessagesResponseSchema = z.array(staffClientMessageSchema);
