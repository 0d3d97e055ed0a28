import { Alert, Anchor, Button, Container, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../../i18n';
import { LanguageSwitch } from '../../ui/LanguageSwitch';
import { readHeadFile, readProofFile, useVerification, verifierLanguage, type ChosenFile } from '../api/verify';
import { FileDrop } from './FileDrop';
import { PriceLogPanel } from './PriceLogPanel';
import { VerdictList } from './VerdictList';

function FileError({ file }: { file: ChosenFile }) {
  const { t } = useTranslation('site');
  if (!('error' in file)) return null;
  return (
    <Alert color="red" data-testid="verify-file-error" data-error={file.error}>
      {t(`verify.errors.${file.error}`, { name: file.name })}
    </Alert>
  );
}

/**
 * '/verify' (issue 30 §3): a client drops a trade's proof file (or a period's) and, optionally, a head they saved
 * earlier; the open verifier checks it here in the browser and every check turns green, red or grey with the
 * verifier's own explanation. Public: no sign-in, nothing uploaded.
 */
export default function VerifyPage() {
  const { t, i18n } = useTranslation('site');
  const [proof, setProof] = useState<ChosenFile | null>(null);
  const [saved, setSaved] = useState<ChosenFile | null>(null);
  const verification = useVerification(proof, saved, verifierLanguage(i18n.language));

  useEffect(() => {
    document.title = t('verify.metaTitle');
  }, [t, i18n.language]);

  // A file dropped beside the drop area must not make the browser leave the page to show it.
  useEffect(() => {
    const keep = (e: DragEvent) => e.preventDefault();
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);

  const chooseProof = (file: File) => void readProofFile(file).then(setProof);
  const chooseHead = (file: File) => void readHeadFile(file).then(setSaved);

  return (
    <Container size="md" py="md" data-testid="verify-page">
      <Stack gap="lg">
        <Group justify="space-between" wrap="wrap">
          <Anchor href="/" size="sm">
            <Group gap={4} wrap="nowrap">
              <IconArrowLeft size={14} aria-hidden="true" />
              {t('verify.home')}
            </Group>
          </Anchor>
          <LanguageSwitch languages={LANGUAGES} />
        </Group>
        <div>
          <Title order={1} size="h2">
            {t('verify.title')}
          </Title>
          <Text c="dimmed" mt="xs">
            {t('verify.lead')}
          </Text>
        </div>

        <FileDrop title={t('verify.drop')} button={t('verify.choose')} onFile={chooseProof} testId="verify-drop">
          {proof ? (
            <Text size="sm" fw={500} data-testid="verify-file-name">
              {t('verify.chosen', { name: proof.name })}
            </Text>
          ) : null}
        </FileDrop>

        <section aria-live="polite" data-testid="verify-result">
          {!proof ? (
            <Paper withBorder p="lg" ta="center" data-testid="verify-empty">
              <Text c="dimmed">{t('verify.empty')}</Text>
            </Paper>
          ) : 'error' in proof ? (
            <FileError file={proof} />
          ) : verification.isError ? (
            <Alert color="red" data-testid="verify-failed">
              {t('verify.errors.failed', {
                message: verification.error instanceof Error ? verification.error.message : String(verification.error),
              })}
            </Alert>
          ) : !verification.data ? (
            <Group justify="center" py="lg" data-testid="verify-checking">
              <Loader size="sm" />
              <Text c="dimmed">{t('verify.checking')}</Text>
            </Group>
          ) : (
            <VerdictList run={verification.data} />
          )}
        </section>

        <FileDrop
          title={t('verify.headTitle')}
          hint={t('verify.headHint')}
          button={t('verify.chooseHead')}
          onFile={chooseHead}
          testId="verify-head-drop"
        >
          {saved ? (
            <Group gap="xs">
              <Text size="sm" fw={500} data-testid="verify-head-name">
                {t('verify.chosen', { name: saved.name })}
              </Text>
              <Button size="compact-sm" variant="subtle" onClick={() => setSaved(null)}>
                {t('verify.removeHead')}
              </Button>
            </Group>
          ) : null}
          {saved ? <FileError file={saved} /> : null}
        </FileDrop>

        <PriceLogPanel />
      </Stack>
    </Container>
  );
}
