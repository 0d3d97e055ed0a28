import i18n from 'i18next';
import { ApiError } from '../../lib/api';

/** Issue 22: the codes of the e-mail flows whose text the client side has in ru/en/kk (platform:emailFlows.errors). */
export const EMAIL_FLOW_CODES = [
  'link_invalid',
  'link_used',
  'link_expired',
  'email_taken',
  'email_already_verified',
  'resend_too_soon',
  'resend_daily_limit',
  'email_unverified',
  'password_wrong',
  'password_reset_limited',
] as const;
export type EmailFlowCode = (typeof EMAIL_FLOW_CODES)[number];

export function isEmailFlowCode(code: unknown): code is EmailFlowCode {
  return typeof code === 'string' && (EMAIL_FLOW_CODES as readonly string[]).includes(code);
}

/**
 * The text for a refusal of an e-mail flow: a known code in the interface language (the server's details are ru/en;
 * the client side also speaks kk), else the server's detail, else `fallback`. Also for the top-up and withdrawal
 * forms: their 409 `email_unverified` reads as a hint to open the link.
 */
export function emailFlowErrorText(error: unknown, fallback: string): string {
  if (error instanceof ApiError) {
    if (isEmailFlowCode(error.code)) return i18n.t(`platform:emailFlows.errors.${error.code}`);
    if (error.detail) return error.detail;
  }
  return fallback;
}

/** A link that can no longer work (used, expired, unknown): the page offers to get a new one. */
export function isDeadLink(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.code === 'link_invalid' || error.code === 'link_used' || error.code === 'link_expired')
  );
}
