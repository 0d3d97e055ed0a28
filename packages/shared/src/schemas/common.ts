import { z } from 'zod';

/** 'required' when the field is missing, 'invalid_type' when it is there with the wrong type. */
export const missingOrWrongType = (issue: { input?: unknown }) =>
  issue.input === undefined || issue.input === null ? 'required' : 'invalid_type';

/** A required, trimmed string with a length cap; messages are validation codes (see validation.ts). */
export const requiredText = (max: number) =>
  z
    .string({ error: missingOrWrongType })
    .trim()
    .min(1, { error: 'required' })
    .max(max, { error: `max_length:${max}` });

export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: `max_length:${max}` });

/** The longest e-mail address (RFC 5321's path limit less the brackets). */
export const EMAIL_MAX = 254;

export const emailField = z
  .string({ error: missingOrWrongType })
  .trim()
  .min(1, { error: 'required' })
  .max(EMAIL_MAX, { error: `max_length:${EMAIL_MAX}` })
  .pipe(z.email({ error: 'invalid_email' }))
  .transform((v) => v.toLowerCase());

export const passwordField = z
  .string({ error: missingOrWrongType })
  .min(1, { error: 'required' })
  .min(6, { error: 'min_length:6' })
  .max(128, { error: 'max_length:128' });

export const uuidParam = z.strictObject({ id: z.uuid({ error: 'invalid_value' }) });
export const intIdParam = z.strictObject({ id: z.coerce.number({ error: 'invalid_value' }).int().positive() });

export const pageQuery = {
  page: z.coerce.number().int().min(1).max(100000).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(50),
};

export const errorSchema = z.object({ detail: z.string(), code: z.string().optional() });

export const okSchema = z.object({ ok: z.literal(true) });

export const dateTime = z.string(); // ISO 8601, UTC
