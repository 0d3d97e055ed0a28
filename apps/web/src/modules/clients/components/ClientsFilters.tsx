import {
  CLIENT_BALANCE_FILTER_MAX,
  CLIENT_STATUSES,
  LAST_COMMENT_PERIODS,
  type ClientFilterOptions,
  type LastCommentPeriod,
} from '@brokerage/shared';
import { Badge, Button, Collapse, Group, NumberInput, Select, Stack, TextInput } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { IconFilter, IconFilterOff, IconSearch } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CompactMultiSelect, type CompactOption } from '../../ui/CompactMultiSelect';
import {
  activeFilterCount,
  filterProblems,
  hasActiveFilters,
  isClientStatus,
  typedBalance,
  type ClientsListState,
} from '../list-state';
import { ClientStatusBadge } from './ClientStatusBadge';

export const SEARCH_MAX_LENGTH = 120;

/** Each control's flex basis: they share a row on wide screens and stack on phones. */
const grow = (basis: number) => ({ flex: `1 1 ${basis}px` });

/** The server's values as options, with any chosen value the server no longer lists kept (so it can be unticked). */
function optionsOf(values: readonly string[] | undefined, chosen: readonly string[]): CompactOption[] {
  const all = [...(values ?? [])];
  for (const value of chosen) if (!all.some((v) => v.toLowerCase() === value.toLowerCase())) all.push(value);
  return all.map((value) => ({ value, label: value }));
}

/**
 * §2.5 search card and filters: search, status, manager (role-restricted), country, source, campaigns, affiliates
 * (role-restricted), comments period, balance, created dates and 'Сбросить'. Country, campaigns and affiliates are
 * multi-selects of the values the server finds among the caller's clients (GET /api/clients/filter-options). On phones the filters fold under a 'Фильтры' button that shows how many are set.
 */
