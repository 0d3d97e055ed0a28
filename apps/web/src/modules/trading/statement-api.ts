import {
  siteFactsResponseSchema,
  statementResponseSchema,
  type LedgerKind,
  type StatementFormat,
} from '@brokerage/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiCall, withQuery, type QueryValue } from '../../lib/api';
import { downloadFile } from '../../lib/download';

/**
 * The account statement ('История операций', issue 14) and the risk figure of the trading screen. The statement lives
 * under ['trading', …], which the live socket marks stale on balance events, so a new entry shows up by itself.
 */
export const statementKeys = {
  page: (filter: StatementFilter, page: number, perPage: number) =>
    ['trading', 'statement', filter, page, perPage] as const,
  riskFacts: ['site', 'facts'] as const,
};

export interface StatementFilter {
  /** Local calendar dates (YYYY-MM-DD) as the date inputs give them; '' for no bound. */
  from: string;
  to: string;
  kinds: LedgerKind[];
}

/** The period as the server takes it: from the local midnight of `from` to the local midnight after `to`. */
export function statementQuery(filter: StatementFilter): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  const midnight = (date: string, plusDays = 0) => {
    const [y, m, d] = date.split('-').map(Number) as [number, number, number];
    return new Date(y, m - 1, d + plusDays).toISOString();
  };
  if (/^\d{4}-\d{2}-\d{2}$/.test(filter.from)) query.from = midnight(filter.from);
  if (/^\d{4}-\d{2}-\d{2}$/.test(filter.to)) query.to = midnight(filter.to, 1);
  if (filter.kinds.length > 0) query.kind = filter.kinds.join(',');
  return query;
}

export function useStatement(filter: StatementFilter, page: number, perPage: number) {
  return useQuery({
    queryKey: statementKeys.page(filter, page, perPage),
    queryFn: () =>
      apiCall(statementResponseSchema, '/api/trading/statement', {
        query: { ...statementQuery(filter), page, per_page: perPage },
      }),
    placeholderData: keepPreviousData,
    retry: 1,
  });
}

/** The risk warning's figure (D6): the public site facts, refreshed hourly (the server recomputes it daily). */
export function useRiskFacts() {
  return useQuery({
    queryKey: statementKeys.riskFacts,
    queryFn: () => apiCall(siteFactsResponseSchema, '/api/site/facts'),
    staleTime: 3_600_000,
    retry: 1,
  });
}

/** The browser's IANA zone ('Asia/Almaty'), or undefined when the runtime does not say. */
function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Downloads the statement file of the period; resolves to the server's detail on a refusal, null on success. The
 * file's times are in the client's own zone (issue 27 item 17), the one the screen shows.
 */
export function downloadStatement(filter: StatementFilter, format: StatementFormat): Promise<string | null> {
  const tz = browserTimeZone();
  return downloadFile(
    withQuery('/api/trading/statement/export', { ...statementQuery(filter), format, ...(tz ? { tz } : {}) }),
    `statement.${format}`,
  );
}

/**
 * Downloads the price proofs of the trades settled in the period (issue 30, D27's bundle) as one file; resolves to the
 * server's detail on a refusal (a 422 for a period too long), null on success.
 */
/**
 * The trade history's 'download proofs' (issue 30 §2): the proofs of the period its page spans — from the first
 * settlement shown to just after the last (the call's `to` is exclusive).
 */
export function downloadProofsOf(trades: readonly { settled_at: string | null }[]): Promise<string | null> | null {
  const times = trades.flatMap((t) => (t.settled_at ? [Date.parse(t.settled_at)] : []));
  if (times.length === 0) return null;
  const from = new Date(Math.min(...times)).toISOString();
  const to = new Date(Math.max(...times) + 1).toISOString();
  return downloadFile(withQuery('/api/trading/proofs', { from, to }), 'proofs.json');
}

export function downloadPeriodProofs(filter: StatementFilter): Promise<string | null> {
  const { from, to } = statementQuery(filter);
  return downloadFile(withQuery('/api/trading/proofs', { from, to }), 'proofs.json');
}
