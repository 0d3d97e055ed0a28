import { LEAD_IMPORT_MAX_MB } from '@brokerage/shared';
import { Button, Group, List, Loader, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorText } from '../../../lib/api';
import { ErrorBox } from '../../ui/ErrorBox';
import { downloadTemplate, leadFileProblem, sizeInMb, type LeadFileProblem } from '../api/file-rules';
import { useUploadLeadFile, type UploadProgress } from '../api/upload';
import { LeadFileDropZone } from './LeadFileDropZone';
import { UploadErrorPanel, UploadResultPanel } from './UploadResultPanel';

type Phase = { kind: 'idle' } | { kind: 'sending'; progress: UploadProgress | null } | { kind: 'processing' };

/**
 * §2.11 'File upload' ('Client upload'): choose or drop a CSV/XLSX/XLS file (name and size shown; type and the
 * 10 MB limit checked here first, §5), 'Upload file' — disabled with no file or while an upload runs — then a
 * progress bar of the bytes sent, a processing state while the server reads the rows, and the result or failure
 * panel. 'Download CSV template' gives clients_template.csv; the stated requirements close the tab.
 */
export function FileUploadTab() {
  const { t } = useTranslation('leadImport');
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<LeadFileProblem | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const upload = useUploadLeadFile();
  const busy = upload.isPending;
  const failure = upload.error
    ? upload.error instanceof ApiError && upload.error.code === 'network'
      ? t('upload.error.network')
      : errorText(upload.error, t('upload.error.fallback'))
    : null;

  const choose = (chosen: File) => {
    const issue = leadFileProblem(chosen);
    setProblem(issue);
    setFile(issue ? null : chosen);
    upload.reset();
  };

  const start = () => {
    if (!file || busy) return;
    setPhase({ kind: 'sending', progress: null });
    upload.mutate(
      {
        file,
        callbacks: {
          onProgress: (progress) => setPhase({ kind: 'sending', progress }),
          onSent: () => setPhase({ kind: 'processing' }),
        },
      },
      {
        onSuccess: () => setFile(null),
        onSettled: () => setPhase({ kind: 'idle' }),
      },
    );
  };

  const percent =
    phase.kind === 'sending' && phase.progress && phase.progress.total > 0
      ? Math.min(100, Math.round((phase.progress.loaded / phase.progress.total) * 100))
      : 0;

  return (
    <Stack gap="md" data-testid="lead-import">
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <div>
            <Title order={4}>{t('upload.title')}</Title>
            <Text size="sm" c="dimmed">
              {t('upload.subtitle')}
            </Text>
          </div>
          <LeadFileDropZone
            file={file}
            disabled={busy}
            onChoose={choose}
            onClear={() => {
              setFile(null);
              setProblem(null);
            }}
          />
          <ErrorBox message={problem ? t(`upload.invalid.${problem}`, { max: LEAD_IMPORT_MAX_MB }) : null} />
          {phase.kind === 'sending' ? (
            <Stack gap={4} data-testid="lead-import-progress">
              <Progress value={percent} size="lg" radius="xl" animated aria-label={`${percent}%`} />
              <Text size="sm" c="dimmed" data-testid="lead-import-progress-text">
                {t('upload.progress.sending', {
                  percent,
                  sent: sizeInMb(phase.progress?.loaded ?? 0),
                  total: sizeInMb(phase.progress?.total ?? file?.size ?? 0),
                })}
              </Text>
            </Stack>
          ) : null}
          {phase.kind === 'processing' ? (
            <Group gap="sm" data-testid="lead-import-processing">
              <Loader size="sm" />
              <Text size="sm">{t('upload.progress.processing')}</Text>
            </Group>
          ) : null}
          <Group gap="sm">
            <Button
              leftSection={busy ? undefined : <IconUpload size={18} />}
              disabled={!file || busy}
              onClick={start}
              data-testid="lead-import-upload"
            >
              {busy ? t('upload.button.uploading') : t('upload.button.upload')}
            </Button>
            <Button
              variant="default"
              leftSection={<IconDownload size={18} />}
              onClick={downloadTemplate}
              data-testid="lead-import-template"
            >
              {t('upload.button.template')}
            </Button>
          </Group>
        </Stack>
      </Paper>

      {upload.data ? <UploadResultPanel result={upload.data} /> : null}
      {failure ? <UploadErrorPanel message={failure} /> : null}

      <Paper withBorder radius="md" p="md" data-testid="lead-import-requirements">
        <Text fw={600} mb="xs">
          {t('upload.requirements.title')}
        </Text>
        <List size="sm" spacing={4}>
          <List.Item>{t('upload.requirements.columns')}</List.Item>
          <List.Item>{t('upload.requirements.optional')}</List.Item>
          <List.Item>{t('upload.requirements.format')}</List.Item>
          <List.Item>{t('upload.requirements.size', { max: LEAD_IMPORT_MAX_MB })}</List.Item>
          <List.Item>{t('upload.requirements.duplicates')}</List.Item>
          <List.Item>{t('upload.requirements.phones')}</List.Item>
        </List>
      </Paper>
    </Stack>
  );
}
