import type { z } from 'zod';

/**
 * A new password typed twice (the reset and invitation pages): the first field by the shared schema's rule (its
 * message translated), then the repetition must match. Returns the form's errors by field; {} when both are right.
 */
export function passwordPairErrors(
  values: { password: string; confirm: string },
  rule: z.ZodType,
  { translate, mismatch }: { translate: (message: string) => string; mismatch: string },
): Partial<Record<'password' | 'confirm', string>> {
  const checked = rule.safeParse(values.password);
  if (!checked.success) return { password: translate(checked.error.issues[0]?.message ?? 'required') };
  if (values.confirm !== values.password) return { confirm: mismatch };
  return {};
}
