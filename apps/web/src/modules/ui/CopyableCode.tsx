import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/**
 * A value to copy (a URL, a command, a secret): the text in a code box with a copy button that shows a check mark
 * for 2 s. `block` shows multi-line text (a curl command) as a block; the labels come from the caller's translations.
 */
export function CopyableCode({
  value,
  copyLabel,
  copiedLabel,
  block = false,
  onCopied,
  testId,
}: {
  value: string;
  copyLabel: string;
  copiedLabel: string;
  block?: boolean;
  onCopied?: () => void;
  testId?: string;
}) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start" data-testid={testId}>
      <Code
        block={block}
        style={{ flex: 1, minWidth: 0, wordBreak: 'break-all', whiteSpace: block ? 'pre-wrap' : 'normal' }}
        data-testid={testId ? `${testId}-value` : undefined}
      >
        {value}
      </Code>
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? copiedLabel : copyLabel} withArrow>
            <ActionIcon
              variant="light"
              color={copied ? 'teal' : 'gray'}
              aria-label={copyLabel}
              onClick={() => {
                copy();
                onCopied?.();
              }}
              data-testid={testId ? `${testId}-copy` : undefined}
            >
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
