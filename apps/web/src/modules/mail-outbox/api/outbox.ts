import { mailOutboxDetailSchema, mailOutboxResponseSchema, okSchema, type MailStatus } from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

export interface OutboxListParams {
  status: MailStatus | null;
  search: string;
  page: number;
  perPage: number;
}

export const outboxKeys = {
  all: ['mail-outbox'] as const,
  list: (params: OutboxListParams) => ['mail-outbox', 'list', params] as const,
  detail: (id: number) => ['mail-outbox', 'detail', id] as const,
};

/** Issue 22 §1: the outgoing mail (GET /api/mail/outbox), newest first. */
export function useOutbox(params: OutboxListParams) {
  return useQuery({
    queryKey: outboxKeys.list(params),
    queryFn: ({ signal }) =>
      apiCall(mailOutboxResponseSchema, '/api/mail/outbox', {
        query: {
          page: params.page,
          per_page: params.perPage,
          status: params.status,
          search: params.search.trim() || null,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** One message as rendered (GET /api/mail/outbox/:id). */
export function useOutboxMessage(id: number | null) {
  return useQuery({
    queryKey: outboxKeys.detail(id ?? 0),
    queryFn: ({ signal }) => apiCall(mailOutboxDetailSchema, `/api/mail/outbox/${id}`, { signal }),
    enabled: id !== null,
  });
}

/** The /unsubscribe page's button: POST /api/mail/unsubscribe?token=… (the link's token). */
export function useUnsubscribe() {
  return useMutation({
    mutationFn: (token: string) =>
      apiCall(okSchema, '/api/mail/unsubscribe', { method: 'POST', query: { token }, body: {} }),
  });
}
