import type { QueryValue } from '../../lib/api';

/** The query keys of /crm/applications: the withdrawal requests and the manual credits awaiting confirmation. */
export const withdrawalKeys = {
  all: ['withdraw-requests'] as const,
  list: (query: Record<string, QueryValue>) => ['withdraw-requests', 'list', query] as const,
};

/**
 * Manual credits waiting for a second staff member (decisions.md D20): the 'Подтверждения' tab of /crm/applications,
 * and the pending credits the account detail and the client's deposits card show.
 */
export const manualCreditKeys = {
  all: ['manual-credits'] as const,
  list: (query: Record<string, string | number | undefined>) => ['manual-credits', 'list', query] as const,
};
