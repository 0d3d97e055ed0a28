import { clientsQuerySchema } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import { withQuery } from '../src/lib/query-string';
import {
  DEFAULT_CLIENTS_LIST_STATE,
  clientsQuery,
  filterProblems,
  hasActiveFilters,
  isIsoDay,
  nextSort,
  parseClientsListState,
  serializeClientsListState,
  splitCountries,
  type ClientsListState,
} from '../src/modules/clients/list-state';

const MANAGER = '3f1c8a52-7d0e-4b7a-9c55-0a1b2c3d4e5f';

const full: ClientsListState = {
  status: ['new', 'ftd'],
  managers: [MANAGER, 'null'],
  countries: ['Украина', 'Germany'],
  source: 'demo',
  campaigns: ['Autumn - PartnerX'],
  affiliates: ['PartnerX'],
  commentsPeriod: 'week',
  balanceFrom: 10.5,
  balanceTo: 1000,
  dateFrom: '2026-01-01',
  dateTo: '2026-01-31',
  commentFrom: '2026-02-01',
  commentTo: '2026-02-28',
  sort: 'total_deposits',
  order: 'asc',
  perPage: 100,
};

describe('stored clients list state (localStorage clientsPageFilters)', () => {
  it('defaults to no filters, id descending, 50 per page (§9)', () => {
    expect(parseClientsListState(null)).toEqual({ ...DEFAULT_CLIENTS_LIST_STATE });
    expect(DEFAULT_CLIENTS_LIST_STATE).toMatchObject({ sort: 'id', order: 'desc', perPage: 50 });
  });

  it('reads back what it wrote', () => {
    expect(parseClientsListState(serializeClientsListState(full))).toEqual(full);
  });

  it.each(['not json', '[]', '42', 'null', '"text"', '{'])('falls back to the defaults for %s', (raw) => {
    expect(parseClientsListState(raw)).toEqual(DEFAULT_CLIENTS_LIST_STATE);
  });

  it('drops invalid values field by field and keeps the valid ones', () => {
    const raw = JSON.stringify({
      status: ['new', 'bogus', 7, 'new', 'fake'],
      managers: ['null', 'not-a-uuid', MANAGER, "'; drop table", MANAGER],
      country: 12,
      source: 'ok',
      dateFrom: '2026-02-30',
      dateTo: '2026-03-01',
      sort: 'password',
      order: 'sideways',
      perPage: 1000,
      affiliate: ['x'],
    });
    expect(parseClientsListState(raw)).toEqual({
      ...DEFAULT_CLIENTS_LIST_STATE,
      status: ['new', 'fake'],
      managers: ['null', MANAGER],
      source: 'ok',
      dateTo: '2026-03-01',
    });
  });

  it('clears stored affiliate selections holding numeric ids (§5) and bad new-filter values', () => {
    const state = parseClientsListState(
      JSON.stringify({
        affiliates: ['12', 'PartnerX', 7, ' 34 '],
        campaigns: ['', 'Spring'],
        commentsPeriod: 'decade',
        balanceFrom: -5,
        balanceTo: 'lots',
      }),
    );
    expect(state).toMatchObject({
      affiliates: ['PartnerX'],
      campaigns: ['Spring'],
      commentsPeriod: null,
      balanceFrom: null,
      balanceTo: null,
    });
  });

  it('drops a date range whose start is after its end', () => {
    const state = parseClientsListState(JSON.stringify({ dateFrom: '2026-05-02', dateTo: '2026-05-01' }));
    expect(state.dateFrom).toBeNull();
    expect(state.dateTo).toBeNull();
  });

  it('checks calendar days', () => {
    expect(isIsoDay('2024-02-29')).toBe(true);
    expect(isIsoDay('2025-02-29')).toBe(false);
    expect(isIsoDay('2025-13-01')).toBe(false);
    expect(isIsoDay('01.02.2025')).toBe(false);
    expect(isIsoDay('0000-01-01')).toBe(false);
  });
});

