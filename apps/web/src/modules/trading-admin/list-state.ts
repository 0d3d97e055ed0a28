import { BALANCE_BUCKETS, accountStatusSchema, type AccountStatus } from '@brokerage/shared';
import { PAGE_SIZES } from '../ui/TablePager';
import type { AccountsListParams, BalanceBucket } from './api/trading-admin';

/**
 * The trading accounts list's filters and page live in the address (?search=&status=&balance=&page=&per_page=), so
 * the detail page's back link, the browser's Back button and a shared link all return to the same list.
 */

export const DEFAULT_ACCOUNTS_PER_PAGE = 25;

export const ACCOUNT_STATUSES = accountStatusSchema.options;

export function isAccountStatus(value: unknown): value is AccountStatus {
  return typeof value === 'string' && (ACCOUNT_STATUSES as readonly string[]).includes(value);
}

export function isBalanceBucket(value: unknown): value is BalanceBucket {
  return typeof value === 'string' && (BALANCE_BUCKETS as readonly string[]).includes(value);
}

function positiveInt(text: string | null, fallback: number): number {
  if (!text || !/^\d{1,6}$/.test(text)) return fallback;
  const n = Number(text);
  return n >= 1 ? n : fallback;
}

export function parseAccountsListParams(params: URLSearchParams): AccountsListParams {
  const perPage = positiveInt(params.get('per_page'), DEFAULT_ACCOUNTS_PER_PAGE);
  const status = params.get('status');
  const balance = params.get('balance');
  return {
    page: positiveInt(params.get('page'), 1),
    perPage: (PAGE_SIZES as readonly number[]).includes(perPage) ? perPage : DEFAULT_ACCOUNTS_PER_PAGE,
    search: (params.get('search') ?? '').slice(0, 120),
    status: isAccountStatus(status) ? status : null,
    balance: isBalanceBucket(balance) ? balance : null,
  };
}

/** The address's query for a list state; defaults are left out, so the plain list is plain /crm/trading-accounts. */
export function accountsListSearch(state: AccountsListParams): URLSearchParams {
  const params = new URLSearchParams();
  if (state.search.trim()) params.set('search', state.search.trim());
  if (state.status) params.set('status', state.status);
  if (state.balance) params.set('balance', state.balance);
  if (state.page > 1) params.set('page', String(state.page));
  if (state.perPage !== DEFAULT_ACCOUNTS_PER_PAGE) params.set('per_page', String(state.perPage));
  return params;
}

export function hasAccountFilters(state: AccountsListParams): boolean {
  return state.search.trim() !== '' || state.status !== null || state.balance !== null;
}
