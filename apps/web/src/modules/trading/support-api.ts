import { clientMessageSchema, type ClientMessage, type SendMyMessageRequest } from '@brokerage/shared';
import { useMutation } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { ApiError, apiCall } from '../../lib/api';
import { queryClient } from '../../lib/query-client';
import { tradingKeys } from './keys';

/** POST /api/my-messages (issue 22 §6): the client writes to the broker; the conversation is fetched again. */
export function useSendSupportMessage() {
  return useMutation({
    mutationFn: (body: SendMyMessageRequest): Promise<ClientMessage> =>
      apiCall(clientMessageSchema, '/api/my-messages', { method: 'POST', body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tradingKeys.messages }),
  });
}

/** Why a message was not sent, in the client's language (the server's codes; its detail otherwise). */
export function supportErrorText(error: unknown, t: TFunction<'platform'>): string {
  if (error instanceof ApiError) {
    if (error.code === 'support_rate_limited') return t('messages.errors.rateLimited');
    if (error.code === 'support_client_missing') return t('messages.errors.noClient');
    if (error.status === 401) return t('messages.errors.signedOut');
    return error.detail || t('messages.errors.failed');
  }
  return t('messages.errors.network');
}
