import { Alert, Button, Code, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** The ten recovery codes, shown once, with a copy of them all and the step to go on. */
export function RecoveryCodes({
  codes,
  onDone,
  doneLabel,
}: {
  codes: string[];
  onDone: () => void;
  doneLabel?: string;
}) {
  const { t } = useTranslation();
  return (
    <Stack data-testid="recovery-codes">
      <Alert color="yellow" variant="light" title={t('login.twoFactor.recoveryTitle')}>
        {t('login.twoFactor.recoveryHint')}
      </Alert>
      <SimpleGrid cols={2} spacing="xs">
        {codes.map((c) => (
          <Code key={c} ta="center" fz="md" data-testid="recovery-code">
            {c}
          </Code>
        ))}
      </SimpleGrid>
      <Group grow>
        <CopyButton value={codes.join('\n')} timeout={2000}>
          {({ copied, copy }) => (
            <Button
              variant="light"
              color={copied ? 'teal' : 'gray'}
              leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              onClick={copy}
              data-testid="recovery-codes-copy"
            >
              {copied ? t('login.twoFactor.copied') : t('login.twoFactor.copyAll')}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Button onClick={onDone} data-testid="recovery-codes-done">
        {doneLabel ?? t('login.twoFactor.saved')}
      </Button>
      <Text size="xs" c="dimmed">
        {t('login.twoFactor.resetHint')}
      </Text>
    </Stack>
  );
}
