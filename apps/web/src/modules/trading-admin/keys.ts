import type { AccountsListParams } from './api/trading-admin';

/** The query keys of the trading administration (accounts, their detail and ledger, void requests). */
export const tradingAdminKeys = {
  all: ['trading-admin'] as const,
  lists: ['trading-admin', 'accounts'] as const,
  list: (params: AccountsListParams) => ['trading-admin', 'accounts', params] as const,
  /** Everything of one account: its detail, active trades and ledger pages (invalidated together). */
  account: (accountId: number) => ['trading-admin', 'account', accountId] as const,
  detail: (accountId: number) => ['trading-admin', 'account', accountId, 'detail'] as const,
  activeTrades: (accountId: number) => ['trading-admin', 'account', accountId, 'active-trades'] as const,
  ledger: (accountId: number, page: number, perPage: number) =>
    ['trading-admin', 'account', accountId, 'ledger', { page, perPage }] as const,
  prices: ['prices', 'latest'] as const,
};

/**
 * Voids waiting for a second staff member (issue 20 finding 11): the 'Подтверждения' tab of /crm/applications lists
 * them beside the manual credits; the account detail shows its own (pendingVoids of the account's answer).
 */
export const voidRequestKeys = {
  all: ['void-requests'] as const,
  list: (query: Record<string, string | number | undefined>) => ['void-requests', 'list', query] as const,
};
