import { depositsResponseSchema, type DepositType } from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall, type QueryValue } from '../../../lib/api';

/** The deposit history's filters (§2.10); dates are days in the business time zone, the 'to' day included whole. */
export interface DepositHistoryFilters {
  types: DepositType[];
  /** Staff ids of the deposits' creators (superadmin only, §6). */
  creators: string[];
  search: string;
  dateFrom: string | null;
  dateTo: string | null;
}

export const EMPTY_DEPOSIT_FILTERS: DepositHistoryFilters = {
  types: [],
  creators: [],
  search: '',
  dateFrom: null,
  dateTo: null,
};

/** The GET /api/deposits (and its Excel export's) filter parameters. */
export function depositFilterQuery(filters: DepositHistoryFilters, withCreators: boolean): Record<string, QueryValue> {
  return {
    deposit_type: filters.types,
    created_by: withCreators ? filters.creators : undefined,
    search: filters.search.trim().slice(0, 120) || undefined,
    date_from: filters.dateFrom,
    date_to: filters.dateTo,
  };
}

export const depositHistoryKeys = {
  list: (query: Record<string, QueryValue>) => ['deposits', 'history', query] as const,
};

/** GET /api/deposits: the history of the clients in scope (D5), filtered and paged by the server, with the cards. */
export function useDepositHistory(
  filters: DepositHistoryFilters,
  withCreators: boolean,
  page: number,
  perPage: number,
) {
  const query = { ...depositFilterQuery(filters, withCreators), page, per_page: perPage };
  return useQuery({
    queryKey: depositHistoryKeys.list(query),
    queryFn: ({ signal }) => apiCall(depositsResponseSchema, '/api/deposits', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
