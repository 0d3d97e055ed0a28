import { z } from 'zod';
import { ASSIGNABLE_STAFF_ROLES, ROLES } from '../roles.js';
import { emailField, passwordField, requiredText, missingOrWrongType } from './common.js';

export const roleSchema = z.enum(ROLES);

export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: roleSchema,
  department: z.enum(['sales', 'retention']).nullable(),
  phone: z.string().nullable(),
  created_at: z.string(),
});
export type User = z.infer<typeof userSchema>;

export const loginRequestSchema = z.strictObject({
  email: z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(254, { error: 'max_length:254' }),
  password: z.string({ error: missingOrWrongType }).min(1, { error: 'required' }).max(128, { error: 'max_length:128' }),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const sessionResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  user: userSchema,
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

export const meResponseSchema = userSchema.extend({
  demo: z.boolean().describe('true when the server runs with its demo data set'),
  business_timezone: z.string().describe('IANA zone in which the back office shows times (BUSINESS_TIMEZONE)'),
});

/** Staff creation from the staff page (§2.12). */
export const registerStaffRequestSchema = z.strictObject({
  name: requiredText(120),
  email: emailField,
  password: passwordField,
  role: z.enum(ASSIGNABLE_STAFF_ROLES, { error: 'invalid_role' }),
});
export type RegisterStaffRequest = z.infer<typeof registerStaffRequestSchema>;

/**
 * Public client registration (client-platform.md §2.3, §5). The order of the browser's checks is: passwords match,
 * e-mail, phone length, password length; the server checks the same fields.
 */
export const registerClientRequestSchema = z.strictObject({
  name: requiredText(120),
  email: emailField,
  phone: z
    .string()
    .trim()
    .max(32, { error: 'max_length:32' })
    .refine((v) => v === '' || v.replace(/[^\d]/g, '').length >= 10, { error: 'invalid_phone' })
    .optional(),
  password: passwordField,
});
export type RegisterClientRequest = z.infer<typeof registerClientRequestSchema>;

/** Web-only variant with the confirmation field, checked in the order of client-platform.md §5. */
export const loginFormSchema = loginRequestSchema;