describe('the GET /api/clients query', () => {
  it('is accepted by the server contract, with repeated parameters', () => {
    const query = clientsQuery({
      state: full,
      search: '  +380 50 ',
      page: 3,
      withManagers: true,
      withAffiliates: true,
    });
    const url = new URL(withQuery('/api/clients', query), 'http://x');
    expect(url.searchParams.getAll('status')).toEqual(['new', 'ftd']);
    expect(url.searchParams.getAll('assigned_manager')).toEqual([MANAGER, 'null']);
    expect(url.searchParams.getAll('country')).toEqual(['Украина', 'Germany']);
    expect(url.searchParams.get('search')).toBe('+380 50');
    const parsed = clientsQuerySchema.parse({
      ...Object.fromEntries(url.searchParams),
      status: url.searchParams.getAll('status'),
      assigned_manager: url.searchParams.getAll('assigned_manager'),
      country: url.searchParams.getAll('country'),
      campaign: url.searchParams.getAll('campaign'),
      affiliate: url.searchParams.getAll('affiliate'),
    });
    expect(parsed).toMatchObject({
      page: 3,
      per_page: 100,
      source: 'demo',
      created_date_from: '2026-01-01',
      created_date_to: '2026-01-31',
      sort: 'total_deposits',
      order: 'asc',
      campaign: ['Autumn - PartnerX'],
      affiliate: ['PartnerX'],
      last_comment_period: 'week',
      balance_min: 10.5,
      balance_max: 1000,
      last_comment_from: '2026-02-01',
      last_comment_to: '2026-02-28',
    });
  });

  it('sends only what is set', () => {
    const query = clientsQuery({ state: DEFAULT_CLIENTS_LIST_STATE, search: ' ', page: 1, withManagers: true });
    expect(withQuery('/api/clients', query)).toBe('/api/clients?page=1&per_page=50&sort=id&order=desc');
  });

  it('never sends the manager filter for a role without it (§6)', () => {
    const query = clientsQuery({ state: full, search: '', page: 1, withManagers: false });
    expect(withQuery('/api/clients', query)).not.toContain('assigned_manager');
    expect(withQuery('/api/clients', query)).not.toContain('affiliate');
  });

  it('splits countries on commas', () => {
    expect(splitCountries(' Украина ,, Germany,Украина , ')).toEqual(['Украина', 'Germany']);
    expect(splitCountries('')).toEqual([]);
  });

  it('reads an older stored country text as the list of countries', () => {
    const raw = JSON.stringify({ country: ' Украина ,, Germany' });
    expect(parseClientsListState(raw).countries).toEqual(['Украина', 'Germany']);
    expect(parseClientsListState(JSON.stringify({ countries: ['Spain', '', 5, 'Spain'] })).countries).toEqual([
      'Spain',
    ]);
  });
});

describe('header sorting (§2.5)', () => {
  it('toggles the sorted column', () => {
    expect(nextSort({ sort: 'id', order: 'desc' }, 'id')).toEqual({ sort: 'id', order: 'asc' });
    expect(nextSort({ sort: 'id', order: 'asc' }, 'id')).toEqual({ sort: 'id', order: 'desc' });
  });

  it('starts text columns A→Z and numbers and dates from the largest', () => {
    expect(nextSort({ sort: 'id', order: 'desc' }, 'name')).toEqual({ sort: 'name', order: 'asc' });
    expect(nextSort({ sort: 'name', order: 'asc' }, 'created_at')).toEqual({ sort: 'created_at', order: 'desc' });
    expect(nextSort({ sort: 'name', order: 'asc' }, 'total_deposits')).toEqual({
      sort: 'total_deposits',
      order: 'desc',
    });
  });
});

describe('active filters', () => {
  it('counts filters and the search, not the sort or the page size', () => {
    expect(hasActiveFilters({ ...DEFAULT_CLIENTS_LIST_STATE, sort: 'name', perPage: 25 }, '')).toBe(false);
    expect(hasActiveFilters(DEFAULT_CLIENTS_LIST_STATE, 'ivan')).toBe(true);
    expect(hasActiveFilters({ ...DEFAULT_CLIENTS_LIST_STATE, status: ['new'] }, '')).toBe(true);
    expect(hasActiveFilters({ ...DEFAULT_CLIENTS_LIST_STATE, dateTo: '2026-01-01' }, '')).toBe(true);
  });
});

describe('filters the server would refuse or that cannot match (issue 27 item 7)', () => {
  const base = { ...DEFAULT_CLIENTS_LIST_STATE };
  const sent = (state: ClientsListState) =>
    new URL(withQuery('/api/clients', clientsQuery({ state, search: '', page: 1, withManagers: false })), 'http://x')
      .searchParams;

  it('a balance past the largest bound stays in the field, is said to be too large, is not sent, and can be reset', () => {
    const state = { ...base, balanceFrom: 1e20 };
    expect(filterProblems(state)).toEqual({ balanceFrom: 'too_large' });
    expect(sent(state).has('balance_min')).toBe(false);
    expect(hasActiveFilters(state, '')).toBe(true);
  });

  it("'from 1000 to 500' is said under 'to' and neither bound is sent; a valid range is", () => {
    const inverted = { ...base, balanceFrom: 1000, balanceTo: 500 };
    expect(filterProblems(inverted)).toEqual({ balanceTo: 'inverted' });
    expect(sent(inverted).has('balance_min')).toBe(false);
    expect(sent(inverted).has('balance_max')).toBe(false);
    const fine = { ...base, balanceFrom: 500, balanceTo: 1000 };
    expect(filterProblems(fine)).toEqual({});
    expect(sent(fine).get('balance_min')).toBe('500');
    expect(sent(fine).get('balance_max')).toBe('1000');
  });

  it('an inverted comment range is said and not sent; every query sent passes the server contract', () => {
    const inverted = { ...base, commentFrom: '2026-03-10', commentTo: '2026-03-01' };
    expect(filterProblems(inverted)).toEqual({ commentTo: 'inverted' });
    expect(sent(inverted).has('last_comment_from')).toBe(false);
    for (const state of [inverted, { ...base, balanceFrom: 1e21 }, { ...base, balanceFrom: 9, balanceTo: 1 }]) {
      expect(clientsQuerySchema.safeParse(Object.fromEntries(sent(state))).success).toBe(true);
    }
    // The server refuses what the screen never sends, naming the field.
    const refused = clientsQuerySchema.safeParse({ balance_min: '1000', balance_max: '500' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]).toMatchObject({ path: ['balance_max'], message: 'range_inverted' });
  });
});
