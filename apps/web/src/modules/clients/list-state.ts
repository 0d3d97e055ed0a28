import {
  CLIENT_BALANCE_FILTER_MAX,
  CLIENT_SORT_FIELDS,
  CLIENT_STATUSES,
  LAST_COMMENT_PERIODS,
  type ClientStatus,
  type LastCommentPeriod,
} from '@brokerage/shared';
import type { QueryValue } from '../../lib/query-string';
import { PAGE_SIZES } from '../ui/TablePager';

export type ClientSortField = (typeof CLIENT_SORT_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';
export type PageSize = (typeof PAGE_SIZES)[number];

/** The manager filter's value for clients without a manager (§2.5). */
export const UNASSIGNED = 'null';

/**
 * What the clients list keeps in localStorage under 'clientsPageFilters' (§2.5): the filters, the sort and the page
 * size. The search box and the page number are not kept.
 */
export interface ClientsListState {
  status: ClientStatus[];
  /** Staff ids and/or UNASSIGNED; only used for roles with the manager filter (§6). */
  managers: string[];
  /** Chosen countries (the multi-select's options), each sent as its own `country` parameter, matched exactly. */
  countries: string[];
  source: string;
  /** Campaign names, matched exactly (trimmed, case-insensitive). */
  campaigns: string[];
  /** Affiliate names (the last ' - ' segment of a campaign); only for roles with the affiliate filter (§6). */
  affiliates: string[];
  commentsPeriod: LastCommentPeriod | null;
  /** Dollars, compared with total_deposits, both ends inclusive. */
  balanceFrom: number | null;
  balanceTo: number | null;
  /** YYYY-MM-DD, days in the business time zone, both ends inclusive. */
  dateFrom: string | null;
  dateTo: string | null;
  /** The last comment's day, YYYY-MM-DD in the business zone, both ends inclusive (issue 27 item 7). */
  commentFrom: string | null;
  commentTo: string | null;
  sort: ClientSortField;
  order: SortOrder;
  perPage: PageSize;
}

/** §9: default sort id descending, 50 per page. */
export const DEFAULT_CLIENTS_LIST_STATE: ClientsListState = {
  status: [],
  managers: [],
  countries: [],
  source: '',
  campaigns: [],
  affiliates: [],
  commentsPeriod: null,
  balanceFrom: null,
  balanceTo: null,
  dateFrom: null,
  dateTo: null,
  commentFrom: null,
  commentTo: null,
  sort: 'id',
  order: 'desc',
  perPage: 50,
};

/** Caps that match the server's query contract, so a stored value can never turn into a 400. */
const MAX_LIST_ITEMS = 100;
const MAX_TEXT = 200;
const MAX_SOURCE = 120;
const MAX_COUNTRY = 80;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isClientStatus(value: unknown): value is ClientStatus {
  return typeof value === 'string' && (CLIENT_STATUSES as readonly string[]).includes(value);
}

export function isManagerValue(value: unknown): value is string {
  return typeof value === 'string' && (value === UNASSIGNED || UUID.test(value));
}

function isSortField(value: unknown): value is ClientSortField {
  return typeof value === 'string' && (CLIENT_SORT_FIELDS as readonly string[]).includes(value);
}

export function isPageSize(value: unknown): value is PageSize {
  return typeof value === 'number' && (PAGE_SIZES as readonly number[]).includes(value);
}

/** A calendar day written YYYY-MM-DD that exists (no 2026-02-30). */
export function isIsoDay(value: unknown): value is string {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1900 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function listOf<T extends string>(value: unknown, accept: (item: unknown) => item is T): T[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter(accept))].slice(0, MAX_LIST_ITEMS);
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_TEXT;
}

function isCountry(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_COUNTRY;
}

/** §5: stored affiliate selections holding numeric IDs (an older format) are cleared on load. */
function isAffiliateName(value: unknown): value is string {
  return isName(value) && !/^\d+$/.test(value.trim());
}

function isPeriod(value: unknown): value is LastCommentPeriod {
  return typeof value === 'string' && (LAST_COMMENT_PERIODS as readonly string[]).includes(value);
}

/** A balance bound the server accepts: a finite amount of dollars from 0 to CLIENT_BALANCE_FILTER_MAX, or null. */
export function balanceBound(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= CLIENT_BALANCE_FILTER_MAX
    ? value
    : null;
}

