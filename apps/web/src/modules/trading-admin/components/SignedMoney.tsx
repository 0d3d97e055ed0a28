import { Text, type TextProps } from '@mantine/core';
import { formatSignedMoney, signColor } from '../format';

/** A profit or a ledger amount: signed, green above 0 and red below (§2.16, §2.17). */
export function SignedMoney({ amount, ...props }: { amount: number } & TextProps) {
  return (
    <Text span c={signColor(amount)} fw={500} {...props} style={{ whiteSpace: 'nowrap' }}>
      {formatSignedMoney(amount)}
    </Text>
  );
}
