import {
  acceptedSchema,
  invitationInfoSchema,
  loginResponseSchema,
  meResponseSchema,
  verifyEmailResponseSchema,
  type ProfileUpdate,
} from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import { siteApi } from '../../site/api';
import { authKeys } from './session';

/**
 * Issue 22: the calls of the e-mail flows — verifying an address, the password reset, the invitation of a staff
 * member, and the mail settings of the profile. Every answer is checked against the shared contract.
 */

/** POST /api/auth/verify-email: the link's token proves the address; the session (if any) is read again. */
export function useVerifyEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) =>
      apiCall(verifyEmailResponseSchema, '/api/auth/verify-email', { method: 'POST', body: { token } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authKeys.me }),
  });
}

/** POST /api/auth/verify-email/resend (a signed-in client): a new link to the address. */
export function useResendVerification() {
  return useMutation({
    mutationFn: () => apiCall(acceptedSchema, '/api/auth/verify-email/resend', { method: 'POST' }),
  });
}

/** POST /api/auth/password-reset: always the same answer, known address or not. */
export function usePasswordResetRequest() {
  return useMutation({
    mutationFn: (email: string) =>
      apiCall(acceptedSchema, '/api/auth/password-reset', { method: 'POST', body: { email } }),
  });
}

/** POST /api/auth/password-reset/confirm: the new password; every session of the user ends. */
export function usePasswordResetConfirm() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password: string }) =>
      apiCall(acceptedSchema, '/api/auth/password-reset/confirm', { method: 'POST', body }),
    // A session this browser had is over now: read /me again (it answers 401 → nobody signed in).
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authKeys.me }),
  });
}

export const emailFlowKeys = {
  invitation: (token: string) => ['auth', 'invitation', token] as const,
  /** The site content, for its contacts in the reset hint. */
  siteContent: ['auth', 'site-content'] as const,
};

/** GET /api/auth/invitation?token=: who is invited (or 400 link_invalid / link_used / link_expired). */
export function useInvitation(token: string) {
  return useQuery({
    queryKey: emailFlowKeys.invitation(token),
    queryFn: ({ signal }) => apiCall(invitationInfoSchema, '/api/auth/invitation', { query: { token }, signal }),
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
  });
}

/** POST /api/auth/invitation/accept: answers like /api/auth/login (a session, or a two-factor step). */
export function useAcceptInvitation() {
  return useMutation({
    mutationFn: (body: { token: string; password: string }) =>
      apiCall(loginResponseSchema, '/api/auth/invitation/accept', { method: 'POST', body }),
  });
}

/** PUT /api/auth/profile: the mail settings; the answer is the new /me. */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ProfileUpdate) => apiCall(meResponseSchema, '/api/auth/profile', { method: 'PUT', body }),
    onSuccess: (me) => queryClient.setQueryData(authKeys.me, me),
  });
}

/** POST /api/auth/email-change: a link to the new address; /me then shows it as pending. */
export function useChangeEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) =>
      apiCall(acceptedSchema, '/api/auth/email-change', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authKeys.me }),
  });
}

/** The site content's contacts for the 'forgot password' hint (absent when the content cannot be read). */
export function useSiteContacts() {
  return useQuery({
    queryKey: emailFlowKeys.siteContent,
    queryFn: siteApi.content,
    staleTime: 5 * 60_000,
    retry: false,
  });
}

/** The token of an e-mail link (`?token=`), '' when the address has none. */
export function linkToken(search: string): string {
  return new URLSearchParams(search).get('token')?.trim() ?? '';
}