/** What was typed in a balance field: any finite amount ≥ 0 stays in the field (and is said to be too large). */
export function typedBalance(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * Issue 27 item 7: why a filter the screen shows is not applied, per field — a balance past the largest the server
 * takes, or a range whose end is below its start. Such a filter is left out of the query and said under its field.
 */
export interface FilterProblems {
  balanceFrom?: 'too_large';
  balanceTo?: 'too_large' | 'inverted';
  commentTo?: 'inverted';
}

export function filterProblems(state: ClientsListState): FilterProblems {
  const problems: FilterProblems = {};
  if (state.balanceFrom !== null && balanceBound(state.balanceFrom) === null) problems.balanceFrom = 'too_large';
  if (state.balanceTo !== null && balanceBound(state.balanceTo) === null) problems.balanceTo = 'too_large';
  else if (state.balanceFrom !== null && state.balanceTo !== null && state.balanceFrom > state.balanceTo)
    problems.balanceTo = 'inverted';
  if (state.commentFrom && state.commentTo && state.commentFrom > state.commentTo) problems.commentTo = 'inverted';
  return problems;
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/**
 * Reads the stored state. Anything unreadable or invalid (old versions, hand edits, another app's data) is dropped
 * field by field: a bad value falls back to its default and the valid ones are kept.
 */
export function parseClientsListState(raw: string | null): ClientsListState {
  if (!raw) return DEFAULT_CLIENTS_LIST_STATE;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return DEFAULT_CLIENTS_LIST_STATE;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return DEFAULT_CLIENTS_LIST_STATE;
  const stored = data as Record<string, unknown>;
  const defaults = DEFAULT_CLIENTS_LIST_STATE;
  let dateFrom = isIsoDay(stored.dateFrom) ? stored.dateFrom : null;
  let dateTo = isIsoDay(stored.dateTo) ? stored.dateTo : null;
  if (dateFrom && dateTo && dateFrom > dateTo) [dateFrom, dateTo] = [null, null];
  const commentFrom = isIsoDay(stored.commentFrom) ? stored.commentFrom : null;
  const commentTo = isIsoDay(stored.commentTo) ? stored.commentTo : null;
  const sort = isSortField(stored.sort) ? stored.sort : defaults.sort;
  return {
    status: listOf(stored.status, isClientStatus),
    managers: listOf(stored.managers, isManagerValue),
    // An older version kept the countries as typed text ('Украина, Germany'): read as its list.
    countries: Array.isArray(stored.countries)
      ? listOf(stored.countries, isCountry)
      : splitCountries(text(stored.country, MAX_TEXT)),
    source: text(stored.source, MAX_SOURCE),
    campaigns: listOf(stored.campaigns, isName),
    affiliates: listOf(stored.affiliates, isAffiliateName),
    commentsPeriod: isPeriod(stored.commentsPeriod) ? stored.commentsPeriod : null,
    balanceFrom: balanceBound(stored.balanceFrom),
    balanceTo: balanceBound(stored.balanceTo),
    dateFrom,
    dateTo,
    commentFrom,
    commentTo,
    sort,
    order: stored.order === 'asc' || stored.order === 'desc' ? stored.order : defaults.order,
    perPage: isPageSize(stored.perPage) ? stored.perPage : defaults.perPage,
  };
}

export function serializeClientsListState(state: ClientsListState): string {
  return JSON.stringify(state);
}

/** How many filters are set (the search, the sort and the page size are not counted). */
export function activeFilterCount(state: ClientsListState): number {
  return [
    state.status.length > 0,
    state.managers.length > 0,
    state.countries.length > 0,
    state.source.trim() !== '',
    state.campaigns.length > 0,
    state.affiliates.length > 0,
    state.commentsPeriod !== null,
    state.balanceFrom !== null,
    state.balanceTo !== null,
    state.dateFrom !== null,
    state.dateTo !== null,
    state.commentFrom !== null,
    state.commentTo !== null,
  ].filter(Boolean).length;
}

/** Whether 'Сбросить' has anything to clear: a filter or the search. */
export function hasActiveFilters(state: ClientsListState, search: string): boolean {
  return search.trim() !== '' || activeFilterCount(state) > 0;
}

/** 'Украина, Germany,' → ['Украина', 'Germany']: trimmed, blanks and repeats dropped (older stored filters). */
export function splitCountries(value: string): string[] {
  const items = value
    .split(',')
    .map((item) => item.trim().slice(0, MAX_COUNTRY))
    .filter((item) => item !== '');
  return [...new Set(items)].slice(0, MAX_LIST_ITEMS);
}

/** Fields whose first click sorts from the largest (newest) down; text columns start A→Z. */
const DESCENDING_FIRST: readonly ClientSortField[] = ['id', 'created_at', 'total_deposits', 'last_comment_date', 'ftd'];

/** A header click (§2.5): the sorted column toggles asc/desc, another column becomes the sort. */
export function nextSort(state: Pick<ClientsListState, 'sort' | 'order'>, field: ClientSortField) {
  if (state.sort === field) return { sort: field, order: state.order === 'asc' ? 'desc' : 'asc' } as const;
  return { sort: field, order: DESCENDING_FIRST.includes(field) ? 'desc' : 'asc' } as const;
}

export interface ClientsQueryInput {
  state: ClientsListState;
  search: string;
  page: number;
  /** Only roles with 'clients.bulk_assign' filter by manager (§6). */
  withManagers: boolean;
  /** Only roles with 'clients.affiliate_filter' filter by affiliate (§6). */
  withAffiliates?: boolean;
}

/** The GET /api/clients query of the list (D4: filtered, sorted and paged by the server). */
export function clientsQuery({
  state,
  search,
  page,
  withManagers,
  withAffiliates = false,
}: ClientsQueryInput): Record<string, QueryValue> {
  // A bound the server would refuse, or a range ending below its start, is not sent (the field says why).
  const problems = filterProblems(state);
  const balanceApplies = problems.balanceTo !== 'inverted';
  const commentsApply = problems.commentTo !== 'inverted';
  return {
    page,
    per_page: state.perPage,
    search: search.trim().slice(0, 120) || undefined,
    status: state.status,
    assigned_manager: withManagers ? state.managers : undefined,
    country: state.countries,
    source: state.source.trim() || undefined,
    campaign: state.campaigns,
    affiliate: withAffiliates ? state.affiliates : undefined,
    last_comment_period: state.commentsPeriod,
    balance_min: balanceApplies ? balanceBound(state.balanceFrom) : null,
    balance_max: balanceApplies ? balanceBound(state.balanceTo) : null,
    created_date_from: state.dateFrom,
    created_date_to: state.dateTo,
    last_comment_from: commentsApply ? state.commentFrom : null,
    last_comment_to: commentsApply ? state.commentTo : null,
    sort: state.sort,
    order: state.order,
  };
}
