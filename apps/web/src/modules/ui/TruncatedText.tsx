import { Table, Text, Tooltip, type TextProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** The widest a user value may make its column before it is cut with an ellipsis. */
export const CELL_MAX_WIDTH = 240;

type TruncatedTextProps = Omit<TextProps, 'children' | 'truncate'> & {
  /** The full value: shown cut to one line with an ellipsis, and whole in a tooltip and the title. */
  value: string;
  /** What to show instead of the bare value (e.g. a link around it); the tooltip still shows `value`. */
  children?: ReactNode;
  maxWidth?: number;
  'data-testid'?: string;
};

/**
 * A user value in a table (issue 15 defect 3): one line, cut with an ellipsis at `maxWidth`, the whole value in a
 * tooltip on hover or focus, so a 120-character name without spaces cannot push the other columns off screen.
 * Every list table puts its user values (names, e-mails, campaigns, reasons…) through this one component.
 */
export function TruncatedText({
  value,
  children,
  maxWidth = CELL_MAX_WIDTH,
  size = 'sm',
  ...rest
}: TruncatedTextProps) {
  return (
    <Tooltip
      label={value}
      disabled={value === ''}
      multiline
      maw={Math.max(maxWidth, 320)}
      openDelay={250}
      style={{ overflowWrap: 'anywhere' }}
      events={{ hover: true, focus: true, touch: false }}
    >
      <Text size={size} truncate="end" maw={maxWidth} data-full-value={value} data-truncated-cell {...rest}>
        {children ?? value}
      </Text>
    </Tooltip>
  );
}

/** A table cell holding one user value, cut as TruncatedText does. */
export function TruncatedCell({ value, children, maxWidth, ...textProps }: TruncatedTextProps) {
  return (
    <Table.Td>
      <TruncatedText value={value} maxWidth={maxWidth} {...textProps}>
        {children}
      </TruncatedText>
    </Table.Td>
  );
}
