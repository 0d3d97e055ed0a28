import { TextInput, type TextInputProps } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { shapeAmount } from '../rules';

type AmountFieldProps = Omit<TextInputProps, 'value' | 'onChange' | 'inputMode'> & {
  /** The amount as the form holds it: digits and at most one '.', or '' (nothing valid typed). */
  value: string;
  onValue: (next: string) => void;
};

/**
 * A dollar amount input (§5: digits and at most one decimal separator, 2 decimals). It shows what was typed; text that
 * is not such an amount ('1e12', '1,5,0', '12.345') stays visible with the reason under the field, and the form gets
 * '' (nothing to submit) — silently dropping the 'e' turned '1e12' into '$112' (issue 27 item 6). A comma is the
 * decimal point. An `error` passed in wins over the reason.
 */
export function AmountField({ value, onValue, error, ...props }: AmountFieldProps) {
  const { t } = useTranslation('platform');
  const [typed, setTyped] = useState(value);
  // What the field shows: what was typed, unless the form has set the amount itself since (a reset, a preset); the ''
  // this field sent for text it refused still shows that text.
  const typedShape = shapeAmount(typed);
  const raw = typedShape === value || (typedShape === null && value === '') ? typed : value;
  const refused = shapeAmount(raw) === null;
  return (
    <TextInput
      {...props}
      inputMode="decimal"
      value={raw}
      onChange={(e) => {
        const text = e.currentTarget.value;
        setTyped(text);
        onValue(shapeAmount(text) ?? '');
      }}
      error={error ?? (refused ? t('problems.amountChars') : undefined)}
      data-refused={refused || undefined}
    />
  );
}
