import { z } from 'zod';
import { missingOrWrongType, optionalText } from './common.js';

export const ipWhitelistEntrySchema = z.object({
  id: z.number().int(),
  ip_address: z.string(),
  description: z.string(),
  created_at: z.string(),
  created_by_name: z.string().nullable(),
});
export type IpWhitelistEntry = z.infer<typeof ipWhitelistEntrySchema>;

export const ipWhitelistResponseSchema = z.object({
  items: z.array(ipWhitelistEntrySchema),
  /** The caller's address as the server sees it, so the screen can warn before a lock-out. */
  your_ip: z.string(),
});

/** IPv4 or IPv6, with an optional CIDR prefix; the server normalises and checks it (validation code invalid_ip). */
export const createIpRequestSchema = z.strictObject({
  ip_address: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(64, { error: 'invalid_ip' }),
  description: optionalText(200).optional().default(''),
});
export type CreateIpRequest = z.infer<typeof createIpRequestSchema>;
