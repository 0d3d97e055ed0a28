import {
  CheckIcon,
  CloseButton,
  Combobox,
  Group,
  Input,
  InputBase,
  ScrollArea,
  Text,
  useCombobox,
} from '@mantine/core';
import { useState, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import classes from './CompactMultiSelect.module.css';

export interface CompactOption {
  value: string;
  label: string;
}

/**
 * A multi-select that stays one line high (§2.5): it shows the one choice, or 'Выбрано: N' for several, and lists the
 * options with check marks. Keyboard: Enter, Space or an arrow opens it, the arrows move, Enter toggles, Escape closes.
 */
export function CompactMultiSelect({
  label,
  placeholder,
  data,
  value,
  onChange,
  renderOption,
  searchable = false,
  searchPlaceholder,
  nothingFound,
  style,
  testId,
}: {
  label: string;
  placeholder: string;
  data: readonly CompactOption[];
  value: readonly string[];
  onChange: (value: string[]) => void;
  /** How an option (and a single choice) is drawn; its plain label by default. */
  renderOption?: (option: CompactOption) => ReactNode;
  searchable?: boolean;
  searchPlaceholder?: string;
  nothingFound?: string;
  style?: CSSProperties;
  testId?: string;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const combobox = useCombobox({
    onDropdownClose: (source) => {
      combobox.resetSelectedOption();
      setSearch('');
      // Escape in the search field would leave the focus on a hidden input: give it back to the select.
      if (searchable && source === 'keyboard') combobox.focusTarget();
    },
    onDropdownOpen: () => {
      if (searchable) combobox.focusSearchInput();
    },
  });
  const draw = renderOption ?? ((option: CompactOption) => option.label);
  const chosen = data.filter((option) => value.includes(option.value));
  const needle = search.trim().toLowerCase();
  const shown = needle ? data.filter((option) => option.label.toLowerCase().includes(needle)) : data;

  const toggle = (item: string) => onChange(value.includes(item) ? value.filter((v) => v !== item) : [...value, item]);

  let display: ReactNode;
  if (chosen.length === 0) display = <Input.Placeholder>{placeholder}</Input.Placeholder>;
  else if (chosen.length === 1) display = draw(chosen[0]!);
  else display = t('common.selected', { count: chosen.length });

  return (
    <Combobox
      store={combobox}
      onOptionSubmit={toggle}
      withinPortal
      // As wide as its longest option (a status badge, a manager's name), never narrower than a usable list.
      width="max-content"
      position="bottom-start"
      classNames={{ option: classes.option }}
    >
      <Combobox.Target targetType="button" withExpandedAttribute>
        <InputBase
          component="button"
          type="button"
          pointer
          label={label}
          style={style}
          onClick={() => combobox.toggleDropdown()}
          rightSection={
            chosen.length > 0 ? (
              <CloseButton
                size="sm"
                aria-label={t('common.clearChoice', { label })}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => onChange([])}
              />
            ) : (
              <Combobox.Chevron />
            )
          }
          rightSectionPointerEvents={chosen.length > 0 ? 'all' : 'none'}
          data-testid={testId}
          data-count={chosen.length}
        >
          <Text span size="sm" truncate display="block">
            {display}
          </Text>
        </InputBase>
      </Combobox.Target>

      <Combobox.Dropdown miw={220} maw="calc(100vw - 2rem)">
        {searchable ? (
          <Combobox.Search
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            placeholder={searchPlaceholder}
            aria-label={searchPlaceholder}
          />
        ) : null}
        <Combobox.Options aria-multiselectable aria-label={label}>
          <ScrollArea.Autosize mah={280} type="scroll">
            {shown.length === 0 ? <Combobox.Empty>{nothingFound}</Combobox.Empty> : null}
            {shown.map((option) => {
              const checked = value.includes(option.value);
              return (
                <Combobox.Option value={option.value} key={option.value} active={checked} aria-selected={checked}>
                  <Group gap="sm" wrap="nowrap">
                    <CheckIcon size={12} style={{ visibility: checked ? 'visible' : 'hidden', flex: 'none' }} />
                    {draw(option)}
                  </Group>
                </Combobox.Option>
              );
            })}
          </ScrollArea.Autosize>
        </Combobox.Options>
      </Combobox.Dropdown>
    </Combobox>
  );
}
