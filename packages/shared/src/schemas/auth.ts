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

/** Failed sign-in attempts on the account since its previous successful sign-in (issue 13 item 4). */
export const failedAttemptsSchema = z.object({
  count: z.number().int(),
  last_at: z.string(),
  last_ip: z.string().nullable(),
});
export type FailedAttempts = z.infer<typeof failedAttemptsSchema>;

export const sessionResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  user: userSchema,
  failed_attempts: failedAttemptsSchema
    .optional()
    .describe('Present when sign-in attempts failed since the previous successful sign-in'),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

/** A right password of a user who must enroll in two-factor sign-in: no session yet, a challenge for the next step. */
export const enrollmentRequiredSchema = z.object({ enrollment_required: z.literal(true), challenge: z.string() });
/** A right password of a user enrolled in two-factor sign-in: no session yet; send a code with the challenge. */
export const otpRequiredSchema = z.object({ otp_required: z.literal(true), challenge: z.string() });
export const loginResponseSchema = z.union([sessionResponseSchema, enrollmentRequiredSchema, otpRequiredSchema]);
export type LoginResponse = z.infer<typeof loginResponseSchema>;

const challengeField = z
  .string({ error: missingOrWrongType })
  .trim()
  .min(1, { error: 'required' })
  .max(200, { error: 'max_length:200' });
const codeField = z
  .string({ error: missingOrWrongType })
  .trim()
  .min(1, { error: 'required' })
  .max(40, { error: 'max_length:40' });

export const challengeRequestSchema = z.strictObject({ challenge: challengeField });
export const challengeCodeRequestSchema = z.strictObject({ challenge: challengeField, code: codeField });
export type ChallengeCodeRequest = z.infer<typeof challengeCodeRequestSchema>;

/** The one answer that carries a TOTP secret: the enrollment step (to scan or type into an authenticator). */
export const twoFactorSecretSchema = z.object({ secret: z.string(), otpauth_url: z.string() });
export type TwoFactorSecret = z.infer<typeof twoFactorSecretSchema>;

export const recoveryCodesSchema = z.object({
  recovery_codes: z.array(z.string()).describe('Ten one-time codes, shown once'),
});
export const enrollConfirmResponseSchema = sessionResponseSchema.extend(recoveryCodesSchema.shape);
export type EnrollConfirmResponse = z.infer<typeof enrollConfirmResponseSchema>;

/** Voluntary enrollment from the user menu: the current password again, then a code. */
export const twoFactorSetupRequestSchema = z.strictObject({
  password: z.string({ error: missingOrWrongType }).min(1, { error: 'required' }).max(128, { error: 'max_length:128' }),
});
export const twoFactorSetupConfirmSchema = z.strictObject({ code: codeField });
export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  required: z.boolean().describe('The role is in REQUIRE_2FA_ROLES'),
  recovery_codes_left: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

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
