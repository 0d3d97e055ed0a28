import { Alert, Anchor, Button, Code, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import {
  LATEST_HEAD_PATH,
  PRICE_LOG_HEADS_PATH,
  PRICE_LOG_KEY_PATH,
  saveHeadFile,
  useLatestHead,
  usePriceLogKey,
} from '../api/price-log';

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Long hex and commands wrap instead of scrolling: a phone shows them whole (and a scrolling box needs focus). */
const WRAP = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const;

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Code block style={WRAP} data-testid={testId}>
        {children}
      </Code>
    </div>
  );
}

/**
 * The public key the heads are signed with and the latest signed head (issue 30 §1), with a button that saves that
 * head as a file: kept, it lets the client check later, with any newer proof, that the log only grew.
 */
export function PriceLogPanel() {
  const { t } = useTranslation('site');
  const key = usePriceLogKey();
  const head = useLatestHead();
  const noHeadYet = head.error instanceof ApiError && head.error.status === 404;
  return (
    <Paper withBorder radius="md" p="md" data-testid="price-log-panel">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('verify.log.title')}
        </Title>
        {key.isPending ? (
          <Skeleton h={60} />
        ) : key.isError ? (
          <Alert color="red" data-testid="price-log-error">
            <Group justify="space-between">
              <Text size="sm">{t('verify.log.error')}</Text>
              <Button size="xs" variant="light" onClick={() => void key.refetch()}>
                {t('common.retry')}
              </Button>
            </Group>
          </Alert>
        ) : (
          <>
            <Field label={t('verify.log.publicKey', { algorithm: key.data.algorithm })} testId="price-log-key">
              {key.data.public_key}
            </Field>
            <Field label={t('verify.log.keyId')}>{key.data.key_id}</Field>
          </>
        )}
        <Title order={3} size="h5" mt="xs">
          {t('verify.log.head')}
        </Title>
        {head.isPending ? (
          <Skeleton h={120} />
        ) : noHeadYet ? (
          <Text c="dimmed" size="sm" data-testid="price-log-no-head">
            {t('verify.log.noHead')}
          </Text>
        ) : head.isError ? (
          <Alert color="red">
            <Group justify="space-between">
              <Text size="sm">{t('verify.log.error')}</Text>
              <Button size="xs" variant="light" onClick={() => void head.refetch()}>
                {t('common.retry')}
              </Button>
            </Group>
          </Alert>
        ) : (
          <Stack gap="xs" data-testid="price-log-head" data-tree-size={head.data.tree_size}>
            <Group gap="xl" wrap="wrap">
              <div>
                <Text size="xs" c="dimmed">
                  {t('verify.log.size')}
                </Text>
                <Text fw={700}>{head.data.tree_size}</Text>
              </div>
              <div>
                <Text size="xs" c="dimmed">
                  {t('verify.log.time')}
                </Text>
                <Text fw={700}>{formatDateTime(new Date(head.data.time_ms), LOCAL_ZONE, { seconds: true })}</Text>
              </div>
            </Group>
            <Field label={t('verify.log.root')}>{head.data.root}</Field>
            <Field label={t('verify.log.signature')}>{head.data.signature}</Field>
            <Group wrap="wrap" gap="sm">
              <Button
                leftSection={<IconDownload size={16} />}
                onClick={() => saveHeadFile(head.data)}
                data-testid="price-log-save-head"
              >
                {t('verify.log.save')}
              </Button>
            </Group>
            <Text size="sm" c="dimmed">
              {t('verify.log.saveHint')}
            </Text>
          </Stack>
        )}
        <Text size="sm">{t('verify.log.cli')}</Text>
        <Code block style={WRAP}>
          npx brokerage-verify proof.json --head price-log-head.json
        </Code>
        <Group gap="md" wrap="wrap">
          <Anchor href={PRICE_LOG_KEY_PATH} target="_blank" rel="noopener" size="sm">
            {t('transparency.key')}
          </Anchor>
          <Anchor href={LATEST_HEAD_PATH} target="_blank" rel="noopener" size="sm">
            {t('verify.log.head')}
          </Anchor>
          <Anchor href={PRICE_LOG_HEADS_PATH} target="_blank" rel="noopener" size="sm">
            {t('verify.log.all')}
          </Anchor>
        </Group>
      </Stack>
    </Paper>
  );
}
