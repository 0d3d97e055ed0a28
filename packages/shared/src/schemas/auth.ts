import { z } from 'zod';
import { ASSIGNABLE_STAFF_ROLES, ROLES } from '../roles.js';
import { emailField, passwordField, requiredText, missingOrWrongType } from './common.js';

export const roleSchema = z.enum(ROLES);

export const userSchema = z.object({
  id: z.string(),
  /** client-platform.md §3: a client's short account number (shown as its ID); null for staff. */
  platform_id: z.string().nullable(),
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

/** Issue 22: the languages of mail (a client's is the one they registered in; staff mail is Russian). */
export const MAIL_LANGUAGES = ['ru', 'en', 'kk'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];
export const mailLanguageSchema = z.enum(MAIL_LANGUAGES, { error: 'invalid_language' });

export const meResponseSchema = userSchema.extend({
  demo: z.boolean().describe('true when the server runs with its demo data set'),
  business_timezone: z.string().describe('IANA zone in which the back office shows times (BUSINESS_TIMEZONE)'),
  email_verified: z
    .boolean()
    .describe('The address was proven by its link (issue 22); older accounts count as verified'),
  pending_email: z
    .string()
    .nullable()
    .describe('A new address waiting for its link to be opened (it replaces `email` then); null when none'),
  language: mailLanguageSchema.describe('The language of this user’s mail'),
  mail_opt_out: z.boolean().describe('Only security mail is sent'),
  digest_opt_in: z.boolean().describe('Staff: the daily e-mail of due reminders'),
});
export type MeResponse = z.infer<typeof meResponseSchema>;

/** Issue 22: a link token from an e-mail (verification, reset, invitation, unsubscribe). */
const linkTokenField = z
  .string({ error: missingOrWrongType })
  .trim()
  .min(1, { error: 'required' })
  .max(200, { error: 'max_length:200' });

/** POST /api/auth/verify-email. */
export const verifyEmailRequestSchema = z.strictObject({ token: linkTokenField });
/** POST /api/auth/verify-email → 200: the address now verified. */
export const verifyEmailResponseSchema = z.object({ ok: z.literal(true), email: z.string() });
/** 202 answers of the mail-sending routes (resend, reset request, e-mail change, invitation resend). */
export const acceptedSchema = z.object({ ok: z.literal(true) });

/** POST /api/auth/password-reset: always 202 with the same body, known address or not. */
export const passwordResetRequestSchema = z.strictObject({ email: loginRequestSchema.shape.email });
/** POST /api/auth/password-reset/confirm → 200 {ok}: every session of the user ends, the sign-in delays lift. */
export const passwordResetConfirmSchema = z.strictObject({ token: linkTokenField, password: passwordField });

/** PUT /api/auth/profile (any signed-in user): the mail settings; answers GET /api/auth/me's shape. */
export const profileUpdateSchema = z
  .strictObject({
    language: mailLanguageSchema.optional(),
    mail_opt_out: z.boolean({ error: missingOrWrongType }).optional(),
    digest_opt_in: z.boolean({ error: missingOrWrongType }).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { error: 'empty_update' });
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

/** POST /api/auth/email-change (clients): the new address gets a link; the old one is told. 202. */
export const emailChangeRequestSchema = z.strictObject({
  email: emailField,
  password: twoFactorSetupRequestSchema.shape.password,
});

/** GET /api/auth/invitation?token= (public): who is invited, for the page that sets the password. */
export const invitationQuerySchema = z.strictObject({ token: linkTokenField });
export const invitationInfoSchema = z.object({
  name: z.string(),
  email: z.string(),
  role: roleSchema,
  two_factor_required: z.boolean().describe('The role must enroll in two-factor sign-in after setting the password'),
});
/** POST /api/auth/invitation/accept: sets the password; answers like /api/auth/login (a session or a 2FA step). */
export const invitationAcceptSchema = z.strictObject({ token: linkTokenField, password: passwordField });

/** Staff creation from the staff page (§2.12). */
export const registerStaffRequestSchema = z.strictObject({
  name: requiredText(120),
  email: emailField,
  /** Issue 22 §4: left out (or empty), the member is invited by e-mail to set their own password. */
  password: z.preprocess((v) => (v === '' || v === null ? undefined : v), passwordField.optional()),
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
  /** Issue 22: the language of the client's mail (the web sends the site's language); 'ru' when left out. */
  language: mailLanguageSchema.optional(),
});
export type RegisterClientRequest = z.infer<typeof registerClientRequestSchema>;

/** Web-only variant with the confirmation field, checked in the order of client-platform.md §5. */
export const loginFormSchema = loginRequestSchema;
