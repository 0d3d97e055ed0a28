import { Button, FileButton, Paper, Stack, Text } from '@mantine/core';
import { IconFileUpload } from '@tabler/icons-react';
import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A place to drop a file, with a file picker beside it for the keyboard and for phones (which cannot drag). The picker
 * is reset after each choice, so choosing the same file again (after editing it) is read again.
 */
export function FileDrop({
  title,
  hint,
  button,
  onFile,
  testId,
  children,
}: {
  title: string;
  hint?: string;
  button: string;
  onFile: (file: File) => void;
  testId: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation('site');
  const [over, setOver] = useState(false);
  const reset = useRef<() => void>(null);
  const dragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) onFile(file);
  };
  return (
    <Paper
      withBorder
      radius="md"
      p="lg"
      data-testid={testId}
      data-over={over || undefined}
      onDragEnter={dragOver}
      onDragOver={dragOver}
      // Moving over the area's own text and button fires dragleave too: only leaving the area itself counts.
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={drop}
      style={{
        borderStyle: 'dashed',
        borderWidth: 2,
        borderColor: over ? 'var(--mantine-color-blue-6)' : undefined,
        background: over ? 'var(--mantine-color-blue-light)' : undefined,
      }}
    >
      <Stack align="center" gap="xs" ta="center">
        <IconFileUpload size={32} aria-hidden="true" color="var(--mantine-color-dimmed)" />
        <Text fw={600}>{title}</Text>
        {hint ? (
          <Text size="sm" c="dimmed" maw={560}>
            {hint}
          </Text>
        ) : null}
        <Text size="sm" c="dimmed">
          {t('verify.or')}
        </Text>
        <FileButton
          resetRef={reset}
          accept="application/json,.json"
          onChange={(file) => {
            if (file) onFile(file);
            reset.current?.();
          }}
        >
          {(props) => (
            <Button {...props} data-testid={`${testId}-button`}>
              {button}
            </Button>
          )}
        </FileButton>
        {children}
      </Stack>
    </Paper>
  );
}
