import { LEAD_IMPORT_EXTENSIONS, LEAD_IMPORT_MAX_MB } from '@brokerage/shared';
import { CloseButton, Group, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconFileSpreadsheet, IconUpload } from '@tabler/icons-react';
import { useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { sizeInMb } from '../api/file-rules';

/**
 * §2.11 'Choose file or drag here': a drop area that is also the file picker (click, Enter or Space opens it). The
 * chosen file's name and size in MB are shown with a button to remove it; nothing can change while an upload runs.
 */
export function LeadFileDropZone({
  file,
  disabled,
  onChoose,
  onClear,
}: {
  file: File | null;
  disabled: boolean;
  onChoose: (file: File) => void;
  onClear: () => void;
}) {
  const { t } = useTranslation('leadImport');
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const open = () => {
    if (!disabled) input.current?.click();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open();
    }
  };
  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    if (!disabled) {
      event.dataTransfer.dropEffect = 'copy';
      setOver(true);
    }
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const dropped = event.dataTransfer.files[0];
    if (!disabled && dropped) onChoose(dropped);
  };

  return (
    <Stack gap="xs">
      <Paper
        withBorder
        radius="md"
        p="xl"
        role="button"
        tabIndex={disabled ? -1 : 0}
        aria-disabled={disabled}
        data-testid="lead-import-dropzone"
        data-active={over || undefined}
        onClick={open}
        onKeyDown={onKey}
        onDragEnter={onDragOver}
        onDragOver={onDragOver}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        style={{
          borderStyle: 'dashed',
          borderWidth: 2,
          borderColor: over ? 'var(--mantine-color-blue-6)' : undefined,
          background: over ? 'var(--mantine-color-blue-light)' : undefined,
          cursor: disabled ? 'not-allowed' : 'pointer',
          opacity: disabled ? 0.7 : 1,
          textAlign: 'center',
        }}
      >
        <Stack align="center" gap={6}>
          <ThemeIcon variant="light" size={48} radius="xl">
            <IconUpload size={26} />
          </ThemeIcon>
          <Text fw={600}>{over ? t('upload.dropzone.active') : t('upload.dropzone.label')}</Text>
          <Text size="sm" c="dimmed">
            {t('upload.dropzone.hint', { max: LEAD_IMPORT_MAX_MB })}
          </Text>
        </Stack>
      </Paper>
      <input
        ref={input}
        type="file"
        hidden
        accept={[...LEAD_IMPORT_EXTENSIONS, 'text/csv'].join(',')}
        data-testid="lead-import-input"
        onChange={(event) => {
          const chosen = event.currentTarget.files?.[0];
          // Choosing the same file again must fire onChange again.
          event.currentTarget.value = '';
          if (chosen) onChoose(chosen);
        }}
      />
      {file ? (
        <Paper withBorder radius="md" px="md" py="xs" data-testid="lead-import-file">
          <Group justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
              <IconFileSpreadsheet size={22} color="var(--mantine-color-green-7)" style={{ flexShrink: 0 }} />
              <div style={{ minWidth: 0 }}>
                <Text fw={500} truncate="end" data-testid="lead-import-file-name">
                  {file.name}
                </Text>
                <Text size="xs" c="dimmed" data-testid="lead-import-file-size">
                  {t('upload.file.size', { size: sizeInMb(file.size) })}
                </Text>
              </div>
            </Group>
            <CloseButton aria-label={t('upload.dropzone.remove')} disabled={disabled} onClick={onClear} />
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
