import { z } from 'zod';
import { missingOrWrongType } from './common.js';

/**
 * Messages from staff to a client (back-office.md §2.15, §7; client-platform.md §2.7, §3, §7). A message belongs to
 * the client (CRM record) and to the client's platform user, who reads it on the trading screen and marks it read.
 */

export const CLIENT_MESSAGE_MAX = 2000;
/** Issue 22 §6: a client's message to the broker ('Поддержка') may be longer. */
export const SUPPORT_MESSAGE_MAX = 4000;
/** Issue 22 §6: how many messages a client may write to the broker in an hour. */
export const SUPPORT_MESSAGES_PER_HOUR = 30;

/** Who wrote a message: staff to the client (§2.15), or the client to the broker (issue 22 §6). */
export const MESSAGE_DIRECTIONS = ['staff', 'client'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

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

/** POST /api/my-messages (issue 22 §6): the client writes to the broker; trimmed, 1–4000 characters. */
export const sendMyMessageSchema = z.strictObject({
  text: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(SUPPORT_MESSAGE_MAX, { error: `max_length:${SUPPORT_MESSAGE_MAX}` }),
});
export type SendMyMessageRequest = z.infer<typeof sendMyMessageSchema>;

/**
 * A message as both of the spec's client shapes read it (bell: message, read; panel: content, is_read), so either
 * screen takes the same answer. created_by_name is null for a message without a sender ('Support' on screen).
 * `direction` (issue 22 §6): 'staff' = from the broker to the client (read = the client read it); 'client' = from the
 * client to the broker (created_by_name is the client's; read = staff read it).
 */
export const clientMessageSchema = z.object({
  id: z.number().int(),
  direction: z.enum(MESSAGE_DIRECTIONS),
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

/**
 * GET /api/inbox (issue 22 §6, 'Входящие'): one row per client in the viewer's scope (D5) with unread messages from
 * the client, newest first.
 */
export const inboxConversationSchema = z.object({
  client_id: z.number().int(),
  client_name: z.string(),
  manager_id: z.string().nullable(),
  manager_name: z.string().nullable(),
  unread_count: z.number().int(),
  last_message_at: z.string(),
  last_text: z.string(),
});
export type InboxConversation = z.infer<typeof inboxConversationSchema>;
export const inboxResponseSchema = z.array(inboxConversationSchema);

/** PUT /api/inbox/:clientId/read: how many of the client's messages this call marked read. */
export const inboxReadResponseSchema = z.object({ ok: z.literal(true), read: z.number().int() });
export type InboxReadResponse = z.infer<typeof inboxReadResponseSchema>;
