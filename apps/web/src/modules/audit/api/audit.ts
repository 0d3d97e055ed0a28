import { auditResponseSchema, auditVerifyResponseSchema } from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

export interface AuditFilters {
  actorId: string | null;
  action: string | null;
  /** YYYY-MM-DD, both ends inclusive. */
  dateFrom: string | null;
  dateTo: string | null;
}

export interface AuditListParams extends AuditFilters {
  page: number;
  perPage: number;
}

export const auditKeys = {
  all: ['audit'] as const,
  list: (params: AuditListParams) => ['audit', 'list', params] as const,
  verify: ['audit', 'verify'] as const,
};

export function useAuditLog(params: AuditListParams) {
  return useQuery({
    queryKey: auditKeys.list(params),
    queryFn: ({ signal }) =>
      apiCall(auditResponseSchema, '/api/audit', {
        query: {
          page: params.page,
          per_page: params.perPage,
          actor_id: params.actorId,
          action: params.action,
          date_from: params.dateFrom,
          date_to: params.dateTo,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** Issue 13: the tamper-evident chain walked from its first row (GET /api/audit/verify). */
export function useAuditChain() {
  return useQuery({
    queryKey: auditKeys.verify,
    queryFn: ({ signal }) => apiCall(auditVerifyResponseSchema, '/api/audit/verify', { signal }),
    staleTime: 60_000,
  });
}
