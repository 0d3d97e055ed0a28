import { Text } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A label over its value, for the cards that replace tables on phones and for detail cards. `wide` spans the whole
 * grid row; `multiline` keeps the value's line breaks (notes); `testId` marks the value.
 */
export function Field({
  label,
  children,
  wide,
  multiline,
  testId,
}: {
  label: string;
  children: ReactNode;
  wide?: boolean;
  multiline?: boolean;
  testId?: string;
}) {
  return (
    <div style={{ minWidth: 0, gridColumn: wide ? '1 / -1' : undefined }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text
        size="sm"
        component="div"
        data-testid={testId}
        style={{ overflowWrap: 'anywhere', whiteSpace: multiline ? 'pre-wrap' : undefined }}
      >
        {children}
      </Text>
    </div>
  );
}
