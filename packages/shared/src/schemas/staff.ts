import { z } from 'zod';
import { ASSIGNABLE_STAFF_ROLES, STAFF_ROLES } from '../roles.js';
import { emailField, pageQuery, passwordField, requiredText } from './common.js';

export const staffMemberSchema = z.object({
  id: z.string(),
  name: z.string(),
  full_name: z.string(),
  email: z.string(),
  role: z.enum(STAFF_ROLES),
  department: z.enum(['sales', 'retention']).nullable(),
  created_at: z.string(),
  clients_count: z.number().int(),
  /** Clients assigned now with a deposit or a comment in the last 30 days (issue 11; decisions.md). */
  active_clients_count: z.number().int(),
  /** Issue 22 §4: invited, and has not set a password yet ('приглашён'). */
  invited: z.boolean(),
  /** When the newest invitation link runs out (null: not invited, or no live link). */
  invitation_expires_at: z.string().nullable(),
});
export type StaffMember = z.infer<typeof staffMemberSchema>;

export const usersQuerySchema = z.strictObject({
  ...pageQuery,
  search: z.string().trim().max(120).optional(),
  role: z.enum(STAFF_ROLES).optional(),
});
export type UsersQuery = z.infer<typeof usersQuerySchema>;

export const usersResponseSchema = z.object({
  items: z.array(staffMemberSchema),
  total: z.number().int(),
  summary: z.object({
    total: z.number().int(),
    managers: z.number().int(),
    admins: z.number().int(),
    superadmins: z.number().int(),
    /**
     * Live staff holding finance.approve (issue 20 finding 4): with fewer than two, a payout above
     * WITHDRAWAL_SECOND_APPROVAL, or a manual credit, can have nobody left to give its second approval.
     */
    finance_approvers: z.number().int(),
  }),
});
export type UsersResponse = z.infer<typeof usersResponseSchema>;

export const staffListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  full_name: z.string(),
  role: z.enum(STAFF_ROLES),
  department: z.enum(['sales', 'retention']).nullable(),
});
export const staffListResponseSchema = z.array(staffListItemSchema);
export type StaffListItem = z.infer<typeof staffListItemSchema>;

export const updateUserRequestSchema = z.strictObject({
  name: requiredText(120),
  email: emailField,
  role: z.enum(ASSIGNABLE_STAFF_ROLES, { error: 'invalid_role' }),
});
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;

export const changePasswordRequestSchema = z.strictObject({ new_password: passwordField });
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;

/** §5: a generated password is 12 characters from a 70-character alphabet. */
export const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*';
export function generatePassword(random: (n: number) => number, length = 12): string {
  let out = '';
  for (let i = 0; i < length; i++) out += PASSWORD_ALPHABET[random(PASSWORD_ALPHABET.length)];
  return out;
}