export function ClientsFilters({
  state,
  search,
  managerOptions,
  filterOptions,
  showAffiliates,
  compact,
  idLookup,
  onIdLookup,
  onIdLookupChange,
  onSearchChange,
  onSearchSubmit,
  onChange,
  onReset,
}: {
  state: ClientsListState;
  search: string;
  /** The manager filter's options, or null when the role has no manager filter (§6). */
  managerOptions: CompactOption[] | null;
  /** The countries, campaigns and affiliates of the caller's clients; undefined while loading. */
  filterOptions: ClientFilterOptions | undefined;
  /** Whether the role has the affiliates filter (§6). */
  showAffiliates: boolean;
  /** Phones: the filters are folded. */
  compact: boolean;
  /** The 'Client ID' field's text; Enter runs the lookup. */
  idLookup: string;
  onIdLookup: () => void;
  onIdLookupChange: (text: string) => void;
  onSearchChange: (search: string) => void;
  /** Enter or 'Найти' in the general search (an all-digits text is an ID lookup, §2.5). */
  onSearchSubmit: () => void;
  onChange: (patch: Partial<ClientsListState>) => void;
  onReset: () => void;
}) {
  const { t } = useTranslation();
  const { t: tc } = useTranslation('clientBase');
  const [unfolded, setUnfolded] = useState(false);
  const panelId = useId();
  const count = activeFilterCount(state);
  const statusOptions = CLIENT_STATUSES.map((value) => ({ value, label: t(`clients.statuses.${value}`) }));
  const problems = filterProblems(state);
  const tooLarge = tc('list.filters.balanceTooLarge', {
    max: new Intl.NumberFormat('en-US').format(CLIENT_BALANCE_FILTER_MAX),
  });

  const resetButton = (
    <Button
      variant="default"
      leftSection={<IconFilterOff size={16} />}
      disabled={!hasActiveFilters(state, search)}
      onClick={onReset}
      data-testid="clients-reset"
    >
      {t('clients.filters.reset')}
    </Button>
  );

  const controls = (
    <Group gap="sm" align="flex-end" wrap="wrap" id={panelId}>
      <CompactMultiSelect
        label={t('clients.filters.status')}
        placeholder={t('clients.filters.allStatuses')}
        data={statusOptions}
        value={state.status}
        onChange={(values) => onChange({ status: values.filter(isClientStatus) })}
        renderOption={(option) => <ClientStatusBadge status={option.value} />}
        style={grow(170)}
        testId="clients-status-filter"
      />
      {managerOptions ? (
        <CompactMultiSelect
          label={t('clients.filters.manager')}
          placeholder={t('clients.filters.allManagers')}
          data={managerOptions}
          value={state.managers}
          onChange={(managers) => onChange({ managers })}
          searchable
          searchPlaceholder={t('clients.filters.findManager')}
          nothingFound={t('clients.filters.noManagers')}
          style={grow(200)}
          testId="clients-manager-filter"
        />
      ) : null}
      <CompactMultiSelect
        label={t('clients.filters.country')}
        placeholder={tc('list.filters.allCountries')}
        data={optionsOf(filterOptions?.countries, state.countries)}
        value={state.countries}
        onChange={(countries) => onChange({ countries: countries.slice(0, 100) })}
        searchable
        searchPlaceholder={tc('list.filters.findOption')}
        nothingFound={tc('list.filters.noOptions')}
        style={grow(160)}
        testId="clients-country-filter"
      />
      <TextInput
        label={t('clients.filters.source')}
        placeholder={t('clients.filters.sourcePlaceholder')}
        value={state.source}
        maxLength={120}
        onChange={(event) => onChange({ source: event.currentTarget.value })}
        style={grow(130)}
        data-testid="clients-source-filter"
      />
      <CompactMultiSelect
        label={tc('list.filters.campaigns')}
        placeholder={tc('list.filters.campaignsPlaceholder')}
        data={optionsOf(filterOptions?.campaigns, state.campaigns)}
        value={state.campaigns}
        onChange={(campaigns) => onChange({ campaigns: campaigns.slice(0, 100) })}
        searchable
        searchPlaceholder={tc('list.filters.findOption')}
        nothingFound={tc('list.filters.noOptions')}
        style={grow(170)}
        testId="clients-campaign-filter"
      />
      {showAffiliates ? (
        <CompactMultiSelect
          label={tc('list.filters.affiliates')}
          placeholder={tc('list.filters.affiliatesPlaceholder')}
          data={optionsOf(filterOptions?.affiliates, state.affiliates)}
          value={state.affiliates}
          onChange={(affiliates) => onChange({ affiliates: affiliates.slice(0, 100) })}
          searchable
          searchPlaceholder={tc('list.filters.findOption')}
          nothingFound={tc('list.filters.noOptions')}
          style={grow(170)}
          testId="clients-affiliate-filter"
        />
      ) : null}
      <Select
        label={tc('list.filters.commentsPeriod')}
        placeholder={tc('list.filters.commentsAny')}
        data={LAST_COMMENT_PERIODS.map((value) => ({ value, label: tc(`list.filters.periods.${value}`) }))}
        value={state.commentsPeriod}
        onChange={(value) => onChange({ commentsPeriod: (value as LastCommentPeriod | null) ?? null })}
        clearable
        style={grow(150)}
        data-testid="clients-comments-filter"
      />
      <NumberInput
        label={tc('list.filters.balanceFrom')}
        value={state.balanceFrom ?? ''}
        onChange={(value) => onChange({ balanceFrom: typedBalance(value) })}
        error={problems.balanceFrom ? tooLarge : undefined}
        min={0}
        decimalScale={2}
        prefix="$"
        thousandSeparator=","
        style={grow(110)}
        data-testid="clients-balance-from"
      />
      <NumberInput
        label={tc('list.filters.balanceTo')}
        value={state.balanceTo ?? ''}
        onChange={(value) => onChange({ balanceTo: typedBalance(value) })}
        error={
          problems.balanceTo === 'too_large'
            ? tooLarge
            : problems.balanceTo === 'inverted'
              ? tc('list.filters.rangeInverted')
              : undefined
        }
        min={0}
        decimalScale={2}
        prefix="$"
        thousandSeparator=","
        style={grow(110)}
        data-testid="clients-balance-to"
      />
      <DateInput
        label={t('clients.filters.dateFrom')}
        value={state.dateFrom}
        onChange={(dateFrom) => onChange({ dateFrom })}
        maxDate={state.dateTo ?? undefined}
        valueFormat="DD.MM.YYYY"
        placeholder={t('clients.filters.datePlaceholder')}
        clearable
        style={grow(130)}
        data-testid="clients-date-from"
      />
      <DateInput
        label={t('clients.filters.dateTo')}
        value={state.dateTo}
        onChange={(dateTo) => onChange({ dateTo })}
        minDate={state.dateFrom ?? undefined}
        valueFormat="DD.MM.YYYY"
        placeholder={t('clients.filters.datePlaceholder')}
        clearable
        style={grow(130)}
        data-testid="clients-date-to"
      />
      <DateInput
        label={tc('list.filters.commentFrom')}
        value={state.commentFrom}
        onChange={(commentFrom) => onChange({ commentFrom })}
        valueFormat="DD.MM.YYYY"
        placeholder={t('clients.filters.datePlaceholder')}
        clearable
        style={grow(130)}
        data-testid="clients-comment-from"
      />
      <DateInput
        label={tc('list.filters.commentTo')}
        value={state.commentTo}
        onChange={(commentTo) => onChange({ commentTo })}
        valueFormat="DD.MM.YYYY"
        placeholder={t('clients.filters.datePlaceholder')}
        error={problems.commentTo ? tc('list.filters.commentRangeInverted') : undefined}
        clearable
        style={grow(130)}
        data-testid="clients-comment-to"
      />
      {compact ? <div style={{ flex: '1 1 100%' }}>{resetButton}</div> : null}
    </Group>
  );

  return (
    <Stack gap="sm" mb="md" data-testid="clients-filters">
      <Group gap="sm" wrap="nowrap">
        <TextInput
          aria-label={tc('list.idLabel')}
          placeholder={tc('list.idLabel')}
          value={idLookup}
          inputMode="numeric"
          maxLength={16}
          onChange={(event) => onIdLookupChange(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onIdLookup();
          }}
          w={compact ? 110 : 150}
          data-testid="clients-id-lookup"
        />
        <TextInput
          aria-label={t('clients.searchLabel')}
          placeholder={t('clients.searchPlaceholder')}
          leftSection={<IconSearch size={16} />}
          value={search}
          maxLength={SEARCH_MAX_LENGTH}
          onChange={(event) => onSearchChange(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onSearchSubmit();
          }}
          type="search"
          style={{ flex: 1, minWidth: 0 }}
          data-testid="clients-search"
        />
        {compact ? null : (
          <Button variant="light" onClick={onSearchSubmit} data-testid="clients-search-button">
            {tc('list.searchButton')}
          </Button>
        )}
        {compact ? (
          <Button
            variant={count > 0 ? 'light' : 'default'}
            leftSection={<IconFilter size={16} />}
            rightSection={
              count > 0 ? (
                <Badge size="sm" circle>
                  {count}
                </Badge>
              ) : null
            }
            aria-expanded={unfolded}
            aria-controls={panelId}
            onClick={() => setUnfolded((open) => !open)}
            data-testid="clients-filters-toggle"
          >
            {t('clients.filters.title')}
          </Button>
        ) : (
          resetButton
        )}
      </Group>
      {compact ? <Collapse in={unfolded}>{controls}</Collapse> : controls}
    </Stack>
  );
}
