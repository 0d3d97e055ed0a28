import {
  enrollConfirmResponseSchema,
  recoveryCodesSchema,
  sessionResponseSchema,
  twoFactorSecretSchema,
  twoFactorStatusSchema,
  type ChallengeCodeRequest,
  type FailedAttempts,
} from '@brokerage/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { apiCall } from '../../../lib/api';
import { queryClient } from '../../../lib/query-client';

/** Staff two-factor sign-in (issue 13): the sign-in steps after the password, and enrollment from the user menu. */

export const twoFactorKeys = {
  status: ['auth', '2fa'] as const,
  enroll: (challenge: string) => ['auth', '2fa', 'enroll', challenge] as const,
};

/** POST /api/auth/login/otp: a TOTP or recovery code with the password step's challenge. */
export function useOtpLogin() {
  return useMutation({
    mutationFn: (body: ChallengeCodeRequest) =>
      apiCall(sessionResponseSchema, '/api/auth/login/otp', { method: 'POST', body }),
  });
}

/** POST /api/auth/2fa/enroll: the secret and otpauth URL for a must-enroll sign-in. */
export function useEnrollSecret(challenge: string) {
  return useQuery({
    queryKey: twoFactorKeys.enroll(challenge),
    queryFn: () => apiCall(twoFactorSecretSchema, '/api/auth/2fa/enroll', { method: 'POST', body: { challenge } }),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
  });
}

export function useEnrollConfirm() {
  return useMutation({
    mutationFn: (body: ChallengeCodeRequest) =>
      apiCall(enrollConfirmResponseSchema, '/api/auth/2fa/confirm', { method: 'POST', body }),
  });
}

export function useTwoFactorStatus(enabled: boolean) {
  return useQuery({
    queryKey: twoFactorKeys.status,
    queryFn: () => apiCall(twoFactorStatusSchema, '/api/auth/2fa'),
    enabled,
    retry: false,
  });
}

export function useSetupStart() {
  return useMutation({
    mutationFn: (password: string) =>
      apiCall(twoFactorSecretSchema, '/api/auth/2fa/setup', { method: 'POST', body: { password } }),
  });
}

export function useSetupConfirm() {
  return useMutation({
    mutationFn: (code: string) =>
      apiCall(recoveryCodesSchema, '/api/auth/2fa/setup/confirm', { method: 'POST', body: { code } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: twoFactorKeys.status }),
  });
}

// The failed attempts since the previous sign-in, from the login answer, shown once in the shell (kept in memory only).
let failedAttempts: FailedAttempts | null = null;
const listeners = new Set<() => void>();

export function setFailedAttemptsNotice(notice: FailedAttempts | null | undefined): void {
  failedAttempts = notice ?? null;
  for (const l of listeners) l();
}

export function useFailedAttemptsNotice(): FailedAttempts | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => failedAttempts,
  );
}
